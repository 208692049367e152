// Every app command by name. Included by build.rs (app manifest → capabilities) and by
// commands/mod.rs (bindings test), so the two can never disagree.
pub const COMMAND_NAMES: &[&str] = &[
    "list_tools",
    "list_protocols",
    "tool_prompt",
    "parse_reply",
    "replay_stream",
    "execute_call",
    "run_reply",
    "cancel_run",
    "answer_confirmation",
    "history_list",
    "history_export",
    "get_settings",
    "save_settings",
    "startup_notices",
];
