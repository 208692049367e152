import { describe, expect, it } from "vitest";

import { callFixture, mockCommand } from "./callExport";
import type { MessageView } from "./sessionModel";

function line(seq: number, msg: MessageView["msg"]): MessageView {
  return { seq, ms: 0, at: "", dir: "server_to_agent", byProxy: false, bytes: 10, msg, text: msg === null ? "not json" : null };
}

const request = line(3, { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "echo", arguments: { message: "it's" } } });
const response = line(4, { jsonrpc: "2.0", id: 4, result: { content: [{ type: "text", text: "Echo: it's" }] } });

describe("a proxied call as a fixture", () => {
  it("keeps the request and the response as they were forwarded", () => {
    const fixture = JSON.parse(callFixture("everything", "echo", request, response) ?? "null") as unknown;
    expect(fixture).toEqual({ server: "everything", tool: "echo", request: request.msg, response: response.msg });
    expect(callFixture("everything", "echo", line(1, null), undefined)).toBeNull();
  });

  it("gives the fault command that answers with the recorded result, quoted for the shell", () => {
    expect(mockCommand("everything", "echo", response)).toBe(
      `toolscope proxy fault --name everything --tool echo --mock '{"content":[{"type":"text","text":"Echo: it'\\''s"}]}'`,
    );
    const failed = line(5, { jsonrpc: "2.0", id: 4, error: { code: -32603, message: "down" } });
    expect(mockCommand("everything", "echo", failed)).toBeNull();
    expect(mockCommand("everything", "echo", undefined)).toBeNull();
  });
});
