//! Exit codes scripts can rely on.

pub const OK: u8 = 0;
/// A tool call ran and ended in an error result.
pub const TOOL_FAILED: u8 = 1;
/// `eval`: the agreement is below `--min`.
pub const BELOW_MINIMUM: u8 = 1;
/// Bad flags, unreadable input, invalid JSON, unknown format or tool config.
pub const USAGE: u8 = 2;
/// The reply had no tool calls to run, or parsing reported errors.
pub const NO_CALLS: u8 = 3;
/// The environment failed: workspace root or history file unusable.
pub const ENVIRONMENT: u8 = 4;
/// `agent`: the conversation hit --max-iterations, --max-tool-calls or --token-budget before a
/// final answer (or a call was refused and the person stopped it).
pub const LIMIT_REACHED: u8 = 1;
/// `agent`, `endpoints test`: the model endpoint refused, failed or could not be reached.
pub const MODEL_FAILED: u8 = 5;
/// Cancelled with Ctrl-C.
pub const INTERRUPTED: u8 = 130;
