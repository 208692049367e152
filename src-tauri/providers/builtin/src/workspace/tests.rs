//! Tests of `workspace`, kept beside it so the module itself stays readable.

use super::*;
use serde_json::json;
use std::fs;

struct Fixture {
    dir: tempfile::TempDir,
    tool: WorkspaceTool,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let tool = WorkspaceTool::new(dir.path().join("ws")).expect("workspace");
        Self { dir, tool }
    }

    fn root(&self) -> &Path {
        self.tool.root()
    }

    /// A directory next to the root, outside the workspace.
    fn outside(&self) -> PathBuf {
        let outside = self.dir.path().join("outside");
        fs::create_dir_all(&outside).expect("mkdir outside");
        fs::write(outside.join("secret.txt"), "top secret\n").expect("write secret");
        outside
    }

    fn put(&self, rel: &str, content: &str) {
        let path = self.root().join(rel);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).expect("mkdir");
        }
        fs::write(path, content).expect("write");
    }

    async fn call(&self, method: &str, args: Value) -> Result<Value, ToolFailure> {
        let args = args.as_object().cloned().expect("args object");
        self.tool.call(method, args, CallContext::default()).await
    }

    async fn ok(&self, method: &str, args: Value) -> Value {
        match self.call(method, args.clone()).await {
            Ok(value) => value,
            Err(e) => panic!("{method} {args} failed: {e}"),
        }
    }

    async fn fail(&self, method: &str, args: Value) -> String {
        match self.call(method, args.clone()).await {
            Ok(value) => panic!("{method} {args} succeeded: {value}"),
            Err(ToolFailure::Failed(message)) => message,
            Err(other) => panic!("{method} {args}: unexpected failure {other:?}"),
        }
    }
}

fn paths(listing: &Value) -> Vec<String> {
    listing["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| e["path"].as_str().expect("path").to_owned())
        .collect()
}

#[test]
fn info_is_registrable_and_schemas_compile() {
    let fx = Fixture::new();
    let info = fx.tool.info();
    assert_eq!(info.id, "workspace");
    assert_eq!(info.name, "Workspace files");
    assert_eq!(info.source, ToolSource::Builtin);
    let names: Vec<&str> = info.methods.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["list", "read", "write", "delete"]);
    for m in &info.methods {
        jsonschema::validator_for(&m.parameters).expect("parameters compile");
        jsonschema::validator_for(m.output_schema.as_ref().expect("output"))
            .expect("output schema compiles");
        assert!(m.agent_callable);
    }
    let by_name = |n: &str| {
        info.methods
            .iter()
            .find(|m| m.name == n)
            .expect("method")
            .annotations
            .clone()
    };
    assert!(by_name("list").is_read_only());
    assert!(by_name("read").is_read_only());
    assert!(!by_name("write").is_destructive());
    assert_eq!(by_name("write").idempotent, Some(false));
    assert!(by_name("delete").is_destructive());
    assert_eq!(by_name("delete").idempotent, Some(true));

    let registry = toolscope_engine::registry::Registry::new();
    registry
        .register(std::sync::Arc::new(fx.tool.clone()))
        .expect("registers");
    assert!(registry.resolve("workspace_delete").is_ok());
}

#[tokio::test]
async fn unknown_method() {
    let fx = Fixture::new();
    assert_eq!(
        fx.call("rename", json!({})).await,
        Err(ToolFailure::UnknownMethod("rename".to_owned()))
    );
}

#[tokio::test]
async fn write_read_list_delete_happy_path() {
    let fx = Fixture::new();
    let out = fx
        .ok(
            "write",
            json!({ "path": "notes/todo.md", "content": "one\ntwo\n", "createDirs": true }),
        )
        .await;
    assert_eq!(
        out,
        json!({ "path": "notes/todo.md", "bytesWritten": 8, "created": true })
    );
    let out = fx.ok("read", json!({ "path": "./notes//todo.md" })).await;
    assert_eq!(
        out,
        json!({ "path": "notes/todo.md", "content": "one\ntwo\n", "lines": 2, "truncated": false })
    );
    let out = fx.ok("list", json!({})).await;
    assert_eq!(
        out,
        json!({
            "path": ".",
            "entries": [{ "path": "notes", "kind": "dir", "size": null }],
            "truncated": false
        })
    );
    let out = fx.ok("list", json!({ "path": "notes" })).await;
    assert_eq!(
        out["entries"],
        json!([{ "path": "notes/todo.md", "kind": "file", "size": 8 }])
    );
    let out = fx.ok("delete", json!({ "path": "notes/todo.md" })).await;
    assert_eq!(
        out,
        json!({ "path": "notes/todo.md", "kind": "file", "deleted": true })
    );
    assert!(!fx.root().join("notes/todo.md").exists());
    let out = fx.ok("delete", json!({ "path": "notes" })).await;
    assert_eq!(out["kind"], "dir");
    assert!(fx.root().is_dir());
    assert!(!fx.root().join("notes").exists());
}

