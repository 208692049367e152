//! The sync's bookkeeping: what a reload adds, replaces and removes, that a no-op reload leaves
//! the registry (and so the prompt cache) alone, and how clashes and failures are reported.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use super::*;
use crate::registry::tests::{fixture, method};

/// Counts how many tools the candidates built, so a test can tell a rebuild from a keep.
#[derive(Default, Clone)]
struct Builds(Arc<AtomicUsize>);

impl Builds {
    fn count(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }

    /// `name` defines tool `id` at `revision`.
    fn file(&self, name: &str, revision: &str, id: &str) -> FileCandidate {
        let builds = Arc::clone(&self.0);
        let tool_id = id.to_owned();
        FileCandidate {
            path: PathBuf::from(format!("tools/{name}")),
            revision: revision.as_bytes().to_vec(),
            tool: Some(CandidateTool::new(id, move || {
                builds.fetch_add(1, Ordering::SeqCst);
                Ok(fixture(&tool_id, vec![method("run", true)]))
            })),
        }
    }
}

/// A file without a tool (disabled or broken; the provider reported why).
fn no_tool(name: &str) -> FileCandidate {
    FileCandidate {
        path: PathBuf::from(format!("tools/{name}")),
        revision: Vec::new(),
        tool: None,
    }
}

fn failing(name: &str, id: &str, message: &str) -> FileCandidate {
    let message = message.to_owned();
    FileCandidate {
        path: PathBuf::from(format!("tools/{name}")),
        revision: b"broken".to_vec(),
        tool: Some(CandidateTool::new(id, move || Err(message))),
    }
}

fn sync() -> FileToolSync {
    FileToolSync::new(Arc::new(Registry::new()))
}

