//! `toolscope sign-out`: forgets a stored MCP sign-in, through the real binary.

mod support;

use support::{stderr, Sandbox};
use toolscope_mcp::oauth::store::SavedSignIn;
use toolscope_mcp::SignInFiles;

const CONFIG: &str = r#"{"mcpServers": {
    "tracker": {"url": "http://127.0.0.1:9/mcp"},
    "local": {"command": "node", "args": ["server.js"]}
}}"#;

#[test]
fn sign_out_forgets_the_stored_sign_in_of_the_named_server() {
    let sandbox = Sandbox::new();
    let config = sandbox.write("mcp.json", CONFIG);
    let files = SignInFiles::in_data_dir(sandbox.path());
    let url = "http://127.0.0.1:9/mcp";
    let record: SavedSignIn = serde_json::from_value(serde_json::json!({
        "url": url,
        "redirect_uri": "http://127.0.0.1:4567/callback",
        "credentials": {"client_id": "c", "token_response": null}
    }))
    .expect("a stored sign-in");
    files.save("tracker", &record).expect("saved");

    let output = sandbox.run(&["--mcp-config", &config, "sign-out", "tracker"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(String::from_utf8_lossy(&output.stdout).contains("signed out of 'tracker'"));
    assert!(files.load("tracker", url).is_none());

    let (code, again) = sandbox.json(&["--mcp-config", &config, "--json", "sign-out", "tracker"]);
    assert_eq!((code, &again["signed_out"]), (0, &serde_json::json!(false)));

    for (name, says) in [
        ("local", "started as a command"),
        ("nobody", "no server named"),
    ] {
        let output = sandbox.run(&["--mcp-config", &config, "sign-out", name]);
        assert_eq!(output.status.code(), Some(2), "{name}");
        assert!(stderr(&output).contains(says), "{}", stderr(&output));
    }
}