#[tokio::test]
async fn write_modes() {
    let fx = Fixture::new();
    // create (the default) fails when the file exists.
    fx.ok("write", json!({ "path": "a.txt", "content": "first" }))
        .await;
    let msg = fx
        .fail("write", json!({ "path": "a.txt", "content": "x" }))
        .await;
    assert!(msg.contains("already exists"), "{msg}");
    let msg = fx
        .fail(
            "write",
            json!({ "path": "a.txt", "content": "x", "mode": "create" }),
        )
        .await;
    assert!(msg.contains("already exists"), "{msg}");
    assert_eq!(
        fs::read_to_string(fx.root().join("a.txt")).expect("read"),
        "first"
    );

    // overwrite replaces, and creates when missing.
    let out = fx
        .ok(
            "write",
            json!({ "path": "a.txt", "content": "second", "mode": "overwrite" }),
        )
        .await;
    assert_eq!(out["created"], false);
    assert_eq!(out["bytesWritten"], 6);
    assert_eq!(
        fs::read_to_string(fx.root().join("a.txt")).expect("read"),
        "second"
    );
    let out = fx
        .ok(
            "write",
            json!({ "path": "b.txt", "content": "new", "mode": "overwrite" }),
        )
        .await;
    assert_eq!(out["created"], true);

    // append adds, and creates when missing.
    let out = fx
        .ok(
            "write",
            json!({ "path": "a.txt", "content": "+more", "mode": "append" }),
        )
        .await;
    assert_eq!(out["created"], false);
    assert_eq!(
        fs::read_to_string(fx.root().join("a.txt")).expect("read"),
        "second+more"
    );
    let out = fx
        .ok(
            "write",
            json!({ "path": "c.txt", "content": "c", "mode": "append" }),
        )
        .await;
    assert_eq!(out["created"], true);

    // No temporary files are left behind.
    let listing = fx
        .ok("list", json!({ "include": { "hidden": true } }))
        .await;
    assert_eq!(paths(&listing), ["a.txt", "b.txt", "c.txt"]);

    let msg = fx
        .fail(
            "write",
            json!({ "path": "a.txt", "content": "x", "mode": "truncate" }),
        )
        .await;
    assert!(
        msg.contains("must be one of 'create', 'overwrite', 'append'"),
        "{msg}"
    );
}

#[cfg(unix)]
#[tokio::test]
async fn overwrite_keeps_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let fx = Fixture::new();
    fx.put("run.sh", "#!/bin/sh\n");
    let path = fx.root().join("run.sh");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o750)).expect("chmod");
    fx.ok(
        "write",
        json!({ "path": "run.sh", "content": "#!/bin/sh\necho\n", "mode": "overwrite" }),
    )
    .await;
    let mode = fs::metadata(&path).expect("meta").permissions().mode() & 0o777;
    assert_eq!(mode, 0o750);
}

#[tokio::test]
async fn write_parent_directories() {
    let fx = Fixture::new();
    let msg = fx
        .fail("write", json!({ "path": "x/y/z.txt", "content": "z" }))
        .await;
    assert_eq!(
        msg,
        "directory 'x/y' does not exist: set createDirs to true to create it"
    );
    assert!(!fx.root().join("x").exists());
    fx.ok(
        "write",
        json!({ "path": "x/y/z.txt", "content": "z", "createDirs": true }),
    )
    .await;
    assert_eq!(
        fs::read_to_string(fx.root().join("x/y/z.txt")).expect("read"),
        "z"
    );

    let msg = fx
        .fail(
            "write",
            json!({ "path": "x", "content": "z", "mode": "overwrite" }),
        )
        .await;
    assert!(msg.contains("is a directory"), "{msg}");
    let msg = fx
        .fail(
            "write",
            json!({ "path": "x/y/z.txt/w", "content": "z", "createDirs": true }),
        )
        .await;
    assert!(msg.contains("not a directory"), "{msg}");
}

