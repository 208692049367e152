//! The tag names each agent's parser knows. Only these are tags: any other `<word>` is text,
//! which is what keeps HTML, generics and `<path>` in prose out of the calls.
//!
//! The lists are the union of the releases that shipped the XML protocol, so a reply written
//! for an older or newer prompt of the same agent still parses.

/// Defines a tool list and, from the same names, its opening tags (`<read_file>`) as
/// auto-detect markers: built at compile time so they are `'static` like every other
/// signature's markers, and one list so the two cannot drift apart.
macro_rules! tools_and_tags {
    ($(#[$doc:meta])* $tools:ident, $tags:ident = [$($name:literal),* $(,)?]) => {
        $(#[$doc])*
        pub const $tools: &[&str] = &[$($name),*];
        /// The opening tags of the tools above, in the same order.
        pub const $tags: &[&str] = &[$(concat!("<", $name, ">")),*];
    };
}

tools_and_tags! {
    /// Cline's tools: `ClineDefaultTool` in `src/shared/tools.ts` (2026) and the older
    /// `toolUseNames` in `src/core/assistant-message/index.ts`.
    CLINE_TOOLS, CLINE_TOOL_TAGS = [
        "execute_command",
        "read_file",
        "write_to_file",
        "replace_in_file",
        "search_files",
        "list_files",
        "list_code_definition_names",
        "browser_action",
        "use_mcp_tool",
        "access_mcp_resource",
        "load_mcp_documentation",
        "ask_followup_question",
        "plan_mode_respond",
        "act_mode_respond",
        "attempt_completion",
        "new_task",
        "focus_chain",
        "web_fetch",
        "web_search",
        "condense",
        "summarize_task",
        "report_bug",
        "new_rule",
        "apply_patch",
        "generate_explanation",
        "use_skill",
        "use_subagents",
    ]
}

/// Cline's parameter tags: `toolParamNames` in `src/core/assistant-message/index.ts`. Any of
/// them opens a parameter inside any tool (the parser does not check which tool takes which).
pub const CLINE_PARAMS: &[&str] = &[
    "command",
    "requires_approval",
    "path",
    "absolutePath",
    "content",
    "diff",
    "regex",
    "file_pattern",
    "recursive",
    "action",
    "url",
    "coordinate",
    "text",
    "query",
    "allowed_domains",
    "blocked_domains",
    "prompt",
    "server_name",
    "tool_name",
    "arguments",
    "uri",
    "question",
    "options",
    "response",
    "result",
    "context",
    "title",
    "what_happened",
    "steps_to_reproduce",
    "api_request_output",
    "additional_context",
    "needs_more_exploration",
    "task_progress",
    "timeout",
    "input",
    "from_ref",
    "to_ref",
    "skill_name",
    "prompt_1",
    "prompt_2",
    "prompt_3",
    "prompt_4",
    "prompt_5",
    "start_line",
    "end_line",
];

tools_and_tags! {
    /// Roo Code's tools: `toolNames` in `packages/types/src/tool.ts`, from the mid-2025 list
    /// (`insert_content`, `list_code_definition_names`) to the last one before XML tool calls were
    /// removed in January 2026.
    ROO_TOOLS, ROO_TOOL_TAGS = [
        "execute_command",
        "read_file",
        "write_to_file",
        "apply_diff",
        "insert_content",
        "search_and_replace",
        "search_replace",
        "edit_file",
        "apply_patch",
        "search_files",
        "list_files",
        "list_code_definition_names",
        "browser_action",
        "use_mcp_tool",
        "access_mcp_resource",
        "ask_followup_question",
        "attempt_completion",
        "switch_mode",
        "new_task",
        "fetch_instructions",
        "codebase_search",
        "update_todo_list",
        "run_slash_command",
        "generate_image",
        "custom_tool",
    ]
}

/// Roo Code's parameter tags: `toolParamNames` in `src/shared/tools.ts`, the same releases.
pub const ROO_PARAMS: &[&str] = &[
    "command",
    "path",
    "content",
    "line_count",
    "regex",
    "file_pattern",
    "recursive",
    "action",
    "url",
    "coordinate",
    "text",
    "server_name",
    "tool_name",
    "arguments",
    "uri",
    "question",
    "result",
    "diff",
    "mode_slug",
    "reason",
    "line",
    "mode",
    "message",
    "cwd",
    "follow_up",
    "task",
    "size",
    "search",
    "replace",
    "use_regex",
    "ignore_case",
    "query",
    "args",
    "start_line",
    "end_line",
    "todos",
    "prompt",
    "image",
    "files",
    "operations",
    "patch",
    "file_path",
    "old_string",
    "new_string",
    "expected_replacements",
];
