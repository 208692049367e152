//! What changed in a server's tools: each complete `tools/list` listing the agent receives is
//! compared with the one before it (in this session, or at the start with the last listing of
//! the previous session of the same server name), so a renamed tool or a schema that changed
//! under the agent shows up in the record without diffing files by hand.
//!
//! A tool counts as changed when anything in its definition differs (description, schemas,
//! annotations), compared as JSON values, so key order and spacing do not count.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;
use toolscope_engine::jsonl::read_lines;

/// Tool definitions by name.
pub type Listing = BTreeMap<String, Value>;

/// The listing a comparison starts from.
#[derive(Debug, Clone)]
pub struct Baseline {
    /// The session it comes from; `None` for an earlier listing of this session.
    pub session: Option<String>,
    pub tools: Listing,
}

/// The difference between two listings.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ToolsDiff {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub changed: Vec<String>,
}

impl ToolsDiff {
    pub fn between(before: &Listing, after: &Listing) -> Self {
        let mut diff = Self::default();
        for (name, definition) in after {
            match before.get(name) {
                None => diff.added.push(name.clone()),
                Some(previous) if previous != definition => diff.changed.push(name.clone()),
                Some(_) => {}
            }
        }
        diff.removed = before
            .keys()
            .filter(|name| !after.contains_key(*name))
            .cloned()
            .collect();
        diff
    }

    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }
}

/// The tools of a `tools/list` result, and whether more pages follow.
pub fn listed(result: &Value) -> (Listing, bool) {
    let tools = result["tools"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(|tool| Some((tool["name"].as_str()?.to_owned(), tool.clone())))
        .collect();
    (tools, result["nextCursor"].is_string())
}

/// The last complete listing recorded in the session before `current` in `dir` (session files
/// sort by start time), or `None` when there is no earlier session or it listed no tools.
pub fn previous_session(dir: &Path, current: &str) -> Option<Baseline> {
    let mut earlier: Vec<String> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter_map(|entry| {
            let name = entry
                .file_name()
                .to_str()?
                .strip_suffix(".jsonl")?
                .to_owned();
            (name.as_str() < current).then_some(name)
        })
        .collect();
    earlier.sort();
    earlier.iter().rev().find_map(|session| {
        last_listing(&dir.join(format!("{session}.jsonl"))).map(|tools| Baseline {
            session: Some(session.clone()),
            tools,
        })
    })
}

/// The tools of the last `tools/list` answer a session file holds, its pages joined.
fn last_listing(path: &Path) -> Option<Listing> {
    let loaded = read_lines("proxy session", path, |line| {
        serde_json::from_slice::<Value>(line).map_err(|e| e.to_string())
    })
    .ok()?;
    let records = loaded.records;
    let answer = |seq: &Value| {
        records
            .iter()
            .find(|r| r["seq"] == *seq && r["type"] == "message")
            .map(|r| &r["msg"]["result"])
    };
    let start = records
        .iter()
        .rposition(|r| r["type"] == "tools" && r["page"] == false)?;
    let mut tools = Listing::new();
    for record in records[start..].iter().filter(|r| r["type"] == "tools") {
        if let Some(result) = answer(&record["response_seq"]) {
            tools.extend(listed(result).0);
        }
    }
    Some(tools)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn added_removed_and_changed_tools_are_told_apart() {
        let before = listed(&json!({"tools": [
            {"name": "echo", "inputSchema": {"type": "object", "properties": {"m": {"type": "string"}}}},
            {"name": "sum", "inputSchema": {"type": "object"}},
            {"name": "old", "inputSchema": {"type": "object"}}]}))
        .0;
        let (after, more) = listed(&json!({"tools": [
            {"inputSchema": {"properties": {"m": {"type": "string"}}, "type": "object"}, "name": "echo"},
            {"name": "sum", "inputSchema": {"type": "object", "required": ["a"]}},
            {"name": "new", "inputSchema": {"type": "object"}}], "nextCursor": "2"}));
        assert!(more);
        let diff = ToolsDiff::between(&before, &after);
        assert_eq!(diff.added, ["new"]);
        assert_eq!(diff.removed, ["old"]);
        assert_eq!(diff.changed, ["sum"], "key order does not count");
        assert!(ToolsDiff::between(&after, &after).is_empty());
    }

    /// Two sessions of one server through the tap: the second's first listing is compared with
    /// the first's last, and a listing changed mid-session with the one before it.
    #[test]
    fn a_session_records_what_changed_since_the_previous_one() {
        use crate::recorder::{Recorder, SessionInfo};
        use crate::tap::Tap;

        let root = tempfile::tempdir().expect("tempdir");
        let info = SessionInfo {
            name: "files".to_owned(),
            argv: vec!["server".to_owned()],
            enforce: false,
        };
        let session = |id: &str, listings: &[Value]| {
            let recorder = Recorder::create(root.path(), "files", id).expect("recorder");
            let tap = Tap::start(recorder, id, &info).expect("tap");
            for (n, tools) in listings.iter().enumerate() {
                let request = json!({"jsonrpc": "2.0", "id": n, "method": "tools/list"});
                tap.agent_message(format!("{request}\n").as_bytes());
                let answer = json!({"jsonrpc": "2.0", "id": n, "result": {"tools": tools}});
                tap.server_message(format!("{answer}\n").as_bytes());
            }
            let text = std::fs::read_to_string(root.path().join(format!("files/{id}.jsonl")))
                .expect("record");
            text.lines()
                .map(|l| serde_json::from_str::<Value>(l).expect("json"))
                .filter(|r| r["type"] == "tools_changed")
                .collect::<Vec<_>>()
        };
        let read = json!({"name": "read", "inputSchema": {"type": "object"}});
        let write = json!({"name": "write", "inputSchema": {"type": "object"}});
        let read_v2 =
            json!({"name": "read", "inputSchema": {"type": "object", "required": ["path"]}});
        assert!(
            session("20260101T000000.000Z-a", &[json!([read, write])]).is_empty(),
            "nothing before"
        );
        let changes = session(
            "20260102T000000.000Z-b",
            &[json!([read_v2]), json!([read_v2]), json!([read_v2, write])],
        );
        assert_eq!(changes.len(), 2, "{changes:#?}");
        assert_eq!(changes[0]["since_session"], "20260101T000000.000Z-a");
        assert_eq!(changes[0]["changed"], json!(["read"]));
        assert_eq!(changes[0]["removed"], json!(["write"]));
        assert!(
            changes[1].get("since_session").is_none(),
            "within the session"
        );
        assert_eq!(changes[1]["added"], json!(["write"]));
    }
}