#[tokio::test]
async fn delete_rules() {
    let fx = Fixture::new();
    fx.put("d/sub/f.txt", "f");
    let msg = fx.fail("delete", json!({ "path": "d" })).await;
    assert_eq!(
        msg,
        "directory 'd' is not empty: set recursive to true to delete it and everything in it"
    );
    let out = fx
        .ok("delete", json!({ "path": "d", "recursive": true }))
        .await;
    assert_eq!(out["kind"], "dir");
    assert!(!fx.root().join("d").exists());

    for root in [".", "./", "./."] {
        let msg = fx
            .fail("delete", json!({ "path": root, "recursive": true }))
            .await;
        assert_eq!(msg, "refusing to delete the workspace root");
    }
    let msg = fx.fail("delete", json!({ "path": "" })).await;
    assert!(msg.contains("path is empty"), "{msg}");
    let msg = fx.fail("delete", json!({ "path": "d" })).await;
    assert_eq!(msg, "'d' does not exist in the workspace");
    assert!(fx.root().is_dir());
}

#[tokio::test]
async fn traversal_is_refused_everywhere() {
    let fx = Fixture::new();
    let outside = fx.outside();
    fx.put("a/f.txt", "f");
    let cases = [
        ("..", "leaves the workspace: '..' is not allowed"),
        (
            "../outside/secret.txt",
            "leaves the workspace: '..' is not allowed",
        ),
        (
            "a/../../outside/secret.txt",
            "leaves the workspace: '..' is not allowed",
        ),
        ("a/../f.txt", "leaves the workspace: '..' is not allowed"),
        ("a\\..\\..\\x", "leaves the workspace: '..' is not allowed"),
        ("/etc/passwd", "is absolute"),
        ("C:\\Windows\\win.ini", "is absolute"),
        ("a/f.txt\0.png", "contains a NUL byte"),
    ];
    for (path, expected) in cases {
        for (method, args) in [
            ("list", json!({ "path": path })),
            ("read", json!({ "path": path })),
            (
                "write",
                json!({ "path": path, "content": "x", "mode": "overwrite", "createDirs": true }),
            ),
            ("delete", json!({ "path": path, "recursive": true })),
        ] {
            let msg = fx.fail(method, args).await;
            assert!(msg.contains(expected), "{method} {path:?}: {msg}");
        }
    }
    let msg = fx.fail("read", json!({ "path": "../x" })).await;
    assert_eq!(msg, "path '../x' leaves the workspace: '..' is not allowed");
    assert_eq!(
        fs::read_to_string(outside.join("secret.txt")).expect("intact"),
        "top secret\n"
    );
    assert!(fx.root().join("a/f.txt").exists());
}

