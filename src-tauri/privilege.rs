//! Checks of what the app manifest lets the web view do, read from the files the build uses:
//! every registered command is declared in build.rs (so Tauri enforces the capabilities on
//! it); the capabilities grant exactly those commands plus Tauri's core defaults, to the main
//! window only and no remote origin; the store plugin is not exposed (settings go through
//! validated commands); the CSP allows no inline or eval'd script and no origin but the app
//! itself and its IPC.
//!
//! Why a test: each of these is one line in a JSON file that a later change could widen
//! without anyone noticing; the e2e prompt-injection scenario relies on them.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use crate::commands::COMMAND_NAMES;

fn read_json(relative: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn capabilities_grant_exactly_the_app_commands_to_the_main_window() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src-tauri/capabilities");
    let files: Vec<_> = std::fs::read_dir(&dir)
        .expect("capabilities dir")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        files,
        ["default.json"],
        "a new capability file needs a review"
    );
    let capability = read_json("src-tauri/capabilities/default.json");
    assert_eq!(strings(&capability["windows"]), ["main"]);
    assert!(
        capability.get("webviews").is_none() && capability.get("remote").is_none(),
        "no other webview and no remote origin may use the commands: {capability}"
    );
    let granted: BTreeSet<String> = strings(&capability["permissions"]).into_iter().collect();
    let expected: BTreeSet<String> = COMMAND_NAMES
        .iter()
        .map(|name| format!("allow-{}", name.replace('_', "-")))
        .chain(["core:default".to_owned()])
        .collect();
    assert_eq!(granted, expected);
}

#[test]
fn every_registered_command_is_declared_in_the_app_manifest() {
    // A command missing from COMMAND_NAMES would escape the capabilities' review (and fail at
    // run time); read the registered ones from freshly exported bindings.
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("bindings.ts");
    crate::commands::builder()
        .export(specta_typescript::Typescript::default(), &path)
        .expect("bindings export");
    let text = std::fs::read_to_string(&path).expect("bindings written");
    let marker = "__TAURI_INVOKE(\"";
    let registered: BTreeSet<&str> = text
        .match_indices(marker)
        .filter_map(|(at, _)| text[at + marker.len()..].split('"').next())
        .collect();
    let declared: BTreeSet<&str> = COMMAND_NAMES.iter().copied().collect();
    assert_eq!(registered, declared);
}

/// Directive name → its sources.
fn csp_directives(csp: &str) -> Vec<(String, Vec<String>)> {
    csp.split(';')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|directive| {
            let mut parts = directive.split_whitespace().map(str::to_owned);
            let name = parts.next().unwrap_or_default();
            (name, parts.collect())
        })
        .collect()
}

#[test]
fn the_csp_allows_no_inline_script_and_no_foreign_origin() {
    let config = read_json("tauri.conf.json");
    let security = &config["app"]["security"];
    let csp = security["csp"].as_str().expect("a CSP is set");
    let directives = csp_directives(csp);
    let get = |name: &str| {
        directives
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, sources)| sources.clone())
            .unwrap_or_else(|| panic!("the CSP has no {name}: {csp}"))
    };
    assert_eq!(get("default-src"), ["'self'"]);
    assert_eq!(get("script-src"), ["'self'"]);
    assert_eq!(get("object-src"), ["'none'"]);
    assert_eq!(get("base-uri"), ["'none'"]);
    assert_eq!(get("frame-ancestors"), ["'none'"]);
    assert_eq!(get("form-action"), ["'none'"]);
    assert_eq!(
        get("connect-src"),
        ["'self'", "ipc:", "http://ipc.localhost"]
    );
    for (name, sources) in &directives {
        for source in sources {
            assert!(
                !source.contains('*') && !source.contains("eval"),
                "{name} allows {source}"
            );
            let scheme_origin = source.contains("://") || source.ends_with(':');
            let allowed = ["ipc:", "http://ipc.localhost", "data:"];
            assert!(
                !scheme_origin || allowed.contains(&source.as_str()),
                "{name} allows the origin {source}"
            );
            // React's style attributes (virtualised lists) need inline styles; nothing else may
            // be inline.
            assert!(
                source != "'unsafe-inline'" || name == "style-src",
                "{name} allows inline content"
            );
        }
    }
    // Tauri adds nonces and hashes to every directive it may; only style-src is exempt (a
    // nonce there would switch 'unsafe-inline' off for the style attributes above).
    assert_eq!(
        strings(&security["dangerousDisableAssetCspModification"]),
        ["style-src"]
    );
    assert_eq!(config["app"]["withGlobalTauri"], Value::Bool(false));
    for risky in ["dangerousRemoteDomainIpcAccess", "assetProtocol"] {
        assert!(security.get(risky).is_none(), "{risky} is set");
    }
}
