import { EditorView } from "@codemirror/view";
import type { Channel } from "@tauri-apps/api/core";
import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import type {
  CycleOutcome,
  Diagnostic,
  ParsedReply,
  RequestPage,
  ParsedToolRequest,
  ParseOptions,
  ProtocolInfo,
  RunEvent,
  Span,
  StreamReplay,
  TextRange,
  ToolExecutionResult,
} from "../../lib/ipc";
import { useWorkbench, WorkbenchProvider } from "../../lib/workbench";
import { ParserPane } from "./ParserPane";
import { mapByteOffsets } from "./textIndex";

// ---- fixtures: a VCP reply in Chinese, with spans as the engine reports them (UTF-8 bytes) ----

const encoder = new TextEncoder();
const byteLength = (text: string) => encoder.encode(text).length;

function spanOf(text: string, needle: string): Span {
  const at = text.indexOf(needle);
  if (at < 0) throw new Error(`fixture: ${needle} not in text`);
  const start = byteLength(text.slice(0, at));
  return { start, end: start + byteLength(needle) };
}

function vcpBlock(tool: string, id: string, args: Record<string, string>): string {
  const pairs = Object.entries(args)
    .map(([key, value]) => `${key}:「始」${value}「末」\n`)
    .join("");
  return `<<<[TOOL_REQUEST]>>>\ntool_name:「始」${tool}「末」\nrequest_id:「始」${id}「末」\n${pairs}<<<[END_TOOL_REQUEST]>>>`;
}

const BLOCK_A = vcpBlock("calculator_evaluate", "call-1", { expression: "6*7" });
const BLOCK_B = vcpBlock("workspace_read", "call-2", { path: "../etc/passwd", extra: "是" });
const DUPLICATE = "extra:「始」是「末」";
const STRAY = "多余「始」文本";
// Line 1, block A on lines 2-6, line 7, block B on lines 8-13 (extra on 12), stray text on 14 col 3.
const REPLY = `好的，我来计算「始」一下。😀\n${BLOCK_A}\n然后读取文件：\n${BLOCK_B}\n  ${STRAY}\n`;

function request(text: string, block: string, tool: string, id: string, args: Record<string, string>): ParsedToolRequest {
  return { request_id: id, tool_name: tool, args, raw_block: block, span: spanOf(text, block), format: "vcp", untyped_args: true };
}

function diagnosticsOf(text: string): Diagnostic[] {
  return [
    { severity: "warning", code: "stray_text", message: "text between pairs is ignored", span: spanOf(text, STRAY) },
    { severity: "error", code: "duplicate_key", message: "key 'extra' appears more than once", span: spanOf(text, DUPLICATE) },
  ];
}

const SCHEMA_SUGGESTION = 'Call it again with arguments that match its schema. Where it failed, the schema says:\n/path: {"type":"string"}; e.g. "text"';

/** What a test reply holds before the app's placing: every request and its check. */
type Unplaced = Omit<ParsedReply, "outline" | "parse_id" | "diagnostic_ranges" | "byte_length">;

/** The parse id of the next `placed` answer. */
let nextParseId = 1;

/**
 * A reply as the app answers it for `text`: with every request's outline and where each span
 * sits in the text (the app's `text_ranges`), computed here by the UI's own byte mapping; the
 * answer holds the first `first` requests (`FIRST_REQUESTS` in the app), `rest` the others.
 */
function placedWithRest(text: string, reply: Unplaced, first = 100): { answer: ParsedReply; rest: Pick<ParsedReply, "checks"> & { requests: ParsedToolRequest[] } } {
  const { requests, diagnostics } = reply.report;
  const spans = [...requests.map((r) => r.span), ...diagnostics.map((d) => d.span)];
  const map = mapByteOffsets(
    text,
    spans.flatMap((span) => [span.start, span.end]),
  );
  const range = (span: Span): TextRange => {
    const start = map.at(span.start);
    return { from: start.index, to: Math.max(start.index, map.at(span.end).index), line: start.line, column: start.column };
  };
  const names: string[] = [];
  const places = requests.flatMap((r) => {
    if (!names.includes(r.tool_name)) names.push(r.tool_name);
    const { from, to, line, column } = range(r.span);
    return [names.indexOf(r.tool_name), r.span.start, r.span.end, from, to, line, column];
  });
  const invalid = reply.checks.flatMap((check, index) => ("error" in check && check.error ? [index] : []));
  const answer: ParsedReply = {
    ...reply,
    report: { ...reply.report, requests: requests.slice(0, first) },
    checks: reply.checks.slice(0, first),
    outline: { count: requests.length, names, places, invalid },
    parse_id: nextParseId++,
    diagnostic_ranges: diagnostics.map((d) => range(d.span)),
    byte_length: map.byteLength,
  };
  return { answer, rest: { requests: requests.slice(first), checks: reply.checks.slice(first) } };
}

function placed(text: string, reply: Unplaced): ParsedReply {
  return placedWithRest(text, reply).answer;
}

function parsed(text = REPLY, withDiagnostics = true): ParsedReply {
  return placed(text, {
    report: {
      format: "vcp",
      detected: true,
      content: "",
      requests: [
        request(text, BLOCK_A, "calculator_evaluate", "call-1", { expression: "6*7" }),
        request(text, BLOCK_B, "workspace_read", "call-2", { path: "../etc/passwd", extra: "是" }),
      ],
      diagnostics: withDiagnostics ? diagnosticsOf(text) : [],
    },
    checks: [
      {},
      {
        error: {
          kind: "invalid_args",
          message: "arguments do not match the method's schema",
          issues: [
            { path: "/path", message: "escapes the workspace" },
            { path: "/extra", message: "is not allowed" },
          ],
          suggestion: SCHEMA_SUGGESTION,
        },
      },
    ],
    request_tools: null,
  });
}

