//! Declared formats from the CLI: `--formats-dir` files are listed, named, auto-detected, and a
//! broken file is reported by line without stopping the others.

mod support;

use support::{repo_path, stderr, Sandbox};

#[test]
fn declared_formats_are_listed_parsed_and_detected_and_problems_are_reported_by_line() {
    let sandbox = Sandbox::new();
    let dir = sandbox.path().join("formats");
    std::fs::create_dir_all(&dir).expect("formats dir");
    std::fs::copy(
        repo_path("examples/formats/react_action.toml"),
        dir.join("react_action.toml"),
    )
    .expect("copy the example");
    std::fs::copy(
        repo_path("examples/formats/acme_xml.toml"),
        dir.join("acme_xml.toml"),
    )
    .expect("copy the example");
    std::fs::write(
        dir.join("broken.toml"),
        "id = \"broken\"\nstart = \"<b>\"\narguments = \"yaml\"\n",
    )
    .expect("write");
    let dir = dir.to_string_lossy().into_owned();

    let listed = sandbox.run(&["formats", "--formats-dir", &dir]);
    let stdout = String::from_utf8_lossy(&listed.stdout);
    assert!(stdout.contains("react_action"), "{stdout}");
    assert!(!stdout.contains("broken"), "{stdout}");
    let warnings = stderr(&listed);
    assert!(
        warnings.contains("broken.toml:3:13: arguments = 'yaml' is not an encoding"),
        "{warnings}"
    );

    // A declared format's own markers make it the detected one.
    let acme = sandbox.write(
        "acme.txt",
        "Writing it.\n<act id=\"c1\"><tool>write_file</tool>\n<arg name=\"path\">notes.md</arg>\n</act>",
    );
    let (code, detected) = sandbox.json(&["parse", &acme, "--formats-dir", &dir, "--json"]);
    assert_eq!(code, 0);
    assert_eq!(detected["format"], "acme_xml");
    assert_eq!(detected["detected"], true);
    assert_eq!(detected["requests"][0]["tool_name"], "write_file");
    assert_eq!(detected["requests"][0]["args"]["path"], "notes.md");
    assert_eq!(detected["content"], "Writing it.");

    // ReAct steps are also a built-in format's, which auto-detect picks with the same call.
    let reply = sandbox.write(
        "reply.txt",
        "Thought: weather first.\nAction: get_weather\nAction Input: {\"city\": \"Paris\"}\n",
    );
    let (code, report) = sandbox.json(&["parse", &reply, "--formats-dir", &dir, "--json"]);
    assert_eq!(code, 0);
    assert_eq!(report["format"], "react");
    assert_eq!(report["detected"], true);
    assert_eq!(report["requests"][0]["tool_name"], "get_weather");
    assert_eq!(report["requests"][0]["args"]["city"], "Paris");

    let (_, named) = sandbox.json(&[
        "parse",
        &reply,
        "--format",
        "react_action",
        "--formats-dir",
        &dir,
        "--json",
    ]);
    assert_eq!(named["detected"], false);
    assert_eq!(named["requests"][0]["args"], report["requests"][0]["args"]);
    assert_eq!(named["requests"][0]["span"], report["requests"][0]["span"]);
}

#[test]
fn formats_check_reports_each_file_by_line() {
    let sandbox = Sandbox::new();
    let good = repo_path("examples/formats/acme_xml.toml");
    let bad = sandbox.write(
        "bad.toml",
        "id = \"bad\"\nstart = \"<b>\"\nregex = '(?P<nam>x)'\n",
    );
    let clash = sandbox.write("clash.toml", "id = \"hermes\"\nstart = \"<h>\"\n");
    let output = sandbox.run(&["formats", "--check", &good, &bad, &clash]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("acme_xml.toml: ok"), "{stdout}");
    assert!(
        stdout.contains("bad.toml:3:9: the regex needs a (?P<name>"),
        "{stdout}"
    );
    assert!(
        stdout.contains("'hermes' is a built-in format's"),
        "{stdout}"
    );
    let fine = sandbox.run(&["formats", "--check", &good]);
    assert_eq!(fine.status.code(), Some(0));
}
