//! `ToolCallConfig` (seed 000 §2.4 plus the limits of seed 002): how an agent uses tools.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Whether the host runs requests as soon as they are parsed or waits for the user.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum CallMode {
    #[default]
    Auto,
    Manual,
}

/// How a batch of requests from one reply is scheduled.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum ParallelExecution {
    /// One after another, in reply order.
    Serial,
    /// All at once.
    Parallel,
    /// Runs of consecutive read-only methods at once; anything else alone, in order.
    #[default]
    Smart,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default)]
pub struct ToolCallConfig {
    pub enabled: bool,
    pub mode: CallMode,
    /// Per tool id; wins over `default_tool_enabled`. A BTreeMap so the config hashes stably.
    pub tool_toggles: BTreeMap<String, bool>,
    pub default_tool_enabled: bool,
    pub max_iterations: u32,
    pub timeout_ms: u64,
    pub require_confirmation: bool,
    pub parallel_execution: ParallelExecution,
    pub protocol: String,
    pub max_total_tool_calls: u32,
    pub max_tool_output_bytes: u64,
    /// When true an unknown tool name is a parse-time error instead of a failed run.
    pub strict_unknown_tool: bool,
}

impl Default for ToolCallConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            mode: CallMode::Auto,
            tool_toggles: BTreeMap::new(),
            default_tool_enabled: true,
            max_iterations: 10,
            timeout_ms: 30_000,
            require_confirmation: false,
            parallel_execution: ParallelExecution::Smart,
            protocol: "vcp".to_owned(),
            max_total_tool_calls: 32,
            max_tool_output_bytes: 64 * 1024,
            strict_unknown_tool: false,
        }
    }
}

impl ToolCallConfig {
    /// `tool_toggles` > `default_tool_enabled` (seed 000 §4.3).
    pub fn is_tool_enabled(&self, tool_id: &str) -> bool {
        self.tool_toggles
            .get(tool_id)
            .copied()
            .unwrap_or(self.default_tool_enabled)
    }

    /// A hash of the whole config that is identical across processes and runs (FNV-1a over
    /// its canonical JSON: struct fields in declaration order, toggles sorted).
    pub fn stable_hash(&self) -> u64 {
        let canonical = serde_json::to_vec(self).unwrap_or_default();
        fnv1a(&canonical)
    }
}

pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in bytes {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toggles_win_over_default() {
        let mut config = ToolCallConfig {
            default_tool_enabled: false,
            ..Default::default()
        };
        assert!(!config.is_tool_enabled("echo"));
        config.tool_toggles.insert("echo".into(), true);
        assert!(config.is_tool_enabled("echo"));
        config.default_tool_enabled = true;
        config.tool_toggles.insert("calculator".into(), false);
        assert!(!config.is_tool_enabled("calculator"));
        assert!(config.is_tool_enabled("time"));
    }

    #[test]
    fn stable_hash_ignores_toggle_insertion_order_and_tracks_changes() {
        let mut a = ToolCallConfig::default();
        a.tool_toggles.insert("x".into(), true);
        a.tool_toggles.insert("y".into(), false);
        let mut b = ToolCallConfig::default();
        b.tool_toggles.insert("y".into(), false);
        b.tool_toggles.insert("x".into(), true);
        assert_eq!(a.stable_hash(), b.stable_hash());
        b.timeout_ms = 1;
        assert_ne!(a.stable_hash(), b.stable_hash());
    }

    #[test]
    fn partial_json_fills_defaults() {
        let config: ToolCallConfig =
            serde_json::from_str(r#"{"timeout_ms": 500, "tool_toggles": {"echo": false}}"#)
                .expect("valid config");
        assert_eq!(config.timeout_ms, 500);
        assert_eq!(config.max_tool_output_bytes, 65_536);
        assert!(!config.is_tool_enabled("echo"));
    }
}
