/** Folding a session's records: calls matched to their validation, answers, progress and cancellation; batches; pages; the end. */
import { describe, expect, it } from "vitest";

import { endText, foldSession, type CallEntry } from "./sessionModel";
import { calls, end, message, opening, record } from "./testBackend";

function callsOf(records: Parameters<typeof foldSession>[0]): CallEntry[] {
  return foldSession(records).timeline.filter((e): e is CallEntry => e.kind === "call");
}

describe("foldSession", () => {
  it("reads the header, handshake, listings and calls", () => {
    const model = foldSession([...opening(), ...calls(), end(17)]);
    expect(model.header?.argv).toEqual(["npx", "-y", "@modelcontextprotocol/server-everything"]);
    expect(model.handshake).toMatchObject({ client: "claude-desktop 1.2", server: "everything 2.0.0", protocol: "2025-06-18", requestSeq: 1, responseSeq: 2 });
    expect(model.listings).toHaveLength(1);
    expect(model.listings[0]?.change?.removed).toEqual(["add"]);
    const [echo, sum] = callsOf([...opening(), ...calls()]);
    expect(echo).toMatchObject({ tool: "echo", outcome: "result", latencyMs: 3.25, responseSeq: 11, invalid: null });
    expect(echo?.progress.map((p) => `${p.progress}/${String(p.total)}`)).toEqual(["1/2"]);
    expect(sum).toMatchObject({ tool: "get-sum", outcome: "tool_error", args: { a: "one", b: 2 } });
    expect(sum?.invalid?.issues).toEqual([{ path: "/a", message: '"one" is not of type "number"' }]);
    expect(model.calls).toBe(2);
    expect(model.timeline.at(-1)?.kind).toBe("end");
    expect(model.messages.get(13)?.dir).toBe("agent_to_server");
  });

  it("keeps a call pending until answered, and marks a refusal and a cancellation", () => {
    const refused = [
      ...opening(),
      message(8, "agent_to_server", { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "get-sum", arguments: {} } }),
      record(9, { type: "invalid_call", call_seq: 8, id: 5, tool: "get-sum", unknown_tool: false, issues: [{ path: "", message: '"a" is a required property' }], message: "m", enforced: true }),
      message(10, "server_to_agent", { jsonrpc: "2.0", id: 5, error: { code: -32602, message: "Invalid params" } }, "proxy"),
      record(11, { type: "call", request_seq: 8, response_seq: 10, id: 5, tool: "get-sum", latency_ms: 0.1, outcome: "error", error: { code: -32602, message: "Invalid params" } }),
      message(12, "agent_to_server", { jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: "echo", arguments: { message: "slow" } } }),
      message(13, "agent_to_server", { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 6, reason: "too slow" } }),
      record(14, { type: "cancelled", message_seq: 13, dir: "agent_to_server", request_id: 6, reason: "too slow", request_seq: 12 }),
    ];
    const [first, second] = callsOf(refused);
    expect(first).toMatchObject({ outcome: "error", error: "Invalid params (-32602)", invalid: { enforced: true } });
    expect(foldSession(refused).messages.get(10)?.byProxy).toBe(true);
    expect(second).toMatchObject({ outcome: "pending", cancelled: { reason: "too slow", requestId: "6" } });
  });

  it("reads the calls of a batch, joins listing pages, and keeps unknown records", () => {
    const records = [
      record(0, { type: "tools", request_seq: 0, response_seq: 1, page: false, names: ["a"] }),
      record(1, { type: "tools", request_seq: 2, response_seq: 3, page: true, names: ["b"] }),
      message(2, "agent_to_server", [
        { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "a" } },
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "b" } },
      ]),
      record(3, { type: "call", request_seq: 2, response_seq: 9, id: 2, tool: "b", latency_ms: 1, outcome: "result", error: null }),
      record(4, { type: "unknown", kind: "fault_injected" }),
    ];
    const model = foldSession(records);
    expect(model.listings.map((l) => [l.names, l.pages])).toEqual([[["a", "b"], 2]]);
    expect(callsOf(records).map((c) => [c.tool, c.outcome])).toEqual([
      ["a", "pending"],
      ["b", "result"],
    ]);
    expect(model.timeline.at(-1)).toMatchObject({ kind: "unknown", type: "fault_injected" });
  });

  it("says how a session ended", () => {
    expect(endText({ reason: "server_exited", signal: null, server_status: { code: 3, signal: null }, pending_answered: 1, messages: 4 })).toBe(
      "The server exited while the agent was connected (server exit status 3).",
    );
    expect(endText({ reason: "signal", signal: "SIGTERM", server_status: { code: null, signal: 9 }, pending_answered: 0, messages: 4 })).toBe(
      "The proxy was stopped by SIGTERM (server killed by signal 9).",
    );
  });
});