fn ids(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn adds_updates_keeps_and_removes() {
    let sync = sync();
    let builds = Builds::default();
    let report = sync.sync(
        vec![
            builds.file("b.json", "1", "beta"),
            builds.file("a.json", "1", "alpha"),
        ],
        ReloadReport::default(),
    );
    assert_eq!(report.added, ids(&["alpha", "beta"]), "sorted");
    assert!(report.changed_registry());
    assert_eq!(sync.tool_ids(), ids(&["alpha", "beta"]));
    assert_eq!(sync.file_of("beta"), Some(PathBuf::from("tools/b.json")));
    assert_eq!(sync.registry().tool_ids(), ids(&["alpha", "beta"]));

    let generation = sync.registry().generation();
    let again = sync.sync(
        vec![
            builds.file("a.json", "1", "alpha"),
            builds.file("b.json", "1", "beta"),
        ],
        ReloadReport::default(),
    );
    assert_eq!(
        again,
        ReloadReport::default(),
        "a no-op reload reports nothing"
    );
    assert_eq!(
        sync.registry().generation(),
        generation,
        "prompt cache stays valid"
    );
    assert_eq!(builds.count(), 2, "unchanged files are not rebuilt");

    let changed = sync.sync(
        vec![builds.file("a.json", "2", "alpha")],
        ReloadReport::default(),
    );
    assert_eq!(changed.updated, ids(&["alpha"]));
    assert_eq!(changed.removed, ids(&["beta"]));
    assert!(sync.registry().get("beta").is_none());
    assert_eq!(sync.file_of("beta"), None);
    assert_eq!(builds.count(), 3);
}

#[test]
fn rebuilds_a_tool_someone_else_unregistered() {
    let sync = sync();
    let builds = Builds::default();
    sync.sync(
        vec![builds.file("a.json", "1", "alpha")],
        ReloadReport::default(),
    );
    sync.registry().unregister("alpha");
    let report = sync.sync(
        vec![builds.file("a.json", "1", "alpha")],
        ReloadReport::default(),
    );
    assert_eq!(report.updated, ids(&["alpha"]));
    assert!(sync.registry().get("alpha").is_some());
}

#[test]
fn keeps_the_providers_findings_and_sorts_them_in() {
    let sync = sync();
    let builds = Builds::default();
    let found = ReloadReport {
        disabled: ids(&["zeta", "off"]),
        disabled_files: vec![PathBuf::from("tools/z.json"), PathBuf::from("tools/o.json")],
        problems: vec![DefinitionProblem {
            file: PathBuf::from("tools/bad.json"),
            field: Some("id".into()),
            message: "not a tool id".into(),
        }],
        ..ReloadReport::default()
    };
    let report = sync.sync(
        vec![
            builds.file("a.json", "1", "alpha"),
            no_tool("bad.json"),
            no_tool("o.json"),
            no_tool("z.json"),
        ],
        found,
    );
    assert_eq!(report.added, ids(&["alpha"]));
    assert_eq!(report.disabled, ids(&["off", "zeta"]));
    assert_eq!(report.problems.len(), 1);
    assert_eq!(
        report.problems[0].to_string(),
        "tools/bad.json: id: not a tool id"
    );
    assert_eq!(sync.tool_ids(), ids(&["alpha"]));
}

#[test]
fn the_first_file_by_name_claims_an_id_and_keeps_it() {
    let sync = sync();
    let builds = Builds::default();
    let report = sync.sync(
        vec![
            builds.file("b.json", "1", "same"),
            builds.file("c.json", "1", "same"),
        ],
        ReloadReport::default(),
    );
    assert_eq!(report.added, ids(&["same"]));
    assert_eq!(report.problems.len(), 1);
    let clash = &report.problems[0];
    assert_eq!(clash.file, Path::new("tools/c.json"));
    assert_eq!(clash.field.as_deref(), Some("id"));
    assert!(clash.message.contains("tools/b.json"), "{}", clash.message);

    // A new file earlier by name does not take the id from the file that registered it.
    let generation = sync.registry().generation();
    let later = sync.sync(
        vec![
            builds.file("a.json", "1", "same"),
            builds.file("b.json", "1", "same"),
            builds.file("c.json", "1", "same"),
        ],
        ReloadReport::default(),
    );
    assert!(!later.changed_registry(), "{later:?}");
    assert_eq!(later.problems.len(), 2);
    assert_eq!(sync.file_of("same"), Some(PathBuf::from("tools/b.json")));
    assert_eq!(sync.registry().generation(), generation);
}

#[test]
fn an_id_of_a_tool_it_does_not_own_is_a_problem() {
    let sync = sync();
    sync.registry()
        .register(fixture("echo", vec![method("say", true)]))
        .expect("registers the built-in");
    let builds = Builds::default();
    let report = sync.sync(
        vec![builds.file("e.json", "1", "echo")],
        ReloadReport::default(),
    );
    assert!(!report.changed_registry());
    assert_eq!(report.problems.len(), 1);
    assert!(
        report.problems[0]
            .message
            .contains("registered built-in tool"),
        "{}",
        report.problems[0].message
    );
    assert_eq!(builds.count(), 0, "nothing is built for a refused id");
    assert!(sync.tool_ids().is_empty());
    assert!(sync.registry().get("echo").is_some(), "the built-in stays");
}

#[test]
fn a_build_error_is_the_files_problem_and_drops_its_old_tool() {
    let sync = sync();
    let builds = Builds::default();
    sync.sync(
        vec![builds.file("a.json", "1", "alpha")],
        ReloadReport::default(),
    );
    let report = sync.sync(
        vec![failing("a.json", "alpha", "module does not compile")],
        ReloadReport::default(),
    );
    assert_eq!(report.removed, ids(&["alpha"]));
    assert_eq!(report.problems.len(), 1);
    assert_eq!(
        report.problems[0].to_string(),
        "tools/a.json: module does not compile"
    );
    assert!(sync.registry().get("alpha").is_none());
    assert!(sync.tool_ids().is_empty());

    let fixed = sync.sync(
        vec![builds.file("a.json", "2", "alpha")],
        ReloadReport::default(),
    );
    assert_eq!(fixed.added, ids(&["alpha"]));
}

#[test]
fn registry_refusals_and_mismatched_ids_are_problems() {
    let sync = sync();
    let refused = FileCandidate {
        path: PathBuf::from("tools/r.json"),
        revision: b"1".to_vec(),
        tool: Some(CandidateTool::new("r", || {
            Ok(fixture("r", vec![method("bad_name", true)]))
        })),
    };
    let mismatched = FileCandidate {
        path: PathBuf::from("tools/m.json"),
        revision: b"1".to_vec(),
        tool: Some(CandidateTool::new("m", || {
            Ok(fixture("other", vec![method("run", true)]))
        })),
    };
    let report = sync.sync(vec![mismatched, refused], ReloadReport::default());
    assert!(!report.changed_registry(), "{report:?}");
    let messages: Vec<String> = report.problems.iter().map(ToString::to_string).collect();
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert!(
        messages[0].contains("has id 'other', expected 'm'"),
        "{messages:?}"
    );
    assert!(
        messages[1].contains("the registry refused the tool"),
        "{messages:?}"
    );
    assert!(sync.registry().tool_ids().is_empty());
}

#[test]
fn clear_unregisters_only_its_own_tools() {
    let sync = sync();
    sync.registry()
        .register(fixture("echo", vec![method("say", true)]))
        .expect("registers the built-in");
    let builds = Builds::default();
    sync.sync(
        vec![
            builds.file("b.json", "1", "beta"),
            builds.file("a.json", "1", "alpha"),
        ],
        ReloadReport::default(),
    );
    let report = sync.clear();
    assert_eq!(report.removed, ids(&["alpha", "beta"]));
    assert_eq!(sync.registry().tool_ids(), ids(&["echo"]));
    assert!(sync.tool_ids().is_empty());
    assert_eq!(
        sync.clear(),
        ReloadReport::default(),
        "nothing left to clear"
    );
    let back = sync.sync(
        vec![builds.file("a.json", "1", "alpha")],
        ReloadReport::default(),
    );
    assert_eq!(back.added, ids(&["alpha"]), "a cleared file is new again");
}

#[test]
fn lists_accepted_visible_files_by_name() {
    let dir = tempfile::tempdir().expect("temp dir");
    for name in [
        "b.json",
        "a.toml",
        ".a.json.tmp",
        ".hidden.json",
        "notes.txt",
    ] {
        std::fs::write(dir.path().join(name), "x").expect("writes");
    }
    std::fs::create_dir(dir.path().join("sub.json")).expect("creates a directory");
    let listed = list_files(dir.path(), |p| {
        p.extension().is_some_and(|e| e == "json" || e == "toml")
    })
    .expect("lists");
    assert_eq!(
        listed,
        [dir.path().join("a.toml"), dir.path().join("b.json")]
    );
    let missing = list_files(&dir.path().join("gone"), |_| true).expect_err("no directory");
    assert_eq!(missing.kind(), std::io::ErrorKind::NotFound);
}
