import { describe, expect, it } from "vitest";

import { changeOf, describeFault, EMPTY_FIELDS } from "./faultModel";

describe("the fault form's fields", () => {
  it("become the change they ask for, or say what is wrong", () => {
    expect(changeOf({ ...EMPTY_FIELDS, kind: "delay", delayMs: "250" })).toEqual({ change: { kind: "set", fault: { delay_ms: 250 } } });
    expect(changeOf({ ...EMPTY_FIELDS, kind: "delay", delayMs: "-1" })).toHaveProperty("problem");
    expect(changeOf({ ...EMPTY_FIELDS, kind: "error", errorKind: "tool_error", message: "  " })).toEqual({
      change: { kind: "set", fault: { error: { kind: "tool_error", message: null } } },
    });
    expect(changeOf({ ...EMPTY_FIELDS, kind: "mock", mock: "[1]" })).toEqual({
      problem: 'The mock is a CallToolResult: a JSON object such as {"content": [...]}.',
    });
    expect(changeOf({ ...EMPTY_FIELDS, kind: "mock", mock: "{" })).toHaveProperty("problem");
    expect(changeOf({ ...EMPTY_FIELDS, kind: "imported", set: "Shop", definition: "" })).toHaveProperty("problem");
    expect(changeOf({ ...EMPTY_FIELDS, kind: "imported", set: "Shop", definition: "lookup" })).toEqual({
      change: { kind: "mock_from", set: "Shop", definition: "lookup" },
    });
  });

  it("describes each kind of fault in a line", () => {
    expect(describeFault({ error: { kind: "timeout", message: null } })).toBe("answered with timeout (JSON-RPC -32001)");
    expect(describeFault({ mock: { content: [] } })).toBe('answered with the mock {"content":[]}');
    expect(describeFault({ imported: { set: "Shop", definition: "lookup", mock: { reply: { type: "echo" }, latency_ms: 0 } } })).toBe(
      "answered as Shop's mock of lookup",
    );
  });
});
