/** Form ↔ JSON sync at the state level, and where the JSON scanner says a syntax error is. */
import { describe, expect, it } from "vitest";

import { argsReducer, currentArgs, initialArgsState, type ArgsAction, type ArgsState } from "./argsModel";
import { describeProblem, locateJsonError, parseArgsText } from "./jsonText";

const apply = (state: ArgsState, ...actions: ArgsAction[]) => actions.reduce(argsReducer, state);

describe("argsReducer", () => {
  it("carries form values into JSON mode and JSON values back into the form", () => {
    let state = apply(initialArgsState(), { type: "form-change", args: { path: "a.txt", options: { mkdir: true } } });
    state = argsReducer(state, { type: "switch", mode: "json" });
    expect(state.mode).toBe("json");
    expect(JSON.parse(state.text)).toEqual({ path: "a.txt", options: { mkdir: true } });

    state = apply(state, { type: "text-change", text: '{"path": "b.txt", "tags": [{"key": "k"}]}' }, { type: "switch", mode: "form" });
    expect(state.mode).toBe("form");
    expect(state.args).toEqual({ path: "b.txt", tags: [{ key: "k" }] });
  });

  it("refuses to leave JSON mode with invalid JSON and keeps the text exactly", () => {
    const broken = '{\n  "path": "a.txt",\n}';
    const state = apply(initialArgsState("json", { path: "old" }), { type: "text-change", text: broken }, { type: "switch", mode: "form" });
    expect(state.mode).toBe("json");
    expect(state.text).toBe(broken);
    expect(state.args).toEqual({ path: "old" });
    expect(state.notice).toContain("Cannot switch to the form");
    expect(state.notice).toContain("line 3, column 1");
    expect(currentArgs(state).ok).toBe(false);
  });

  it("keeps the user's own formatting across a round trip that changed nothing", () => {
    const text = '{"b": 1,   "a": [1, 2]}';
    const state = apply(
      initialArgsState("json"),
      { type: "text-change", text },
      { type: "switch", mode: "form" },
      { type: "form-change", args: { a: [1, 2], b: 1 } },
      { type: "switch", mode: "json" },
    );
    expect(state.text).toBe(text);
  });

  it("rewrites the text when the form changed a value", () => {
    const state = apply(
      initialArgsState("json"),
      { type: "text-change", text: '{"n": 1}' },
      { type: "switch", mode: "form" },
      { type: "form-change", args: { n: 2 } },
      { type: "switch", mode: "json" },
    );
    expect(JSON.parse(state.text)).toEqual({ n: 2 });
  });

  it("loads a draft into whichever mode is shown", () => {
    const state = apply(initialArgsState("json"), { type: "text-change", text: "{oops" }, { type: "load", args: { x: 1 } });
    expect(state.problem).toBeNull();
    expect(JSON.parse(state.text)).toEqual({ x: 1 });
    expect(currentArgs(state)).toEqual({ ok: true, args: { x: 1 } });
  });
});

describe("parseArgsText", () => {
  it("treats empty text as no arguments", () => {
    expect(parseArgsText("  \n")).toEqual({ ok: true, args: {} });
  });

  it("requires an object", () => {
    const parsed = parseArgsText("[1, 2]");
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problem.message).toContain("not an array");
  });

  it.each([
    ['{"a": 1,}', 8, "trailing comma before '}'"],
    ['{"a" 1}', 5, "expected ':' after the property name"],
    ["{'a': 1}", 1, "double quotes"],
    ['{"a": [1 2]}', 9, "missing ',' between items"],
    ['{"a": [1}', 8, "unexpected '}'; expected ',' or ']'"],
    ['{"a": "x', 6, "unterminated string"],
    ['{"a": tru}', 6, "expected a value"],
    ['{"a": 01}', 7, "invalid number"],
    ['{"a": 1} x', 9, "after the JSON value"],
    ['{"a": "\\q"}', 7, "invalid escape"],
  ])("locates the error in %s", (text, offset, message) => {
    const found = locateJsonError(text);
    expect(found?.offset).toBe(offset);
    expect(found?.message).toContain(message);
    expect(() => {
      JSON.parse(text);
    }).toThrow();
  });

  it("agrees with JSON.parse on valid documents", () => {
    for (const text of ['{"a": [1, -2.5e3, true, false, null, {"b": "\\u00e9\\n"}]}', "{}", ' { "x" : [ ] } ']) {
      expect(locateJsonError(text)).toBeNull();
      expect(() => {
        JSON.parse(text);
      }).not.toThrow();
    }
  });

  it("describes a problem with its line and column", () => {
    const parsed = parseArgsText('{\n  "a": 1\n  "b": 2\n}');
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(describeProblem(parsed.problem)).toBe("Invalid JSON at line 3, column 3: missing ',' between properties");
  });
});
