import { describe, expect, it } from "vitest";

import type { AgentEvent, ParsedToolRequest, TimedRecord } from "../../lib/ipc";
import { result } from "../executor/testBackend";
import { applyAgentEvent, EMPTY_CONVERSATION, type Conversation } from "./conversationModel";
import { fromRecords } from "./records";
import { retryText, stopReasonText } from "./describe";
import { markedSpans } from "./ReplyText";
import { buildSettings, INITIAL_DRAFT, toolSubset } from "./settingsModel";
import { buildTimeline } from "./timelineModel";

const request = (name: string, start: number, end: number): ParsedToolRequest => ({
  request_id: "r1",
  tool_name: name,
  args: { expression: "1+1" },
  raw_block: "",
  span: { start, end },
  format: "hermes",
});

function play(events: AgentEvent[]): Conversation {
  return events.reduce(applyAgentEvent, EMPTY_CONVERSATION);
}

describe("live events", () => {
  it("grow the text, assemble native calls and keep retries, results and the end", () => {
    const state = play([
      { type: "turn_started", turn: 1 },
      { type: "retry", turn: 1, attempt: 1, of: 2, wait_ms: 1000, reason: "rate limited" },
      { type: "reply", turn: 1, event: { type: "text", text: "Work" } },
      { type: "reply", turn: 1, event: { type: "text", text: "ing" } },
      { type: "reply", turn: 1, event: { type: "reasoning", text: "hmm" } },
      { type: "reply", turn: 1, event: { type: "call_started", index: 0, id: "c1", name: "calculator_evaluate" } },
      { type: "reply", turn: 1, event: { type: "call_arguments", index: 0, fragment: '{"expression":' } },
      { type: "reply", turn: 1, event: { type: "call_arguments", index: 0, fragment: '"1+1"}' } },
      { type: "call_finished", turn: 1, result: result(), suggestion: null },
      { type: "stopped", reason: { reason: "final" }, turns: 1, tool_calls: 1, usage: { input_tokens: 3, output_tokens: 4 } },
    ]);
    const turn = state.turns[0];
    expect(turn?.text).toBe("Working");
    expect(turn?.reasoning).toBe("hmm");
    expect(turn?.nativeCalls).toEqual([{ index: 0, id: "c1", name: "calculator_evaluate", arguments: '{"expression":"1+1"}' }]);
    expect(turn?.retries.map(retryText)).toEqual(["rate limited, retry 1 of 2 in 1.0 s"]);
    expect(turn?.results).toHaveLength(1);
    expect(state.ended?.toolCalls).toBe(1);
  });

  it("mark open blocks, complete calls and diagnostics while a prompted reply streams", () => {
    const state = play([
      { type: "reply", turn: 1, event: { type: "text", text: "x <call>..." } },
      { type: "parse", turn: 1, event: { type: "call_started", block: 0, start: 2 } },
      { type: "parse", turn: 1, event: { type: "arguments_delta", block: 0, span: { start: 8, end: 11 } } },
    ]);
    expect(markedSpans(state.turns[0] ?? fail())).toEqual([{ kind: "request", span: { start: 2, end: 11 }, label: "Call block (arriving)" }]);
    const done = [
      { type: "parse", turn: 1, event: { type: "call", block: 0, request: request("calculator_evaluate", 2, 14) } },
      {
        type: "parse",
        turn: 1,
        event: { type: "diagnostic", diagnostic: { severity: "warning", code: "stray_text", message: "stray", span: { start: 0, end: 1 } } },
      },
    ] satisfies AgentEvent[];
    const after = done.reduce(applyAgentEvent, state);
    expect(markedSpans(after.turns[0] ?? fail()).map((m) => [m.kind, m.span.end])).toEqual([
      ["request", 14],
      ["warning", 1],
    ]);
  });
});

function fail(): never {
  throw new Error("missing");
}

describe("records", () => {
  it("rebuild turns, decisions, timing and the timeline", () => {
    const records: TimedRecord[] = [
      {
        t_ms: 0,
        type: "started",
        id: "c",
        started_at_ms: 1,
        task: "t",
        model: { wire: "openai_chat", base_url: "u", model: "m", native_protocol: "openai_chat" },
        settings: {},
        tools: [],
      },
      { t_ms: 1, type: "request", turn: 1, body: {} },
      { t_ms: 2, type: "chunk", turn: 1, data: "{}" },
      {
        t_ms: 101,
        type: "reply",
        turn: 1,
        reply: { text: "hi", reasoning: "", calls: [], finish_reason: "stop", usage: null },
        timing: { first_token_ms: 40, first_call_ms: null, total_ms: 100 },
      },
      { t_ms: 102, type: "decided", turn: 1, request_id: "r1", tool_name: "x_y", decision: { decision: "deny", reason: "no" } },
      { t_ms: 150, type: "result", turn: 1, result: result({ duration_ms: 30 }), suggestion: "try again" },
    ];
    const conversation = fromRecords(records);
    expect(conversation.turns[0]?.decisions[0]?.decision).toEqual({ decision: "deny", reason: "no" });
    expect(conversation.turns[0]?.results[0]?.suggestion).toBe("try again");
    const timeline = buildTimeline(conversation);
    expect(timeline.end).toBe(150);
    expect(timeline.rows[0]?.bars.map((b) => [b.kind, b.from, b.to])).toEqual([
      ["wait", 1, 41],
      ["stream", 41, 101],
      ["call", 120, 150],
    ]);
  });
});

describe("settings", () => {
  it("are built from the form, with limits checked", () => {
    const built = buildSettings({ ...INITIAL_DRAFT, toolMode: "prompted", format: "hermes", tokenBudget: "5000", toolChoice: "named", toolChoiceName: "x" });
    expect(built).toEqual({
      ok: true,
      settings: {
        tools: { kind: "prompted", format: "hermes" },
        max_iterations: 8,
        max_total_tool_calls: 32,
        token_budget: 5000,
        mode: "auto",
        system_prompt: null,
        request: { tool_choice: { type: "named", name: "x" }, parallel_tool_calls: null, temperature: null, max_tokens: null },
      },
    });
    expect(buildSettings({ ...INITIAL_DRAFT, maxIterations: "0" })).toEqual({ ok: false, problem: "Max iterations must be a whole number of at least 1." });
    expect(toolSubset(["a", "b"], [])).toBeNull();
    expect(toolSubset(["a", "b"], ["a"])).toEqual(["b"]);
    expect(stopReasonText({ reason: "token_budget", limit: 100, used: 120 })).toBe("Stopped: 120 tokens used of a budget of 100.");
  });
});