#[cfg(unix)]
#[tokio::test]
async fn symlinks_pointing_outside_are_refused() {
    use std::os::unix::fs::symlink;
    let fx = Fixture::new();
    let outside = fx.outside();
    symlink(outside.join("secret.txt"), fx.root().join("secret.txt")).expect("file link");
    symlink(&outside, fx.root().join("out")).expect("dir link");
    fx.put("src/main.rs", "fn main() {}\n");

    // Read through a file link and through a directory link.
    let msg = fx.fail("read", json!({ "path": "secret.txt" })).await;
    assert_eq!(
        msg,
        "path 'secret.txt' leaves the workspace through a symbolic link"
    );
    let msg = fx.fail("read", json!({ "path": "out/secret.txt" })).await;
    assert!(msg.contains("through a symbolic link"), "{msg}");

    // Write through them, in every mode; nothing outside changes or appears.
    for mode in ["create", "overwrite", "append"] {
        for path in ["secret.txt", "out/secret.txt", "out/new.txt"] {
            let msg = fx
                .fail(
                    "write",
                    json!({ "path": path, "content": "pwned", "mode": mode }),
                )
                .await;
            assert!(
                msg.contains("through a symbolic link"),
                "{mode} {path}: {msg}"
            );
        }
    }
    // A directory that does not exist yet under the outside link.
    let msg = fx
        .fail(
            "write",
            json!({ "path": "out/new/deeper/x.txt", "content": "pwned", "createDirs": true }),
        )
        .await;
    assert!(msg.contains("through a symbolic link"), "{msg}");
    assert!(!outside.join("new").exists());
    assert!(!outside.join("new.txt").exists());
    assert_eq!(
        fs::read_to_string(outside.join("secret.txt")).expect("intact"),
        "top secret\n"
    );

    // List: the link is shown, never entered; listing it directly is refused.
    let listing = fx.ok("list", json!({ "recursive": true })).await;
    assert_eq!(paths(&listing), ["out", "secret.txt", "src", "src/main.rs"]);
    assert_eq!(listing["entries"][0]["kind"], "symlink");
    assert_eq!(listing["entries"][1]["kind"], "symlink");
    let msg = fx.fail("list", json!({ "path": "out" })).await;
    assert!(msg.contains("through a symbolic link"), "{msg}");

    // Deleting a link removes the link, never the target.
    fx.ok("delete", json!({ "path": "out", "recursive": true }))
        .await;
    fx.ok("delete", json!({ "path": "secret.txt" })).await;
    assert!(outside.join("secret.txt").exists());
    let msg = fx.fail("delete", json!({ "path": "out/secret.txt" })).await;
    assert!(msg.contains("does not exist"), "{msg}");
}

#[cfg(unix)]
#[tokio::test]
async fn symlinks_inside_the_root_are_allowed() {
    use std::os::unix::fs::symlink;
    let fx = Fixture::new();
    fx.put("real/data.txt", "data\n");
    symlink(fx.root().join("real"), fx.root().join("alias")).expect("dir link");
    symlink("real/data.txt", fx.root().join("data-link.txt")).expect("file link");

    let out = fx.ok("read", json!({ "path": "alias/data.txt" })).await;
    assert_eq!(out["content"], "data\n");
    assert_eq!(out["path"], "alias/data.txt");
    let out = fx.ok("read", json!({ "path": "data-link.txt" })).await;
    assert_eq!(out["content"], "data\n");

    fx.ok("write", json!({ "path": "alias/new.txt", "content": "n" }))
        .await;
    assert!(fx.root().join("real/new.txt").is_file());
    fx.ok(
        "write",
        json!({ "path": "data-link.txt", "content": "more\n", "mode": "append" }),
    )
    .await;
    fx.ok(
        "write",
        json!({ "path": "data-link.txt", "content": "replaced\n", "mode": "overwrite" }),
    )
    .await;
    assert_eq!(
        fs::read_to_string(fx.root().join("real/data.txt")).expect("read"),
        "replaced\n"
    );
    // The link survives an overwrite through it.
    assert!(fs::symlink_metadata(fx.root().join("data-link.txt"))
        .expect("meta")
        .file_type()
        .is_symlink());

    let listing = fx.ok("list", json!({ "path": "alias" })).await;
    assert_eq!(paths(&listing), ["alias/data.txt", "alias/new.txt"]);
    let listing = fx.ok("list", json!({ "recursive": true })).await;
    assert_eq!(
        paths(&listing),
        [
            "alias",
            "data-link.txt",
            "real",
            "real/data.txt",
            "real/new.txt"
        ]
    );
}

