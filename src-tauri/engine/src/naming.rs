//! Routing names for tools whose own names come from elsewhere: MCP servers' tools and imported
//! tool definitions.
//!
//! A routing name is `{toolId}_{methodName}`, split at the last `_`, so a method name may not
//! contain `_`; foreign tool names often do (`get_weather`), and may also hold `.` or `/`
//! (`math.factorial`). Each server or imported set becomes one tool whose id is its name, and
//! each of its tools one method whose name is the original name with every character outside
//! `[A-Za-z0-9-]` replaced by `-` (`get_weather` → `get-weather`, routing name
//! `weather_get-weather`). That keeps routing names inside what every API format accepts for a
//! function name (`[A-Za-z0-9_-]`). Two original names that map to the same method name
//! (`get_x` and `get-x`) are told apart by a numeric suffix in listing order (`get-x`,
//! `get-x-2`). The mapping is kept per tool, so a call always reaches the original it was listed
//! for, whatever its spelling.

use std::collections::{BTreeMap, HashSet};

/// The longest method name we produce; MCP allows 128-character tool names, and some model
/// APIs cap the whole function name at 64 characters, so long names are cut, not refused.
const MAX_METHOD_NAME: usize = 64;

/// A display name (an MCP server's, an imported set's) as a tool id: letters, digits, `-`, `_`
/// and `.` kept, anything else `-`; `fallback` when nothing is left.
pub fn tool_id_for(display_name: &str, fallback: &str) -> String {
    let id: String = display_name
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
        fallback.to_owned()
    } else {
        id
    }
}

/// The method name an original tool name maps to before collisions are resolved.
pub fn method_name_for(original: &str) -> String {
    let mut name: String = original
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

/// Both directions of one tool's name mapping.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MethodNames {
    to_original: BTreeMap<String, String>,
    to_method: BTreeMap<String, String>,
}

impl MethodNames {
    /// Maps `originals` in listing order; later duplicates get `-2`, `-3`, ...
    pub fn assign<'a>(originals: impl IntoIterator<Item = &'a str>) -> Self {
        let mut names = Self::default();
        let mut taken: HashSet<String> = HashSet::new();
        for original in originals {
            if names.to_method.contains_key(original) {
                continue;
            }
            let base = method_name_for(original);
            let mut candidate = base.clone();
            let mut n = 2;
            while taken.contains(&candidate) {
                candidate = format!("{base}-{n}");
                n += 1;
            }
            taken.insert(candidate.clone());
            names
                .to_original
                .insert(candidate.clone(), original.to_owned());
            names.to_method.insert(original.to_owned(), candidate);
        }
        names
    }

    /// The original name a method name stands for.
    pub fn original(&self, method: &str) -> Option<&str> {
        self.to_original.get(method).map(String::as_str)
    }

    /// The method name an original name was given.
    pub fn method_name(&self, original: &str) -> Option<&str> {
        self.to_method.get(original).map(String::as_str)
    }
}

/// The longest name [`closest_names`] looks for near names of.
const MAX_SUGGESTED_NAME: usize = 128;

/// Up to `most` of `candidates` nearest to `name` by edit distance (case-insensitive), nearest
/// first; only names within about a third of the longer name's length count as near, so a
/// suggestion is a likely typo, not any name at all.
pub fn closest_names<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    most: usize,
) -> Vec<&'a str> {
    let wanted: Vec<char> = name.to_lowercase().chars().collect();
    // A name a model made up can be long; suggestions are for typos of real names, which are
    // short, and the distance costs the product of the two lengths.
    if wanted.len() > MAX_SUGGESTED_NAME {
        return Vec::new();
    }
    let mut near: Vec<(usize, &'a str)> = candidates
        .into_iter()
        .filter_map(|candidate| {
            let other: Vec<char> = candidate.to_lowercase().chars().collect();
            let limit = wanted.len().max(other.len()).div_ceil(3).max(1);
            // The lengths alone already tell most candidates apart.
            if wanted.len().abs_diff(other.len()) > limit || other.len() > MAX_SUGGESTED_NAME {
                return None;
            }
            let distance = edit_distance(&wanted, &other);
            (distance <= limit).then_some((distance, candidate))
        })
        .collect();
    near.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)));
    near.into_iter().take(most).map(|(_, name)| name).collect()
}

/// Levenshtein distance over characters, in one row of memory.
fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != cb));
            diagonal = above;
        }
    }
    row[b.len()]
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
        assert_eq!(names.original("get-x-2"), Some("get-x"));
        assert_eq!(names.original("other"), Some("other"));
        assert_eq!(names.original("missing"), None);
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
    fn closest_names_are_near_typos_nearest_first() {
        let names = ["get_weather", "get_forecast", "set_weather", "delete_all"];
        assert_eq!(
            closest_names("get_wether", names, 3),
            vec!["get_weather", "set_weather"]
        );
        assert_eq!(closest_names("GET_WEATHER", names, 1), vec!["get_weather"]);
        assert!(closest_names("translate", names, 3).is_empty());
        assert!(closest_names(&"get_weather".repeat(20), names, 3).is_empty());
        assert_eq!(edit_distance(&[], &['a', 'b']), 2);
    }

    #[test]
    fn display_names_become_tool_ids() {
        assert_eq!(tool_id_for("my server", "mcp"), "my-server");
        assert_eq!(tool_id_for("github_mcp", "mcp"), "github_mcp");
        assert_eq!(tool_id_for("  ", "mcp"), "mcp");
    }
}