function empty(format: string, detected: boolean): ParsedReply {
  return placed("", { report: { format, detected, requests: [], diagnostics: [], content: "" }, checks: [], request_tools: null });
}

function result(tool: string, id: string, status: "success" | "error", text: string, extra: Partial<ToolExecutionResult> = {}) {
  const out: ToolExecutionResult = { request_id: id, tool_name: tool, status, result: text, duration_ms: 12, ...extra };
  return out;
}

const OK_RESULT = result("calculator_evaluate", "call-1", "success", '{"value":42}');
const BAD_RESULT = result("workspace_read", "call-2", "error", "arguments do not match the method's schema", {
  error: { kind: "invalid_args", message: "arguments do not match the method's schema", suggestion: SCHEMA_SUGGESTION },
});

function outcome(text: string, results: ToolExecutionResult[], formatted: string): CycleOutcome {
  return { cycle_id: "cycle-1", has_tool_requests: true, parse: parsed(text).report, results, formatted_results: formatted };
}

const PROTOCOLS: ProtocolInfo[] = [
  { id: "vcp", label: "VCP (Variable & Command Protocol)" },
  { id: "hermes", label: "Hermes <tool_call>" },
];

// ---- harness ----

interface Call {
  cmd: string;
  args: Record<string, unknown>;
}

type Handler = (args: Record<string, unknown>) => unknown;

function mockCommands(handlers: Record<string, Handler>): Call[] {
  const calls: Call[] = [];
  mockIPC((cmd, payload) => {
    const args = cmd === "parse_reply" ? bodyArgs(payload) : ((payload ?? {}) as Record<string, unknown>);
    calls.push({ cmd, args });
    const handler = handlers[cmd];
    if (handler) return handler(args);
    if (cmd === "list_protocols") return PROTOCOLS;
    if (cmd === "format_problems") return [];
    if (cmd === "imported_sets") return [];
    throw new Error(`unexpected command ${cmd}`);
  });
  return calls;
}

/** parse_reply's raw body (lib/ipc.ts: an options line, then the reply) as named arguments. */
function bodyArgs(payload: unknown): Record<string, unknown> {
  if (!ArrayBuffer.isView(payload)) throw new Error("parse_reply takes a raw body");
  const body = new TextDecoder().decode(payload);
  const line = body.indexOf("\n");
  const options = JSON.parse(body.slice(0, line)) as ParseOptions;
  return { text: body.slice(line + 1), format: options.format, requestTools: options.request_tools, strict: options.strict };
}

const only = (calls: Call[], cmd: string) => calls.filter((call) => call.cmd === cmd);

function deferred<T>() {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/** Shows what the workbench would open in the Executor. */
function DraftProbe() {
  const { draft, activePane } = useWorkbench();
  return (
    <output data-testid="probe" data-pane={activePane}>
      {draft ? JSON.stringify({ toolName: draft.toolName, args: draft.args }) : ""}
    </output>
  );
}

function renderPane(active = true) {
  return render(
    <WorkbenchProvider initialPane="parser">
      <ParserPane active={active} />
      <DraftProbe />
    </WorkbenchProvider>,
  );
}

const input = () => screen.getByTestId("parser-input");
const requests = () => screen.queryAllByTestId("parser-request");

/** The reply editor's CodeMirror view. */
function editor(): EditorView {
  const view = EditorView.findFromDOM(input());
  if (!view) throw new Error("the reply editor is not mounted");
  return view;
}

const editorText = () => editor().state.doc.toString();

/** The editor's selection as [from, to]. */
function editorSelection(): [number, number] {
  const { from, to } = editor().state.selection.main;
  return [from, to];
}

/** Replaces the reply the way typing does: an "input.type" transaction (debounced parse). */
function typeReply(text: string) {
  const view = editor();
  act(() => {
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text }, userEvent: "input.type" });
  });
}

/** Selects all and pastes `text` with a real paste event, which CodeMirror's handler reads. */
function pasteReply(text: string) {
  const view = editor();
  act(() => {
    view.dispatch({ selection: { anchor: 0, head: view.state.doc.length } });
  });
  fireEvent.paste(view.contentDOM, { clipboardData: { getData: (type: string) => (type === "text/plain" ? text : "") } });
}

async function parseReply(text = REPLY) {
  typeReply(text);
  fireEvent.click(screen.getByTestId("parser-parse"));
  await waitFor(() => {
    expect(requests().length).toBeGreaterThan(0);
  });
  // The spans view follows in a deferred render (later still on a loaded machine).
  await screen.findByTestId("parser-annotated", undefined, { timeout: 10_000 });
}

function mark(id: string): HTMLElement {
  const found = screen.getByTestId("parser-annotated").querySelector<HTMLElement>(`mark[data-ann="${id}"]`);
  if (!found) throw new Error(`no mark ${id}`);
  return found;
}

beforeEach(() => {
  Element.prototype.scrollIntoView = vi.fn();
  // jsdom has no layout and no Range geometry; CodeMirror measures text ranges (empty is fine).
  Range.prototype.getClientRects = () => document.createElement("div").getClientRects();
  Range.prototype.getBoundingClientRect = () => document.createElement("div").getBoundingClientRect();
});

afterEach(() => {
  cleanup();
  clearMocks();
});