#[tokio::test]
async fn list_options() {
    let fx = Fixture::new();
    fx.put("b.rs", "b");
    fx.put("a.txt", "aa");
    fx.put(".hidden", "h");
    fx.put(".git/config", "c");
    fx.put("dir/x.RS", "x");
    fx.put("dir/y.tar.gz", "y");
    fx.put("dir/sub/z.md", "z");
    fx.put("dir-2/w.rs", "w");

    let listing = fx.ok("list", json!({ "path": "." })).await;
    assert_eq!(paths(&listing), ["a.txt", "b.rs", "dir", "dir-2"]);
    assert_eq!(listing["entries"][0]["size"], 2);

    let listing = fx.ok("list", json!({ "recursive": true })).await;
    assert_eq!(
        paths(&listing),
        [
            "a.txt",
            "b.rs",
            "dir",
            "dir/sub",
            "dir/sub/z.md",
            "dir/x.RS",
            "dir/y.tar.gz",
            "dir-2",
            "dir-2/w.rs"
        ]
    );

    let listing = fx
        .ok(
            "list",
            json!({ "recursive": true, "include": { "hidden": true } }),
        )
        .await;
    assert!(paths(&listing).contains(&".git/config".to_owned()));
    assert!(paths(&listing).contains(&".hidden".to_owned()));

    let listing = fx
        .ok(
            "list",
            json!({ "recursive": true, "include": { "extensions": ["rs", ".tar.gz"] } }),
        )
        .await;
    assert_eq!(
        paths(&listing),
        [
            "b.rs",
            "dir",
            "dir/sub",
            "dir/x.RS",
            "dir/y.tar.gz",
            "dir-2",
            "dir-2/w.rs"
        ]
    );

    let listing = fx
        .ok("list", json!({ "recursive": true, "maxEntries": 3 }))
        .await;
    assert_eq!(paths(&listing), ["a.txt", "b.rs", "dir"]);
    assert_eq!(listing["truncated"], true);
    let listing = fx.ok("list", json!({ "maxEntries": 4 })).await;
    assert_eq!(listing["truncated"], false);

    let msg = fx.fail("list", json!({ "path": "a.txt" })).await;
    assert!(msg.contains("is a file, not a directory"), "{msg}");
    let msg = fx.fail("list", json!({ "path": "nope" })).await;
    assert_eq!(msg, "'nope' does not exist in the workspace");
}

#[tokio::test]
async fn read_range_and_truncation() {
    let fx = Fixture::new();
    fx.put("lines.txt", "l1\nl2\nl3\nl4\nl5");

    let out = fx
        .ok(
            "read",
            json!({ "path": "lines.txt", "range": { "startLine": 2, "endLine": 4 } }),
        )
        .await;
    assert_eq!(out["content"], "l2\nl3\nl4\n");
    assert_eq!(out["lines"], 3);
    assert_eq!(out["truncated"], false);

    let out = fx
        .ok(
            "read",
            json!({ "path": "lines.txt", "range": { "startLine": 4 } }),
        )
        .await;
    assert_eq!(out["content"], "l4\nl5");
    assert_eq!(out["lines"], 2);

    let out = fx
        .ok(
            "read",
            json!({ "path": "lines.txt", "range": { "startLine": 9 } }),
        )
        .await;
    assert_eq!(out["content"], "");
    assert_eq!(out["lines"], 0);

    let out = fx
        .ok("read", json!({ "path": "lines.txt", "maxBytes": 7 }))
        .await;
    assert_eq!(out["content"], "l1\nl2\nl");
    assert_eq!(out["lines"], 3);
    assert_eq!(out["truncated"], true);

    // Exactly at a line end with more to come: truncated; with nothing more: not.
    let out = fx
        .ok("read", json!({ "path": "lines.txt", "maxBytes": 6 }))
        .await;
    assert_eq!(out["content"], "l1\nl2\n");
    assert_eq!(out["truncated"], true);
    let out = fx
        .ok(
            "read",
            json!({ "path": "lines.txt", "maxBytes": 6, "range": { "endLine": 2 } }),
        )
        .await;
    assert_eq!(out["truncated"], false);

    // Truncation never splits a character.
    fx.put("utf8.txt", "héllo wörld");
    let out = fx
        .ok("read", json!({ "path": "utf8.txt", "maxBytes": 2 }))
        .await;
    assert_eq!(out["content"], "h");
    assert_eq!(out["truncated"], true);
    let out = fx
        .ok("read", json!({ "path": "utf8.txt", "maxBytes": 3 }))
        .await;
    assert_eq!(out["content"], "hé");

    let msg = fx
        .fail(
            "read",
            json!({ "path": "lines.txt", "range": { "startLine": 3, "endLine": 2 } }),
        )
        .await;
    assert_eq!(msg, "range.endLine (2) is before range.startLine (3)");
}

