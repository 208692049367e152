//! Routing names for MCP tools.
//!
//! A routing name is `{toolId}_{methodName}`, split at the last `_`, so a method name may not
//! contain `_`; MCP tool names often do (`get_weather`), and may also hold `.` or `/`. Each MCP
//! server becomes one tool whose id is the server's name, and each of its MCP tools one method
//! whose name is the MCP name with every character outside `[A-Za-z0-9-]` replaced by `-`
//! (`get_weather` → `get-weather`, routing name `weather_get-weather`). That keeps routing names
//! inside what every API format accepts for a function name (`[A-Za-z0-9_-]`). Two MCP names
//! that map to the same method name (`get_x` and `get-x`) are told apart by a numeric suffix in
//! the server's listing order (`get-x`, `get-x-2`). The mapping is kept per server, so a call
//! always reaches the MCP tool it was listed for, whatever its original spelling.

use std::collections::{BTreeMap, HashSet};

/// The longest method name we produce; MCP allows 128-character tool names, and some model
/// APIs cap the whole function name at 64 characters, so long names are cut, not refused.
const MAX_METHOD_NAME: usize = 64;

/// A server name as a tool id: letters, digits, `-`, `_` and `.` kept, anything else `-`.
pub fn tool_id_for_server(server_name: &str) -> String {
    let id: String = server_name
        .trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '-'
            }
        })
        .collect();
    if id.is_empty() {
        "mcp".to_owned()
    } else {
        id
    }
}

/// The method name an MCP tool name maps to before collisions are resolved.
pub fn method_name_for(mcp_name: &str) -> String {
    let mut name: String = mcp_name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '-'
            }
        })
        .take(MAX_METHOD_NAME)
        .collect();
    if name.is_empty() {
        name.push_str("tool");
    }
    name
}

/// Both directions of one server's name mapping.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MethodNames {
    to_mcp: BTreeMap<String, String>,
    to_method: BTreeMap<String, String>,
}

impl MethodNames {
    /// Maps `mcp_names` in listing order; later duplicates get `-2`, `-3`, ...
    pub fn assign<'a>(mcp_names: impl IntoIterator<Item = &'a str>) -> Self {
        let mut names = Self::default();
        let mut taken: HashSet<String> = HashSet::new();
        for mcp_name in mcp_names {
            if names.to_method.contains_key(mcp_name) {
                continue;
            }
            let base = method_name_for(mcp_name);
            let mut candidate = base.clone();
            let mut n = 2;
            while taken.contains(&candidate) {
                candidate = format!("{base}-{n}");
                n += 1;
            }
            taken.insert(candidate.clone());
            names.to_mcp.insert(candidate.clone(), mcp_name.to_owned());
            names.to_method.insert(mcp_name.to_owned(), candidate);
        }
        names
    }

    /// The MCP tool a method name stands for.
    pub fn mcp_name(&self, method: &str) -> Option<&str> {
        self.to_mcp.get(method).map(String::as_str)
    }

    /// The method name an MCP tool was given.
    pub fn method_name(&self, mcp_name: &str) -> Option<&str> {
        self.to_method.get(mcp_name).map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn underscores_and_other_characters_become_dashes() {
        assert_eq!(method_name_for("get_weather"), "get-weather");
        assert_eq!(method_name_for("files/read.v2"), "files-read-v2");
        assert_eq!(method_name_for("get-tiny-image"), "get-tiny-image");
        assert_eq!(method_name_for(""), "tool");
        assert_eq!(method_name_for(&"x".repeat(128)).len(), MAX_METHOD_NAME);
    }

    #[test]
    fn colliding_names_get_suffixes_in_listing_order_and_map_back() {
        let names = MethodNames::assign(["get_x", "get-x", "get.x", "other"]);
        assert_eq!(names.method_name("get_x"), Some("get-x"));
        assert_eq!(names.method_name("get-x"), Some("get-x-2"));
        assert_eq!(names.method_name("get.x"), Some("get-x-3"));
        assert_eq!(names.mcp_name("get-x-2"), Some("get-x"));
        assert_eq!(names.mcp_name("other"), Some("other"));
        assert_eq!(names.mcp_name("missing"), None);
    }

    #[test]
    fn a_suffix_never_takes_a_name_listed_later() {
        // `a-2` is a real tool listed after `a_`: the suffix search must skip taken names only,
        // so the later real name still gets a unique (suffixed) method name.
        let names = MethodNames::assign(["a", "a_", "a-2"]);
        let methods: HashSet<&str> = ["a", "a_", "a-2"]
            .iter()
            .filter_map(|n| names.method_name(n))
            .collect();
        assert_eq!(methods.len(), 3);
    }

    #[test]
    fn server_names_become_tool_ids() {
        assert_eq!(tool_id_for_server("my server"), "my-server");
        assert_eq!(tool_id_for_server("github_mcp"), "github_mcp");
        assert_eq!(tool_id_for_server("  "), "mcp");
    }
}