describe("ParserPane parsing", () => {
  it("parses as you type (debounced) and shows requests, validation and diagnostics with line:column", async () => {
    const calls = mockCommands({ parse_reply: () => parsed() });
    renderPane();
    const select = screen.getByTestId<HTMLSelectElement>("parser-format");
    await waitFor(() => {
      expect([...select.options].map((o) => o.value)).toEqual(["auto", "vcp", "hermes"]);
    });

    typeReply(REPLY.slice(0, 10));
    typeReply(REPLY.slice(0, 40));
    typeReply(REPLY);
    expect(only(calls, "parse_reply")).toHaveLength(0);
    await waitFor(() => {
      expect(requests()).toHaveLength(2);
    });
    expect(only(calls, "parse_reply").map((c) => c.args)).toEqual([{ text: REPLY, format: null, requestTools: null, strict: false }]);

    const [first, second] = requests();
    if (!first || !second) throw new Error("two requests expected");
    expect(first.dataset.toolName).toBe("calculator_evaluate");
    expect(first.dataset.valid).toBe("true");
    expect(first.textContent).toContain("#1");
    expect(first.textContent).toContain("call-1");
    expect(first.textContent).toContain('"expression": "6*7"');
    expect(within(first).getByTestId("parser-validation").textContent).toBe("valid");
    // Block A starts on line 2, column 1.
    expect(first.textContent).toContain("2:1");

    expect(second.dataset.toolName).toBe("workspace_read");
    expect(second.dataset.valid).toBe("false");
    const problem = within(second).getByTestId("parser-check-error").textContent;
    expect(problem).toContain("invalid_args");
    expect(problem).toContain("arguments do not match the method's schema");
    expect(problem).toContain("- /path: escapes the workspace\n- /extra: is not allowed");
    // The engine's suggestion, as a hint after the issues; a valid request has none.
    expect(within(second).getByTestId("parser-check-suggestion").textContent).toBe(`Suggestion ${SCHEMA_SUGGESTION}`);
    expect(within(first).queryByTestId("parser-check-suggestion")).toBeNull();

    const used = screen.getByTestId("parser-format-used");
    expect(used.dataset.format).toBe("vcp");
    expect(used.textContent).toContain("(detected)");

    const diagnostics = screen.getAllByTestId("parser-diagnostic");
    expect(diagnostics.map((d) => [d.dataset.severity, d.dataset.code])).toEqual([
      ["warning", "stray_text"],
      ["error", "duplicate_key"],
    ]);
    expect(diagnostics.map((d) => within(d).getByTestId("parser-location").textContent)).toEqual(["14:3", "12:1"]);
    expect(diagnostics[1]?.textContent).toContain("key 'extra' appears more than once");
  });

  it("shows only the answer to the latest parse", async () => {
    const answers = [deferred<ParsedReply>(), deferred<ParsedReply>()];
    let n = 0;
    const calls = mockCommands({
      parse_reply: () => {
        const answer = answers[n];
        n += 1;
        return answer?.promise;
      },
    });
    renderPane();
    typeReply("old reply");
    fireEvent.click(screen.getByTestId("parser-parse"));
    typeReply(REPLY);
    fireEvent.click(screen.getByTestId("parser-parse"));
    expect(only(calls, "parse_reply")).toHaveLength(2);

    answers[1]?.resolve(parsed());
    await waitFor(() => {
      expect(requests()).toHaveLength(2);
    });
    // The older request answers last: it must not replace the newer answer.
    const stale = empty("vcp", true);
    stale.report.requests = [
      { ...request(REPLY, BLOCK_A, "stale_tool", "x", {}), span: { start: 0, end: 3 } },
    ];
    await act(async () => {
      answers[0]?.resolve(stale);
      await answers[0]?.promise;
    });
    expect(requests().map((r) => r.dataset.toolName)).toEqual(["calculator_evaluate", "workspace_read"]);
  });

  it("maps byte spans onto CJK text: marks, selection in the editor and jumping between views", async () => {
    mockCommands({ parse_reply: () => parsed() });
    renderPane();
    await parseReply();

    // Every mark covers exactly its span's characters (byte offsets would land elsewhere).
    expect(mark("r0").textContent).toBe(BLOCK_A);
    expect(mark("r1").textContent).toBe(BLOCK_B);
    expect(mark("d0").textContent).toBe(STRAY);
    expect(mark("d1").textContent).toBe(DUPLICATE);
    expect(mark("d1").closest('mark[data-ann="r1"]')).not.toBeNull();
    expect(mark("d0").dataset.kind).toBe("warning");
    expect(mark("d1").dataset.kind).toBe("error");
    expect(screen.getByTestId("parser-annotated").textContent).toBe(REPLY);

    const second = requests()[1];
    if (!second) throw new Error("no second request");
    fireEvent.click(within(second).getByRole("button", { name: /workspace_read/ }));
    expect(editorSelection()).toEqual([REPLY.indexOf(BLOCK_B), REPLY.indexOf(BLOCK_B) + BLOCK_B.length]);
    expect(mark("r1").classList.contains("is-selected")).toBe(true);
    expect(second.classList.contains("is-selected")).toBe(true);

    fireEvent.click(screen.getAllByTestId("parser-diagnostic")[1]?.querySelector("button") ?? second);
    expect(editorSelection()).toEqual([REPLY.indexOf(DUPLICATE), REPLY.indexOf(DUPLICATE) + DUPLICATE.length]);

    // Clicking a mark in the text selects its item.
    fireEvent.click(mark("d0"));
    const stray = screen.getAllByTestId("parser-diagnostic")[0];
    expect(stray?.classList.contains("is-selected")).toBe(true);
    expect(document.activeElement).toBe(stray);
    fireEvent.click(mark("r0"));
    expect(requests()[0]?.classList.contains("is-selected")).toBe(true);
  });

  it("sends a request to the executor with its arguments as they are", async () => {
    mockCommands({ parse_reply: () => parsed() });
    renderPane();
    await parseReply();
    const second = requests()[1];
    if (!second) throw new Error("no second request");
    fireEvent.click(within(second).getByTestId("parser-send"));
    const probe = screen.getByTestId("probe");
    expect(JSON.parse(probe.textContent || "null")).toEqual({
      toolName: "workspace_read",
      args: { path: "../etc/passwd", extra: "是" },
    });
    expect(probe.dataset.pane).toBe("executor");
  });

  it("says when a reply has no tool calls, naming the format", async () => {
    const calls = mockCommands({
      parse_reply: (args) => (args.format === "vcp" ? empty("vcp", false) : empty("vcp", true)),
    });
    renderPane();
    await waitFor(() => {
      expect(within(screen.getByTestId("parser-format")).getAllByRole("option")).toHaveLength(3);
    });
    typeReply("Just prose, no calls.");
    fireEvent.change(screen.getByTestId("parser-format"), { target: { value: "vcp" } });
    const message = await screen.findByTestId("parser-no-calls");
    expect(message.textContent).toBe("No tool calls found (format vcp).");
    expect(only(calls, "parse_reply").at(-1)?.args).toEqual({ text: "Just prose, no calls.", format: "vcp", requestTools: null, strict: false });
    expect(requests()).toHaveLength(0);

    fireEvent.change(screen.getByTestId("parser-format"), { target: { value: "auto" } });
    await waitFor(() => {
      expect(screen.getByTestId("parser-no-calls").textContent).toMatch(/^No tool calls found \(format auto/);
    });
    expect(only(calls, "parse_reply").at(-1)?.args).toEqual({ text: "Just prose, no calls.", format: null, requestTools: null, strict: false });
  });

  it("checks the calls against pasted request tools or an imported set", async () => {
    const tools = '[{"type": "function", "function": {"name": "lookup_order", "parameters": {"type": "object"}}}]';
    const calls = mockCommands({
      parse_reply: (args) => ({
        ...parsed(),
        request_tools: args.requestTools
          ? { count: 1, findings: [{ path: "/1", level: "error", message: "no name" }] }
          : null,
      }),
      imported_sets: () => [
        { name: "Shop", id: "Shop", imported_at: "", origin: "pasted", definitions: 4, mocked: 1 },
      ],
    });
    renderPane();
    await parseReply();
    const source = screen.getByTestId<HTMLSelectElement>("parser-request-tools-source");
    await waitFor(() => {
      expect([...source.options].map((o) => o.value)).toEqual(["registry", "pasted", "set:Shop"]);
    });
    fireEvent.change(source, { target: { value: "pasted" } });
    fireEvent.change(screen.getByTestId("parser-request-tools-text"), { target: { value: tools } });
    const info = await screen.findByTestId("parser-request-tools-info");
    await waitFor(() => {
      expect(info.textContent).toContain("Checked against 1 request tool");
    });
    expect(screen.getByTestId("parser-request-tools").textContent).toContain("no name");
    expect(only(calls, "parse_reply").at(-1)?.args.requestTools).toEqual({ kind: "pasted", text: tools });

    fireEvent.change(source, { target: { value: "set:Shop" } });
    await waitFor(() => {
      expect(only(calls, "parse_reply").at(-1)?.args.requestTools).toEqual({ kind: "imported_set", name: "Shop" });
    });
    expect(screen.queryByTestId("parser-request-tools-text")).toBeNull();
  });

  it("re-parses strictly when Strict is ticked, and says which calls were cut off or typed without a schema", async () => {
    const calls = mockCommands({
      parse_reply: (args) => {
        const reply = parsed();
        const [first, second] = reply.report.requests;
        if (!first || !second) throw new Error("fixture has two requests");
        if (args.strict === true) {
          reply.report.requests = [first];
        } else {
          second.incomplete = true;
        }
        first.typed_without_schema = true;
        return reply;
      },
    });
    renderPane();
    await parseReply();
    expect(screen.getByTestId("parser-request-incomplete").textContent).toContain("Cut off");
    expect(screen.getByTestId("parser-request-untyped").textContent).toContain("without a schema");

    fireEvent.click(screen.getByTestId("parser-strict"));
    await waitFor(() => {
      expect(requests()).toHaveLength(1);
    });
    expect(only(calls, "parse_reply").at(-1)?.args.strict).toBe(true);
    expect(screen.queryByTestId("parser-request-incomplete")).toBeNull();
  });

  it("lists declared formats' file problems by line, read again when the window regains focus", async () => {
    let problems: unknown[] = [];
    const calls = mockCommands({ format_problems: () => problems });
    renderPane();
    await waitFor(() => {
      expect(only(calls, "format_problems")).toHaveLength(1);
    });
    expect(screen.queryByTestId("parser-format-problems")).toBeNull();
    problems = [{ file: "/data/formats/acme.toml", line: 3, column: 13, message: "arguments = 'yaml' is not an encoding" }];
    fireEvent.focus(window);
    const notice = await screen.findByTestId("parser-format-problems");
    expect(notice.textContent).toContain("/data/formats/acme.toml:3:13");
    expect(notice.textContent).toContain("'yaml'");
    expect(only(calls, "list_protocols").length).toBeGreaterThanOrEqual(2);
  });

  it("shows a parse failure (IpcError) inline", async () => {
    mockCommands({
      parse_reply: () => {
        // A command's error value is a plain {kind, message, details} object.
        // eslint-disable-next-line @typescript-eslint/only-throw-error
        throw { kind: "unknown_format", message: "unknown format 'nope'; known: vcp, hermes", details: null };
      },
    });
    renderPane();
    typeReply("anything");
    fireEvent.click(screen.getByTestId("parser-parse"));
    const alert = await screen.findByTestId("parser-error");
    expect(alert.dataset.kind).toBe("unknown_format");
    expect(alert.textContent).toContain("unknown format 'nope'; known: vcp, hermes");
    expect(editorText()).toBe("anything");
  });

  it("renders reply and result text as inert text", async () => {
    const hostile = `<script>window.__owned = true</script><img src=x onerror="window.__owned = true">\n${BLOCK_A}\n`;
    const reply = placed(hostile, {
      report: {
        format: "vcp",
        detected: true,
        content: "",
        requests: [request(hostile, BLOCK_A, "calculator_evaluate", "call-1", { expression: "<b>6*7</b>" })],
        diagnostics: [],
      },
      checks: [{}],
      request_tools: null,
    });
    const done = deferred<CycleOutcome>();
    let channel: Channel<RunEvent> | null = null;
    mockCommands({
      parse_reply: () => reply,
      run_reply: (args) => {
        channel = args.onEvent as Channel<RunEvent>;
        return done.promise;
      },
    });
    const { container } = renderPane();
    await parseReply(hostile);
    expect(screen.getByTestId("parser-annotated").textContent).toBe(hostile);

    fireEvent.click(screen.getByTestId("parser-run-all"));
    await waitFor(() => {
      expect(channel).not.toBeNull();
    });
    const evil = result("calculator_evaluate", "call-1", "success", '<img src=y onerror="window.__owned = 1"><b>bold</b>');
    act(() => {
      channel?.onmessage({ event: "result_ready", index: 0, result: evil });
    });
    const shown = await screen.findByTestId("parser-result");
    expect(shown.textContent).toContain("<b>bold</b>");
    expect(container.querySelector("script, img, b")).toBeNull();
    expect((window as unknown as { __owned?: unknown }).__owned).toBeUndefined();
  });

  // 250 requests rendered and paged: seconds on a loaded 2-core machine.
  it("pages long lists, asks for the requests its answer left out, and renders the item of a span picked beyond them", async () => {
    const blocks = Array.from({ length: 250 }, (_, i) => vcpBlock("calculator_evaluate", `id-${String(i)}`, { expression: `${String(i)}+1` }));
    const text = blocks.join("\n说明\n");
    const { answer, rest } = placedWithRest(text, {
      report: {
        format: "vcp",
        detected: true,
        content: "",
        requests: blocks.map((block, i) => ({
          ...request(text, block, "calculator_evaluate", `id-${String(i)}`, { expression: `${String(i)}+1` }),
        })),
        diagnostics: [],
      },
      checks: blocks.map((_, i) => (i === 245 ? { error: { kind: "invalid_args", message: "bad expression" } } : {})),
      request_tools: null,
    });
    // Pages arrive when the test lets them: what shows meanwhile is checked too.
    const pages: { args: Record<string, unknown>; answer: ReturnType<typeof deferred<RequestPage>> }[] = [];
    const calls = mockCommands({
      parse_reply: () => answer,
      parsed_requests: (args) => {
        const page = deferred<RequestPage>();
        pages.push({ args, answer: page });
        return page.promise;
      },
    });
    const deliver = async (index: number) => {
      const entry = pages[index];
      if (!entry) throw new Error(`no page request ${String(index)}`);
      const { args, answer: page } = entry;
      const [from, to] = [Number(args.from), Number(args.to)];
      expect(args.parseId).toBe(answer.parse_id);
      page.resolve({ from, requests: rest.requests.slice(from - 100, to - 100), checks: rest.checks.slice(from - 100, to - 100) });
      await act(async () => {
        await page.promise;
      });
    };
    renderPane();
    await parseReply(text);
    // The first items render with the parse, the rest of the page in a deferred render; the
    // count, the summary and every span come from the outline.
    await waitFor(() => {
      expect(requests()).toHaveLength(100);
    });
    expect(screen.getByTestId("parser-summary").textContent).toContain("250 requests (249 valid)");
    expect(only(calls, "parsed_requests")).toHaveLength(0);
    expect(mark("r239").textContent).toBe(blocks[239]);
    fireEvent.click(mark("r239"));
    // The picked request is further down than the answer went: the pages up to the end of its
    // own are asked for at once.
    expect(requests()).toHaveLength(100);
    await waitFor(() => {
      expect(only(calls, "parsed_requests").map((c) => [c.args.from, c.args.to])).toEqual([[100, 250]]);
    });
    expect(screen.getByText(/Loading requests 101–240/)).toBeTruthy();
    await deliver(0);
    expect(requests()).toHaveLength(240);
    expect(requests()[239]?.classList.contains("is-selected")).toBe(true);
    expect(requests()[239]?.textContent).toContain("id-239");
    // The rest of that page came with it: showing it asks for nothing more.
    fireEvent.click(screen.getByText(/Show more requests \(10 more\)/));
    expect(requests()).toHaveLength(250);
    expect(only(calls, "parsed_requests")).toHaveLength(1);
    expect(requests()[245]?.textContent).toContain("bad expression");
    expect(screen.queryByText(/Show more requests/)).toBeNull();
    expect(screen.queryByText(/Loading requests/)).toBeNull();
  }, 20_000);

  it("parses a paste or a drop at once, while typing waits for the debounce", async () => {
    const calls = mockCommands({ parse_reply: () => parsed() });
    renderPane();
    const flush = async () => {
      for (let i = 0; i < 5; i += 1) await Promise.resolve();
    };
    typeReply(REPLY.slice(0, 20));
    await flush();
    expect(only(calls, "parse_reply")).toHaveLength(0);
    // No timer has run yet: only the paste itself can have asked for this parse.
    pasteReply(REPLY);
    await flush();
    expect(only(calls, "parse_reply").map((c) => c.args.text)).toEqual([REPLY]);
    expect(editorText()).toBe(REPLY);
    // A drop, through CodeMirror's drop handler (where it lands depends on layout, which jsdom lacks).
    fireEvent.drop(editor().contentDOM, { dataTransfer: { getData: (type: string) => (type === "Text" ? "\n" : ""), files: [] } });
    await flush();
    expect(editorText()).toHaveLength(REPLY.length + 1);
    expect(only(calls, "parse_reply").map((c) => c.args.text)).toEqual([REPLY, editorText()]);
    await waitFor(() => {
      expect(requests()).toHaveLength(2);
    });
  });

  it("takes a 5 MB paste without losing text, parsing once and rendering only excerpts", async () => {
    const filler = "这是一段很长的回复，没有任何调用。lorem ipsum dolor sit amet\n".repeat(60_000);
    const big = `${filler}${BLOCK_A}\n${filler}${BLOCK_B}\n`;
    expect(byteLength(big)).toBeGreaterThan(5_000_000);
    const texts: unknown[] = [];
    mockCommands({
      parse_reply: (args) => {
        texts.push(args.text);
        return parsed(big, false);
      },
    });
    renderPane();
    typeReply(big.slice(0, 1_000_000));
    pasteReply(big);
    await waitFor(
      () => {
        expect(requests()).toHaveLength(2);
      },
      { timeout: 10_000 },
    );
    expect(texts).toHaveLength(1);
    expect(texts[0] === big).toBe(true);
    expect(editor().state.doc.length).toBe(big.length);
    const view = await screen.findByTestId("parser-annotated", undefined, { timeout: 10_000 });
    expect(view.dataset.mode).toBe("excerpts");
    expect(view.textContent.length).toBeLessThan(5_000);
    expect(mark("r1").textContent).toBe(BLOCK_B);
  });

  it("shows a huge reply as excerpts around its spans", async () => {
    const filler = "填充文字，没有调用。\n".repeat(12_000); // ≈ 370 KB
    const big = `${filler}${BLOCK_A}\n${filler}`;
    mockCommands({
      parse_reply: () =>
        placed(big, {
          report: {
            format: "vcp",
            detected: true,
            content: "",
            requests: [request(big, BLOCK_A, "calculator_evaluate", "call-1", { expression: "6*7" })],
            diagnostics: [],
          },
          checks: [{}],
          request_tools: null,
        }),
    });
    renderPane();
    await parseReply(big);
    const view = screen.getByTestId("parser-annotated");
    expect(view.dataset.mode).toBe("excerpts");
    expect(mark("r0").textContent).toBe(BLOCK_A);
    expect(view.textContent.length).toBeLessThan(2_000);
    expect(editorText()).toBe(big);
  });
});

describe("ParserPane run all", () => {
  function runMock(extra: Record<string, Handler> = {}) {
    const done = deferred<CycleOutcome>();
    const state: { channel: Channel<RunEvent> | null } = { channel: null };
    const calls = mockCommands({
      parse_reply: () => parsed(),
      run_reply: (args) => {
        state.channel = args.onEvent as Channel<RunEvent>;
        return done.promise;
      },
      cancel_run: () => true,
      answer_confirmation: () => true,
      ...extra,
    });
    const send = (event: RunEvent) => {
      act(() => {
        state.channel?.onmessage(event);
      });
    };
    return { calls, done, state, send };
  }

  it("streams results beside their requests and shows the formatted results block (Ctrl+Enter)", async () => {
    const { calls, done, state, send } = runMock();
    renderPane();
    await parseReply();

    fireEvent.keyDown(window, { key: "Enter", ctrlKey: true });
    await waitFor(() => {
      expect(state.channel).not.toBeNull();
    });
    const run = only(calls, "run_reply")[0]?.args;
    expect(run?.text).toBe(REPLY);
    expect(run?.format).toBeNull();
    expect(typeof run?.runId).toBe("string");
    expect(screen.getByTestId<HTMLButtonElement>("parser-run-all").disabled).toBe(true);

    send({ event: "result_ready", index: 1, result: BAD_RESULT });
    const [first, second] = requests();
    if (!first || !second) throw new Error("two requests expected");
    const bad = within(second).getByTestId("parser-result");
    expect(bad.dataset.status).toBe("error");
    expect(bad.textContent).toContain("invalid_args");
    expect(within(bad).getByTestId("parser-result-suggestion").textContent).toContain('e.g. "text"');
    expect(within(first).queryByTestId("parser-result")).toBeNull();
    expect(first.textContent).toContain("Waiting for the result");

    send({ event: "result_ready", index: 0, result: OK_RESULT });
    const good = within(first).getByTestId("parser-result");
    expect(good.dataset.status).toBe("success");
    expect(good.textContent).toContain('"value": 42');
    expect(good.textContent).toContain("12.0 ms");

    const formatted = "<<<[TOOL_RESULT]>>>\nrequest_id:「始」call-1「末」\nresult:「始」42「末」\n<<<[END_TOOL_RESULT]>>>\n";
    await act(async () => {
      done.resolve(outcome(REPLY, [OK_RESULT, BAD_RESULT], formatted));
      await done.promise;
    });
    const block = await screen.findByTestId<HTMLTextAreaElement>("parser-results-block");
    expect(block.value).toBe(formatted);
    expect(block.readOnly).toBe(true);
    expect(screen.getByTestId("parser-run-status").textContent).toBe("Run finished: 1 succeeded, 1 failed.");
    expect(screen.getAllByTestId("parser-result")).toHaveLength(2);

    const writeText = vi.fn(() => Promise.resolve());
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    fireEvent.click(screen.getByTestId("parser-copy-results"));
    expect(writeText).toHaveBeenCalledWith(formatted);
    expect(await screen.findByText("Copied.")).toBeTruthy();
  });

  it("cancels the run with the button and with Esc", async () => {
    const { calls, done, state } = runMock();
    renderPane();
    await parseReply();
    fireEvent.click(screen.getByTestId("parser-run-all"));
    await waitFor(() => {
      expect(state.channel).not.toBeNull();
    });
    const runId = only(calls, "run_reply")[0]?.args.runId;

    fireEvent.keyDown(window, { key: "Escape" });
    await waitFor(() => {
      expect(only(calls, "cancel_run").map((c) => c.args)).toEqual([{ runId }]);
    });
    expect(screen.getByTestId("parser-cancel").textContent).toBe("Cancelling…");

    const cancelled = (r: ToolExecutionResult) =>
      result(r.tool_name, r.request_id, "error", "cancelled", { error: { kind: "cancelled", message: "cancelled" } });
    await act(async () => {
      done.resolve(outcome(REPLY, [cancelled(OK_RESULT), cancelled(BAD_RESULT)], "…cancelled…"));
      await done.promise;
    });
    const shown = screen.getAllByTestId("parser-result");
    expect(shown.map((r) => r.dataset.status)).toEqual(["error", "error"]);
    expect(shown[0]?.textContent).toContain("cancelled");
    expect(screen.getByTestId<HTMLButtonElement>("parser-cancel").disabled).toBe(true);

    // A second run, cancelled with the button.
    const again = deferred<CycleOutcome>();
    mockCommands({
      parse_reply: () => parsed(),
      run_reply: () => again.promise,
      cancel_run: (args) => {
        calls.push({ cmd: "cancel_run", args });
        return true;
      },
    });
    fireEvent.click(screen.getByTestId("parser-run-all"));
    await waitFor(() => {
      expect(screen.getByTestId<HTMLButtonElement>("parser-cancel").disabled).toBe(false);
    });
    fireEvent.click(screen.getByTestId("parser-cancel"));
    await waitFor(() => {
      expect(only(calls, "cancel_run")).toHaveLength(2);
    });
    expect(only(calls, "cancel_run")[1]?.args.runId).not.toBe(runId);
  });

  it("asks for confirmation in a dialog: approve, Esc denies, deny", async () => {
    const { calls, done, state, send } = runMock();
    renderPane();
    await parseReply();
    fireEvent.click(screen.getByTestId("parser-run-all"));
    await waitFor(() => {
      expect(state.channel).not.toBeNull();
    });
    const ask = (id: string, path: string): RunEvent => ({
      event: "confirmation_needed",
      confirmation_id: id,
      request: {
        request_id: "call-9",
        routing_name: "workspace_delete",
        args: { path },
        annotations: { destructive: true },
        reason: "destructive",
      },
    });

    send(ask("c1", "old.txt"));
    const dialog = screen.getByRole("alertdialog");
    expect(dialog.dataset.testid).toBe("confirm-dialog");
    expect(dialog.textContent).toContain("workspace_delete");
    expect(within(dialog).getByTestId("confirm-reason").dataset.reason).toBe("destructive");
    expect(within(dialog).getByTestId("confirm-args").textContent).toContain('"path": "old.txt"');
    expect(document.activeElement).toBe(within(dialog).getByTestId("confirm-deny"));
    fireEvent.click(within(dialog).getByTestId("confirm-approve"));
    await waitFor(() => {
      expect(only(calls, "answer_confirmation").map((c) => c.args)).toEqual([{ confirmationId: "c1", approve: true }]);
    });
    expect(screen.queryByTestId("confirm-dialog")).toBeNull();

    send(ask("c2", "b.txt"));
    send(ask("c3", "c.txt"));
    expect(screen.getByTestId("confirm-dialog").textContent).toContain("1 more waiting");
    fireEvent.keyDown(screen.getByTestId("confirm-dialog"), { key: "Escape" });
    await waitFor(() => {
      expect(only(calls, "answer_confirmation")).toHaveLength(2);
    });
    expect(only(calls, "answer_confirmation")[1]?.args).toEqual({ confirmationId: "c2", approve: false });
    // Esc answered the dialog: it did not cancel the run.
    expect(only(calls, "cancel_run")).toHaveLength(0);

    expect(screen.getByTestId("confirm-args").textContent).toContain("c.txt");
    fireEvent.click(screen.getByTestId("confirm-deny"));
    await waitFor(() => {
      expect(only(calls, "answer_confirmation")).toHaveLength(3);
    });
    expect(only(calls, "answer_confirmation")[2]?.args).toEqual({ confirmationId: "c3", approve: false });
    expect(screen.queryByTestId("confirm-dialog")).toBeNull();

    await act(async () => {
      done.resolve(outcome(REPLY, [OK_RESULT, BAD_RESULT], "block"));
      await done.promise;
    });
  });

  it("leaves Ctrl+Enter and Esc typed in the editor to the pane; its label focuses it", async () => {
    const { calls, done, state } = runMock();
    renderPane();
    await parseReply();
    fireEvent.click(screen.getByText("Model reply"));
    const content = editor().contentDOM;
    expect(document.activeElement).toBe(content);
    expect(content.getAttribute("aria-labelledby")).toBe(screen.getByText("Model reply").id);

    fireEvent.keyDown(content, { key: "Enter", ctrlKey: true });
    await waitFor(() => {
      expect(state.channel).not.toBeNull();
    });
    expect(editorText()).toBe(REPLY);
    // With a selection in the editor, Esc still cancels the run rather than collapsing it.
    act(() => {
      editor().dispatch({ selection: { anchor: 0, head: 5 } });
    });
    fireEvent.keyDown(content, { key: "Escape" });
    await waitFor(() => {
      expect(only(calls, "cancel_run")).toHaveLength(1);
    });
    await act(async () => {
      done.resolve(outcome(REPLY, [OK_RESULT, BAD_RESULT], "block"));
      await done.promise;
    });
  });

  it("ignores Ctrl+Enter while the pane is hidden", async () => {
    const { calls } = runMock();
    renderPane(false);
    typeReply(REPLY);
    fireEvent.keyDown(window, { key: "Enter", ctrlKey: true });
    await new Promise((done) => setTimeout(done, 20));
    expect(only(calls, "run_reply")).toHaveLength(0);
  });

  it("shows a run's results on their own when the text changed, and a run failure inline", async () => {
    const { calls, done, state, send } = runMock();
    renderPane();
    await parseReply();
    fireEvent.click(screen.getByTestId("parser-run-all"));
    await waitFor(() => {
      expect(state.channel).not.toBeNull();
    });
    send({ event: "result_ready", index: 0, result: OK_RESULT });
    expect(within(requests()[0] ?? document.body).getByTestId("parser-result")).toBeTruthy();
    // The run keeps going on the text it was given; the new text gets parsed.
    typeReply(`${REPLY}\nmore`);
    await waitFor(() => {
      expect(only(calls, "parse_reply").at(-1)?.args.text).toBe(`${REPLY}\nmore`);
    });
    await waitFor(() => {
      expect(within(requests()[0] ?? document.body).queryByTestId("parser-result")).toBeNull();
    });
    expect(screen.getByTestId("parser-run").textContent).toContain("#1 calculator_evaluate");
    await act(async () => {
      done.resolve(outcome(REPLY, [OK_RESULT, BAD_RESULT], "block"));
      await done.promise;
    });

    mockCommands({
      parse_reply: () => parsed(),
      run_reply: () => {
        // eslint-disable-next-line @typescript-eslint/only-throw-error
        throw { kind: "history", message: "the run finished but could not be recorded: disk full", details: null };
      },
    });
    fireEvent.click(screen.getByTestId("parser-run-all"));
    const alert = await screen.findByText(/disk full/);
    expect(alert.closest("[data-testid=parser-error]")?.getAttribute("data-kind")).toBe("history");
  });
});

describe("ParserPane replay as stream", () => {
  it("streams the reply through the backend once and plays the timeline to the end", async () => {
    const text = REPLY;
    const start = new TextEncoder().encode(text.slice(0, text.indexOf(BLOCK_A))).length;
    const end = start + new TextEncoder().encode(BLOCK_A).length;
    const total = new TextEncoder().encode(text).length;
    const timeline: StreamReplay = {
      format: "vcp",
      incremental: true,
      delta_bytes: 4,
      total_bytes: total,
      deltas: Math.ceil(total / 4),
      calls: [
        {
          block: 0,
          start,
          started_at: start + 24,
          body_start: start + 20,
          completed_at: end,
          requests: [request(text, BLOCK_A, "calculator_evaluate", "call-1", { expression: "6*7" })],
        },
      ],
      diagnostics: [],
      reasoning: [],
      elapsed_ms: 0.2,
    };
    const calls = mockCommands({ parse_reply: () => parsed(), replay_stream: () => timeline });
    renderPane();
    typeReply(text);
    fireEvent.change(screen.getByTestId("replay-speed"), { target: { value: "20000" } });
    fireEvent.click(screen.getByTestId("replay-start"));
    await waitFor(() => {
      expect(screen.getByTestId("replay-progress").dataset.done).toBe("true");
    });
    expect(only(calls, "replay_stream")).toHaveLength(1);
    expect(only(calls, "replay_stream")[0]?.args).toEqual({ text, format: null, deltaBytes: 4 });
    const call = screen.getByTestId("replay-call");
    expect(call.dataset.state).toBe("complete");
    expect(within(call).getByTestId("replay-call-name").textContent).toBe("calculator_evaluate");
    expect(screen.getByTestId("replay-text").textContent).toBe(text);

    // Scrubbing back shows the call streaming, with its arguments so far, without a new request.
    fireEvent.change(screen.getByTestId("replay-scrub"), { target: { value: String(Math.ceil((start + 28) / 4)) } });
    expect(screen.getByTestId("replay-call").dataset.state).toBe("streaming");
    expect(only(calls, "replay_stream")).toHaveLength(1);
  });

  it("shows the backend's error in place", async () => {
    mockCommands({
      parse_reply: () => parsed(),
      replay_stream: () => {
        // eslint-disable-next-line @typescript-eslint/only-throw-error
        throw { kind: "unknown_format", message: "no tool-call format detected in this reply", details: null };
      },
    });
    renderPane();
    typeReply("just prose");
    fireEvent.click(screen.getByTestId("replay-start"));
    const notice = await screen.findByText("no tool-call format detected in this reply");
    expect(notice).toBeTruthy();
  });
});

/** Sends a reply to the Parser as another pane's "Open in Parser" does. */
function ParserLoader({ text, format }: { text: string; format: string }) {
  const { loadIntoParser } = useWorkbench();
  return (
    <button
      type="button"
      data-testid="load-into-parser"
      onClick={() => {
        loadIntoParser(text, format);
      }}
    />
  );
}

describe("ParserPane opened from another pane", () => {
  it("replaces the reply with the one sent, in its format, and parses it", async () => {
    const calls = mockCommands({ parse_reply: () => parsed() });
    render(
      <WorkbenchProvider initialPane="parser">
        <ParserPane active />
        <ParserLoader text={REPLY} format="hermes" />
      </WorkbenchProvider>,
    );
    typeReply("something typed before");
    fireEvent.click(screen.getByTestId("load-into-parser"));
    await waitFor(() => {
      expect(requests()).toHaveLength(2);
    });
    expect(editorText()).toBe(REPLY);
    expect(screen.getByTestId<HTMLSelectElement>("parser-format").value).toBe("hermes");
    expect(only(calls, "parse_reply").at(-1)?.args).toMatchObject({ format: "hermes" });
  });
});