#[tokio::test]
async fn read_failures() {
    let fx = Fixture::new();
    fs::write(
        fx.root().join("bin.dat"),
        [b'o', b'k', b'\n', 0xff, 0xfe, b'\n'],
    )
    .expect("write");
    fx.put("dir/x", "x");
    let msg = fx.fail("read", json!({ "path": "bin.dat" })).await;
    assert!(
        msg.contains("file 'bin.dat' is not valid UTF-8 text"),
        "{msg}"
    );
    assert!(msg.contains("line 2"), "{msg}");
    // The valid part can still be read by range.
    let out = fx
        .ok(
            "read",
            json!({ "path": "bin.dat", "range": { "endLine": 1 } }),
        )
        .await;
    assert_eq!(out["content"], "ok\n");

    let msg = fx.fail("read", json!({ "path": "dir" })).await;
    assert_eq!(
        msg,
        "'dir' is a directory, not a file: use list to see what it contains"
    );
    let msg = fx.fail("read", json!({ "path": "." })).await;
    assert!(msg.contains("is a directory"), "{msg}");
    let msg = fx.fail("read", json!({ "path": "missing.txt" })).await;
    assert_eq!(msg, "'missing.txt' does not exist in the workspace");
}

#[tokio::test]
async fn wrong_argument_types_fail_clearly() {
    let fx = Fixture::new();
    fx.put("f.txt", "f");
    let cases = [
        ("read", json!({}), "missing required argument 'path'"),
        (
            "read",
            json!({ "path": 5 }),
            "argument 'path' must be a string, got a number",
        ),
        (
            "read",
            json!({ "path": "f.txt", "maxBytes": "10" }),
            "argument 'maxBytes' must be an integer, got a string",
        ),
        (
            "read",
            json!({ "path": "f.txt", "maxBytes": 0 }),
            "argument 'maxBytes' must be between 1 and",
        ),
        (
            "read",
            json!({ "path": "f.txt", "maxBytes": 1.5 }),
            "argument 'maxBytes' must be an integer, got 1.5",
        ),
        (
            "read",
            json!({ "path": "f.txt", "range": [1, 2] }),
            "argument 'range' must be an object, got an array",
        ),
        (
            "read",
            json!({ "path": "f.txt", "range": { "startLine": 0 } }),
            "argument 'range.startLine' must be between 1",
        ),
        (
            "read",
            json!({ "path": "f.txt", "range": { "startLine": -3 } }),
            "argument 'range.startLine' must be between 1",
        ),
        (
            "list",
            json!({ "recursive": "yes" }),
            "argument 'recursive' must be a boolean, got a string",
        ),
        (
            "list",
            json!({ "maxEntries": 10001 }),
            "argument 'maxEntries' must be between 1 and 10000, got 10001",
        ),
        (
            "list",
            json!({ "include": { "extensions": "rs" } }),
            "argument 'include.extensions' must be an array of strings",
        ),
        (
            "list",
            json!({ "include": { "extensions": [1] } }),
            "argument 'include.extensions' must be an array of strings",
        ),
        (
            "list",
            json!({ "include": { "hidden": 1 } }),
            "argument 'include.hidden' must be a boolean",
        ),
        (
            "write",
            json!({ "path": "g.txt" }),
            "missing required argument 'content'",
        ),
        (
            "write",
            json!({ "path": "g.txt", "content": ["x"] }),
            "argument 'content' must be a string, got an array",
        ),
        (
            "write",
            json!({ "path": "g.txt", "content": "x", "mode": 1 }),
            "argument 'mode' must be a string",
        ),
        (
            "write",
            json!({ "path": "g.txt", "content": "x", "createDirs": "no" }),
            "argument 'createDirs' must be a boolean",
        ),
        (
            "delete",
            json!({ "path": null }),
            "missing required argument 'path'",
        ),
        (
            "delete",
            json!({ "path": "f.txt", "recursive": 0 }),
            "argument 'recursive' must be a boolean",
        ),
    ];
    for (method, args, expected) in cases {
        let msg = fx.fail(method, args.clone()).await;
        assert!(msg.contains(expected), "{method} {args}: {msg}");
    }
    // Integral floats and nulls (= absent, defaults apply) are accepted.
    let out = fx
        .ok(
            "list",
            json!({ "path": null, "maxEntries": 2.0, "include": null }),
        )
        .await;
    assert_eq!(paths(&out), ["f.txt"]);
    assert!(!fx.root().join("g.txt").exists());
}
