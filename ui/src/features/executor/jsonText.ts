/**
 * Parsing the JSON editor's text into call arguments, with errors that say where and what in
 * every webview (WebKit's JSON.parse gives no position, so a small scanner locates the problem).
 */
import type { Value } from "../../lib/ipc";

export type Args = Record<string, Value>;

/** A problem in the text: 0-based offset, 1-based line and column. */
export interface JsonProblem {
  offset: number;
  line: number;
  column: number;
  message: string;
}

export type ParsedArgs = { ok: true; args: Args } | { ok: false; problem: JsonProblem };

/** The editor's text for some arguments. */
export function formatArgs(args: Args): string {
  return JSON.stringify(args, null, 2);
}

export function isArgs(value: unknown): value is Args {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}

/** Parses the arguments object; empty text means no arguments. */
export function parseArgsText(text: string): ParsedArgs {
  if (text.trim() === "") return { ok: true, args: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error: unknown) {
    const found = locateJsonError(text);
    const fallback = error instanceof Error ? error.message : "invalid JSON";
    return { ok: false, problem: problemAt(text, found?.offset ?? text.length, found?.message ?? fallback) };
  }
  if (!isArgs(value)) {
    const start = text.length - text.trimStart().length;
    return {
      ok: false,
      problem: problemAt(text, start, `the arguments must be a JSON object like {"key": "value"}, not ${kindOf(value)}`),
    };
  }
  return { ok: true, args: value };
}

/** "Invalid JSON at line 3, column 7: expected ',' or '}'". */
export function describeProblem(problem: JsonProblem): string {
  return `Invalid JSON at line ${String(problem.line)}, column ${String(problem.column)}: ${problem.message}`;
}

export function problemAt(text: string, offset: number, message: string): JsonProblem {
  const clamped = Math.max(0, Math.min(offset, text.length));
  const before = text.slice(0, clamped);
  const line = before.split("\n").length;
  const column = clamped - (before.lastIndexOf("\n") + 1) + 1;
  return { offset: clamped, line, column, message };
}

class JsonSyntaxError extends Error {
  readonly offset: number;

  constructor(offset: number, message: string) {
    super(message);
    this.offset = offset;
  }
}

/** The first syntax error of `text` as strict JSON, or null when it has none. */
export function locateJsonError(text: string): { offset: number; message: string } | null {
  let i = 0;
  const fail = (message: string, at = i): never => {
    throw new JsonSyntaxError(at, message);
  };
  const describeChar = (at: number) => {
    if (at >= text.length) return "the end of the text";
    const c = text.charAt(at);
    return c === "\n" || c === "\r" ? "a line break" : `'${c}'`;
  };
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text.charAt(i))) i++;
  };
  const literal = (word: string) => {
    if (text.startsWith(word, i)) i += word.length;
    else fail(`unexpected ${describeChar(i)}; expected a value`);
  };
  const string = () => {
    const start = i;
    i++; // opening quote
    for (;;) {
      if (i >= text.length) fail("unterminated string", start);
      const c = text.charAt(i);
      if (c === '"') {
        i++;
        return;
      }
      if (c === "\\") {
        const next = text.charAt(i + 1);
        if (next === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail("invalid \\u escape in string");
          i += 6;
        } else if ('"\\/bfnrt'.includes(next) && next !== "") {
          i += 2;
        } else {
          fail(`invalid escape "\\${next}" in string`);
        }
        continue;
      }
      if (c.charCodeAt(0) < 0x20) fail(c === "\n" ? "line break inside a string (use \\n)" : "control character inside a string");
      i++;
    }
  };
  const number = () => {
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i));
    if (!match || match[0] === "-" || match[0] === "") fail("invalid number");
    i += match?.[0].length ?? 0;
    if (/^[\d.eE+-]/.test(text.charAt(i))) fail("invalid number");
  };
  const value = (depth: number): void => {
    if (depth > 500) fail("nesting too deep");
    ws();
    const c = text.charAt(i);
    if (c === "{") object(depth);
    else if (c === "[") array(depth);
    else if (c === '"') string();
    else if (c === "-" || (c >= "0" && c <= "9")) number();
    else if (c === "t") literal("true");
    else if (c === "f") literal("false");
    else if (c === "n") literal("null");
    else if (c === "'") fail("strings and names must use double quotes");
    else fail(`unexpected ${describeChar(i)}; expected a value`);
  };
  const object = (depth: number) => {
    i++;
    ws();
    if (text.charAt(i) === "}") {
      i++;
      return;
    }
    for (;;) {
      ws();
      const c = text.charAt(i);
      if (c === "}") fail("trailing comma before '}'");
      if (c === "'") fail("strings and names must use double quotes");
      if (c !== '"') fail(`unexpected ${describeChar(i)}; expected a property name in double quotes`);
      string();
      ws();
      if (text.charAt(i) !== ":") fail(`unexpected ${describeChar(i)}; expected ':' after the property name`);
      i++;
      value(depth + 1);
      ws();
      const next = text.charAt(i);
      if (next === ",") {
        i++;
        continue;
      }
      if (next === "}") {
        i++;
        return;
      }
      if (next === '"') fail("missing ',' between properties");
      fail(`unexpected ${describeChar(i)}; expected ',' or '}'`);
    }
  };
  const array = (depth: number) => {
    i++;
    ws();
    if (text.charAt(i) === "]") {
      i++;
      return;
    }
    for (;;) {
      ws();
      if (text.charAt(i) === "]") fail("trailing comma before ']'");
      value(depth + 1);
      ws();
      const next = text.charAt(i);
      if (next === ",") {
        i++;
        continue;
      }
      if (next === "]") {
        i++;
        return;
      }
      if (next !== "" && '"{[-0123456789tfn'.includes(next)) fail("missing ',' between items");
      fail(`unexpected ${describeChar(i)}; expected ',' or ']'`);
    }
  };
  try {
    value(0);
    ws();
    if (i < text.length) fail(`unexpected ${describeChar(i)} after the JSON value`);
    return null;
  } catch (error: unknown) {
    if (error instanceof JsonSyntaxError) return { offset: error.offset, message: error.message };
    throw error;
  }
}
