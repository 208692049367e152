/**
 * The Agent pane against a fake backend (mockIPC): profiles, a streamed two-turn conversation
 * with a confirmation answered with edited arguments, prompted-mode spans, stopping, and the
 * recorded conversations (list, open, replay, export, delete).
 */
import { EditorView } from "@codemirror/view";
import { clearMocks } from "@tauri-apps/api/mocks";
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import type { AgentEvent, AgentSettings, ConversationSummary, Decision, TimedRecord } from "../../lib/ipc";
import { useWorkbench, WorkbenchProvider } from "../../lib/workbench";
import { AgentPane } from "./AgentPane";
import { deferred, installAgentBackend, result, summary, type StartContext } from "./testBackend";

// As in the Executor's tests: the JSON editor's schema support is not needed here.
vi.mock("../executor/jsonSchemaSupport", () => ({ schemaSupport: () => [], setEditorSchema: () => undefined }));

const writeText = vi.fn((_text: string) => Promise.resolve());

beforeEach(() => {
  writeText.mockClear();
  Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
});

/** Where "Open in Parser" sends a reply. */
function ParserDraftProbe() {
  const { parserDraft, activePane } = useWorkbench();
  return (
    <output data-testid="parser-probe" data-pane={activePane}>
      {parserDraft ? JSON.stringify({ text: parserDraft.text, format: parserDraft.format }) : ""}
    </output>
  );
}

function renderPane(pollMs?: number) {
  return render(
    <WorkbenchProvider initialPane="agent">
      <AgentPane active pollMs={pollMs} />
      <ParserDraftProbe />
    </WorkbenchProvider>,
  );
}

afterEach(() => {
  cleanup();
  clearMocks();
  vi.restoreAllMocks();
});

/** Waits until `testId` is there and enabled (buttons are disabled while something loads). */
async function enabled(testId: string, container: HTMLElement = document.body): Promise<HTMLButtonElement> {
  return waitFor(() => {
    const button = within(container).getByTestId<HTMLButtonElement>(testId);
    if (button.disabled) throw new Error(`${testId} is disabled`);
    return button;
  });
}

async function ready() {
  await screen.findByRole("option", { name: "local (qwen3)" });
}

function setTask(text: string) {
  fireEvent.change(screen.getByTestId("agent-task"), { target: { value: text } });
}

describe("endpoint profiles", () => {
  it("adds a profile with a key entered once, and tests connections", async () => {
    const backend = installAgentBackend({
      tests: {
        local: { kind: "model", message: "unauthorized: the key is missing, wrong or lacks access", details: null },
        cloud: ["gpt-a", "gpt-b"],
      },
    });
    renderPane();
    await ready();

    fireEvent.click(await enabled("profile-add"));
    fireEvent.change(screen.getByTestId("profile-name"), { target: { value: "cloud" } });
    fireEvent.change(screen.getByTestId("profile-wire"), { target: { value: "anthropic" } });
    fireEvent.change(screen.getByTestId("profile-base-url"), { target: { value: "https://api.example.com/v1" } });
    fireEvent.change(screen.getByTestId("profile-model"), { target: { value: "claude-x" } });
    fireEvent.change(screen.getByTestId("profile-key-source"), { target: { value: "enter" } });
    const key = screen.getByTestId<HTMLInputElement>("profile-key");
    expect(key.type).toBe("password");
    fireEvent.change(key, { target: { value: "sk-secret" } });
    fireEvent.click(await enabled("profile-save"));

    const row = await screen.findByTestId("profile-cloud");
    expect(backend.argsOf("endpoint_save")).toEqual([
      {
        profile: { name: "cloud", wire: "anthropic", base_url: "https://api.example.com/v1", model: "claude-x", key_source: "stored", key_env: null },
        key: "sk-secret",
      },
    ]);
    expect(screen.queryByTestId("profile-form")).toBeNull();
    expect(document.body.textContent).not.toContain("sk-secret");
    expect(row.textContent).toContain("key: stored");

    fireEvent.click(await enabled("profile-test", row));
    expect((await within(row).findByTestId("profile-test-result")).textContent).toContain("gpt-b");

    const local = screen.getByTestId("profile-local");
    fireEvent.click(await enabled("profile-test", local));
    expect((await within(local).findByTestId("profile-test-result")).textContent).toContain("unauthorized: the key is missing");
  });

  it("refuses an incomplete profile and removes one after asking", async () => {
    const backend = installAgentBackend();
    renderPane();
    await ready();
    fireEvent.click(await enabled("profile-add"));
    fireEvent.change(screen.getByTestId("profile-name"), { target: { value: "x" } });
    fireEvent.click(await enabled("profile-save"));
    expect((await screen.findByTestId("profile-problem")).textContent).toContain("base URL");
    expect(backend.argsOf("endpoint_save")).toHaveLength(0);

    fireEvent.click(within(screen.getByTestId("profile-local")).getByTestId("profile-remove"));
    fireEvent.click(await screen.findByTestId("profile-remove-confirm"));
    await waitFor(() => {
      expect(screen.queryByTestId("profile-local")).toBeNull();
    });
    expect(backend.argsOf("endpoint_remove")).toEqual([{ name: "local" }]);
  });
});

describe("editing a profile", () => {
  it("renames it with a key from the environment, removing the old name", async () => {
    const backend = installAgentBackend();
    renderPane();
    await ready();
    fireEvent.click(within(screen.getByTestId("profile-local")).getByRole("button", { name: "Edit" }));
    expect(screen.getByTestId<HTMLInputElement>("profile-model").value).toBe("qwen3");
    fireEvent.change(screen.getByTestId("profile-name"), { target: { value: "lab" } });
    fireEvent.change(screen.getByTestId("profile-key-source"), { target: { value: "env" } });
    fireEvent.change(screen.getByTestId("profile-key-env"), { target: { value: "LAB_KEY" } });
    fireEvent.click(await enabled("profile-save"));
    await screen.findByTestId("profile-lab");
    expect(screen.queryByTestId("profile-local")).toBeNull();
    expect(backend.argsOf("endpoint_save")).toEqual([
      { profile: { name: "lab", wire: "openai_chat", base_url: "http://localhost:8080/v1", model: "qwen3", key_source: "env", key_env: "LAB_KEY" }, key: null },
    ]);
    expect(backend.argsOf("endpoint_remove")).toEqual([{ name: "local" }]);
    expect(screen.getByTestId("profile-lab").textContent).toContain("$LAB_KEY");
  });
});

/** Turn 1 streams a native call that needs confirmation; turn 2 answers. */
function twoTurns(decision: { promise: Promise<Decision> }, step: { promise: Promise<void> }) {
  return async ({ send }: StartContext) => {
    const agent = (event: AgentEvent) => {
      send({ kind: "agent", event });
    };
    send({ kind: "started", conversation_id: "conv-7" });
    agent({ type: "turn_started", turn: 1 });
    agent({ type: "reply", turn: 1, event: { type: "reasoning", text: "The user wants a file." } });
    agent({ type: "reply", turn: 1, event: { type: "text", text: "Writing the " } });
    agent({ type: "reply", turn: 1, event: { type: "call_started", index: 0, id: "call_1", name: "workspace_write" } });
    agent({ type: "reply", turn: 1, event: { type: "call_arguments", index: 0, fragment: '{"path":' } });
    await step.promise;
    agent({ type: "reply", turn: 1, event: { type: "text", text: "file." } });
    agent({ type: "reply", turn: 1, event: { type: "call_arguments", index: 0, fragment: '"a.txt"}' } });
    agent({
      type: "turn_parsed",
      turn: 1,
      reply: {
        text: "Writing the file.",
        reasoning: "The user wants a file.",
        calls: [{ id: "call_1", name: "workspace_write", arguments: '{"path":"a.txt"}' }],
        finish_reason: "tool_calls",
        usage: { input_tokens: 120, output_tokens: 30 },
      },
      report: { format: "openai_chat", detected: false, requests: [], diagnostics: [], content: "Writing the file." },
      timing: { first_token_ms: 210, first_call_ms: 350, total_ms: 900 },
    });
    send({
      kind: "confirmation_needed",
      confirmation_id: "confirm-1",
      turn: 1,
      request: { request_id: "call_1", routing_name: "workspace_write", args: { path: "a.txt" }, annotations: { destructive: true }, reason: "destructive" },
    });
    const answer = await decision.promise;
    const edited = answer.decision === "run" ? answer.edited?.path : undefined;
    const path = typeof edited === "string" ? edited : "a.txt";
    agent({
      type: "call_finished",
      turn: 1,
      result: result({ request_id: "call_1", tool_name: "workspace_write", result: `wrote ${path}`, duration_ms: 12 }),
      suggestion: null,
    });
    agent({ type: "turn_started", turn: 2 });
    agent({ type: "reply", turn: 2, event: { type: "text", text: `Done: ${path}.` } });
    agent({ type: "reply", turn: 2, event: { type: "finished", reason: "stop" } });
    agent({ type: "stopped", reason: { reason: "final" }, turns: 2, tool_calls: 1, usage: { input_tokens: 300, output_tokens: 50 } });
    return summary({ conversation_id: "conv-7", turns: 2, tool_calls: 1 });
  };
}

async function editorView(): Promise<EditorView> {
  const host = await within(await screen.findByTestId("agent-confirm-args")).findByTestId("executor-json-editor");
  return waitFor(
    () => {
      const view = host.querySelector(".cm-content") ? EditorView.findFromDOM(host) : null;
      if (!view) throw new Error("editor not mounted yet");
      return view;
    },
    { timeout: 5000 },
  );
}

describe("a live conversation", () => {
  it("streams two turns and runs the confirmed call with edited arguments", async () => {
    const decision = deferred<Decision>();
    const step = deferred<undefined>();
    const backend = installAgentBackend({
      start: twoTurns(decision, step),
      onConfirm: (_id, answer) => {
        decision.resolve(answer);
      },
    });
    renderPane();
    await ready();
    setTask("Write a.txt");
    fireEvent.click(screen.getByTestId("agent-mode-manual"));
    fireEvent.click(await enabled("agent-start"));

    // Mid-stream: the text so far and the call's arguments as they arrive.
    const turn1 = await screen.findByTestId("agent-turn");
    await waitFor(() => {
      expect(within(turn1).getByTestId("agent-turn-text").textContent).toBe("Writing the ");
    });
    expect(within(turn1).getByTestId("agent-native-call").textContent).toContain('{"path":');
    expect(within(turn1).getByText("streaming…")).toBeTruthy();
    expect(screen.getByTestId<HTMLButtonElement>("agent-start").disabled).toBe(true);
    act(() => {
      step.resolve(undefined);
    });

    const dialog = await screen.findByTestId("agent-confirm");
    expect(within(dialog).getByTestId("agent-confirm-name").textContent).toBe("workspace_write");
    expect(within(dialog).getByTestId("agent-confirm-reason").textContent).toContain("destructive");
    expect(within(turn1).getByTestId("agent-turn-text").textContent).toBe("Writing the file.");
    expect(within(turn1).getByTestId("agent-turn-facts").textContent).toContain("first token 210.0 ms");
    expect(within(turn1).getByTestId("agent-turn-facts").textContent).toContain("120 in / 30 out tokens");

    const view = await editorView();
    act(() => {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: '{ "path": "b.txt" }' }, userEvent: "input.type" });
    });
    // Enter runs (here with the edited arguments), once they are valid JSON.
    await enabled("agent-confirm-run");
    fireEvent.keyDown(dialog, { key: "Enter" });

    await screen.findByTestId("agent-ended");
    expect(screen.queryByTestId("agent-confirm")).toBeNull();
    const start = backend.argsOf("agent_start")[0];
    expect(start?.task).toBe("Write a.txt");
    expect((start?.settings as AgentSettings).mode).toBe("manual");
    expect(start?.tools).toBeNull();
    expect(backend.argsOf("agent_confirm")).toEqual([{ confirmationId: "confirm-1", decision: { decision: "run", edited: { path: "b.txt" } } }]);

    const turns = screen.getAllByTestId("agent-turn");
    expect(turns).toHaveLength(2);
    expect(within(turns[0] ?? document.body).getByTestId("agent-decision").textContent).toContain("run with edited arguments");
    expect(within(turns[0] ?? document.body).getByTestId("agent-result").textContent).toContain("wrote b.txt");
    expect(within(turns[1] ?? document.body).getByTestId("agent-turn-text").textContent).toBe("Done: b.txt.");
    expect(screen.getByTestId("agent-ended").textContent).toContain("The model answered without calling a tool.");
    await enabled("agent-start");

    // The finished conversation's record opens below.
    backend.records["conv-7"] = [];
    fireEvent.click(await enabled("agent-open-record"));
    await screen.findByTestId("agent-recorded");
    expect(backend.argsOf("conversation_load")).toEqual([{ id: "conv-7" }]);
  });

  it("denies with Esc and a reason, or stops the conversation from the dialog", async () => {
    const answers: Decision[] = [];
    const answered = { c1: deferred<undefined>(), c2: deferred<undefined>() };
    installAgentBackend({
      start: async ({ send }) => {
        for (const id of ["c1", "c2"] as const) {
          send({
            kind: "confirmation_needed",
            confirmation_id: id,
            turn: 1,
            request: { request_id: id, routing_name: "workspace_write", args: {}, annotations: {}, reason: "configured" },
          });
          await answered[id].promise;
        }
        return summary({ reason: { reason: "stopped" } });
      },
      onConfirm: (id, decision) => {
        answers.push(decision);
        answered[id === "c1" ? "c1" : "c2"].resolve(undefined);
      },
    });
    renderPane();
    await ready();
    setTask("go");
    fireEvent.keyDown(window, { key: "Enter", ctrlKey: true });
    const dialog = await screen.findByTestId("agent-confirm");
    fireEvent.change(within(dialog).getByTestId("agent-confirm-deny-reason"), { target: { value: "not that file" } });
    fireEvent.keyDown(dialog, { key: "Escape" });
    await waitFor(() => {
      expect(answers).toEqual([{ decision: "deny", reason: "not that file" }]);
    });
    fireEvent.click(within(await screen.findByTestId("agent-confirm")).getByTestId("agent-confirm-stop"));
    await waitFor(() => {
      expect(answers[1]).toEqual({ decision: "stop" });
    });
    await enabled("agent-start");
  });

  it("shows what the streaming parser finds in a prompted reply, retries, suggestions and feedback", async () => {
    const text = "Sure. <tool_call>{\"name\":\"calculator_evaluate\"}</tool_call>";
    const call = text.indexOf("<tool_call>");
    const step = deferred<undefined>();
    const backend = installAgentBackend({
      start: async ({ send }) => {
        const agent = (event: AgentEvent) => {
          send({ kind: "agent", event });
        };
        agent({ type: "retry", turn: 1, attempt: 1, of: 2, wait_ms: 1000, reason: "rate limited" });
        agent({ type: "reply", turn: 1, event: { type: "text", text } });
        agent({ type: "parse", turn: 1, event: { type: "call_started", block: 0, start: call } });
        agent({ type: "parse", turn: 1, event: { type: "arguments_delta", block: 0, span: { start: call + 11, end: call + 20 } } });
        await step.promise;
        agent({
          type: "parse",
          turn: 1,
          event: {
            type: "diagnostic",
            diagnostic: { severity: "error", code: "invalid_json", message: "arguments are missing", span: { start: call, end: text.length } },
          },
        });
        agent({ type: "call_finished", turn: 1, result: result({ status: "error", result: "bad", error: { kind: "invalid_args", message: "expression is required" } }), suggestion: "Pass expression as a string." });
        agent({ type: "feedback", turn: 1, text: "Your call had no arguments." });
        agent({ type: "stopped", reason: { reason: "max_iterations", limit: 1 }, turns: 1, tool_calls: 1, usage: { input_tokens: 1, output_tokens: 1 } });
        return summary({ reason: { reason: "max_iterations", limit: 1 } });
      },
    });
    renderPane();
    await ready();
    setTask("add");
    fireEvent.change(screen.getByTestId("agent-tool-mode"), { target: { value: "prompted" } });
    fireEvent.change(await screen.findByTestId("agent-format"), { target: { value: "hermes" } });
    fireEvent.click(await enabled("agent-start"));

    expect((await screen.findByTestId("agent-retry")).textContent).toBe("rate limited, retry 1 of 2 in 1.0 s");
    const mark = await waitFor(() => {
      const found = screen.getByTestId("agent-turn-text").querySelector("mark[data-kind='request']");
      if (!found) throw new Error("no mark yet");
      return found;
    });
    expect(mark.textContent).toBe('<tool_call>{"name":"');
    expect(screen.getByTestId("agent-open-block").textContent).toContain("arriving");
    act(() => {
      step.resolve(undefined);
    });
    expect((await screen.findByTestId("agent-diagnostic")).textContent).toContain("arguments are missing");
    expect(screen.getByTestId("agent-turn-text").querySelector("mark[data-kind='error']")).not.toBeNull();
    expect(screen.getByTestId("agent-suggestion").textContent).toContain("Pass expression as a string.");
    expect(screen.getByTestId("agent-result").textContent).toContain("invalid_args");
    expect(screen.getByTestId("agent-feedback").textContent).toContain("Your call had no arguments.");
    expect((await screen.findByTestId("agent-ended")).textContent).toContain("limit of 1 model requests");
    expect((backend.argsOf("agent_start")[0]?.settings as AgentSettings).tools).toEqual({ kind: "prompted", format: "hermes" });
  });

  it("stops with Esc or the Stop button by the run's id", async () => {
    const cancelled: string[] = [];
    let finish: () => void = () => undefined;
    installAgentBackend({
      start: ({ send }) =>
        new Promise((resolve) => {
          send({ kind: "agent", event: { type: "turn_started", turn: 1 } });
          finish = () => {
            send({ kind: "agent", event: { type: "stopped", reason: { reason: "stopped" }, turns: 1, tool_calls: 0, usage: { input_tokens: 0, output_tokens: 0 } } });
            resolve(summary({ reason: { reason: "stopped" } }));
          };
        }),
      onCancel: (runId) => {
        cancelled.push(runId);
        finish();
      },
    });
    const { container } = renderPane();
    await ready();
    setTask("long task");
    fireEvent.click(await enabled("agent-start"));
    await screen.findByTestId("agent-stop");
    fireEvent.keyDown(window, { key: "Escape" });
    expect((await screen.findByTestId("agent-ended")).textContent).toContain("Stopped by you.");
    expect(cancelled).toHaveLength(1);

    fireEvent.click(await enabled("agent-start"));
    fireEvent.click(await screen.findByTestId("agent-stop"));
    await waitFor(() => {
      expect(cancelled).toHaveLength(2);
    });
    expect(cancelled[0]).not.toBe(cancelled[1]);
    await enabled("agent-start");
    expect(container.querySelector("[data-testid='agent-failure']")).toBeNull();
  });

  it("takes its limits and confirmation mode from the app's settings", async () => {
    const backend = installAgentBackend({
      settings: { config: { max_iterations: 5, max_total_tool_calls: 7, mode: "manual" } },
    });
    renderPane();
    await ready();
    setTask("Count to three");
    await waitFor(() => {
      expect(screen.getByTestId<HTMLInputElement>("agent-mode-manual").checked).toBe(true);
    });
    fireEvent.click(await enabled("agent-start"));
    await waitFor(() => {
      expect(backend.argsOf("agent_start")).toHaveLength(1);
    });
    const settings = backend.argsOf("agent_start")[0]?.settings as AgentSettings;
    expect([settings.max_iterations, settings.max_total_tool_calls, settings.mode]).toEqual([5, 7, "manual"]);
  });

  it("says what is missing instead of starting", async () => {
    const backend = installAgentBackend();
    renderPane();
    await ready();
    fireEvent.click(await enabled("agent-start"));
    expect((await screen.findByTestId("agent-notice")).textContent).toContain("task");
    setTask("x");
    fireEvent.change(screen.getByTestId("agent-max-iterations"), { target: { value: "0" } });
    fireEvent.click(await enabled("agent-start"));
    expect((await screen.findByTestId("agent-notice")).textContent).toContain("Max iterations");
    expect(backend.argsOf("agent_start")).toHaveLength(0);
  });
});

const MODEL = { wire: "openai_chat", base_url: "http://localhost:8080/v1", model: "qwen3", native_protocol: "openai_chat" };

function recorded(): { list: ConversationSummary[]; records: TimedRecord[] } {
  const list: ConversationSummary[] = [
    { id: "new", started_at_ms: 2_000_000, task: "Newest task", model: "qwen3", turns: 2, tool_calls: 1, proxied: false, ended: { reason: "final" }, usage: { input_tokens: 1, output_tokens: 1 } },
    { id: "old", started_at_ms: 1_000_000, task: "Older task", model: "llama", turns: 1, tool_calls: 0, proxied: false, ended: null, usage: { input_tokens: 1, output_tokens: 1 } },
  ];
  const report = (name: string) => ({
    format: "hermes",
    detected: false,
    requests: [{ request_id: "r1", tool_name: name, args: { expression: "2+2" }, raw_block: "", span: { start: 0, end: 5 }, format: "hermes" }],
    diagnostics: [],
    content: "",
  });
  const records: TimedRecord[] = [
    { t_ms: 0, type: "started", id: "new", started_at_ms: 2_000_000, task: "Newest task", model: MODEL, settings: { tools: { kind: "prompted", format: "hermes" } }, tools: ["calculator_evaluate"] },
    { t_ms: 1, type: "request", turn: 1, body: {} },
    { t_ms: 400, type: "reply", turn: 1, reply: { text: "<tool_call>", reasoning: "", calls: [], finish_reason: "stop", usage: null }, timing: { first_token_ms: 100, first_call_ms: 200, total_ms: 399 } },
    { t_ms: 401, type: "parsed", turn: 1, report: report("calculator_evaluate") },
    { t_ms: 450, type: "result", turn: 1, result: result({ result: "4", duration_ms: 40 }) },
    { t_ms: 451, type: "request", turn: 2, body: {} },
    { t_ms: 700, type: "reply", turn: 2, reply: { text: "It is 4.", reasoning: "", calls: [], finish_reason: "stop", usage: null }, timing: { first_token_ms: 50, first_call_ms: null, total_ms: 249 } },
    { t_ms: 701, type: "ended", reason: { reason: "final" }, turns: 2, tool_calls: 1, usage: { input_tokens: 1, output_tokens: 1 } },
  ];
  return { list, records };
}

describe("recorded conversations", () => {
  it("lists newest first, opens one with its timeline, replays, exports a turn and deletes", async () => {
    const { list, records } = recorded();
    const backend = installAgentBackend({
      conversations: list,
      records: { new: records },
      replays: {
        new: [
          { turn: 1, recorded: null, today: { format: "hermes", detected: false, requests: [], diagnostics: [], content: "" }, changed: true },
          { turn: 2, recorded: null, today: { format: "hermes", detected: false, requests: [], diagnostics: [], content: "" }, changed: false },
        ],
      },
      exports: {
        "new#1": {
          reply: "<tool_call>",
          format: "hermes",
          request: "{}",
          curl: "curl http://localhost:8080/v1/chat/completions",
          eval_case: '{"id":"new#1","reply":"<tool_call>","expected":[]}',
        },
      },
    });
    renderPane();
    const rows = await screen.findAllByTestId("conversation-row");
    expect(rows.map((r) => r.querySelector(".ag-conversation-task")?.textContent)).toEqual(["Newest task", "Older task"]);
    expect(within(rows[1] ?? document.body).getByTestId("conversation-ended").textContent).toBe("unfinished");

    fireEvent.change(screen.getByTestId("conversation-search"), { target: { value: "llama" } });
    await waitFor(() => {
      expect(screen.getAllByTestId("conversation-row")).toHaveLength(1);
    });
    expect(backend.argsOf("conversations_list").at(-1)).toEqual({ query: "llama" });
    fireEvent.change(screen.getByTestId("conversation-search"), { target: { value: "" } });
    await waitFor(() => {
      expect(screen.getAllByTestId("conversation-row")).toHaveLength(2);
    });

    fireEvent.click(within(screen.getAllByTestId("conversation-row")[0] ?? document.body).getByTestId("conversation-open"));
    const opened = await screen.findByTestId("agent-recorded");
    const turns = within(opened).getAllByTestId("agent-turn");
    expect(turns).toHaveLength(2);
    expect(within(turns[0] ?? opened).getByTestId("agent-parsed-call").textContent).toContain("calculator_evaluate");
    expect(within(turns[0] ?? opened).getByTestId("agent-result").textContent).toContain("40.0 ms");
    expect(within(opened).getAllByTestId("agent-timeline-row")).toHaveLength(2);
    expect(within(opened).getByTestId("agent-ended").textContent).toContain("answered without calling");

    fireEvent.click(await enabled("agent-replay-run", opened));
    expect((await within(opened).findByTestId("agent-replay-summary")).textContent).toBe("Today's parser reads 1 of 2 replies differently.");
    expect(within(opened).getAllByTestId("agent-replay-turn").map((t) => t.dataset.changed)).toEqual(["true", "false"]);

    fireEvent.click(await enabled("agent-export-turn", turns[0] ?? opened));
    const exported = await within(turns[0] ?? opened).findByTestId("agent-turn-export");
    expect(within(exported).getByTestId("agent-export-format").textContent).toContain("hermes");
    fireEvent.click(within(exported).getByTestId("agent-copy-curl"));
    await waitFor(() => {
      expect(writeText).toHaveBeenCalledWith("curl http://localhost:8080/v1/chat/completions");
    });
    fireEvent.click(within(exported).getByTestId("agent-copy-reply"));
    await waitFor(() => {
      expect(writeText).toHaveBeenCalledWith("<tool_call>");
    });
    fireEvent.click(within(exported).getByTestId("agent-copy-eval-case"));
    await waitFor(() => {
      expect(writeText).toHaveBeenCalledWith('{"id":"new#1","reply":"<tool_call>","expected":[]}');
    });
    expect(backend.argsOf("conversation_turn_export")).toEqual([{ id: "new", turn: 1 }]);
    fireEvent.click(within(exported).getByTestId("agent-open-in-parser"));
    const probe = screen.getByTestId("parser-probe");
    expect(probe.dataset.pane).toBe("parser");
    expect(JSON.parse(probe.textContent || "null")).toEqual({ text: "<tool_call>", format: "hermes" });

    fireEvent.click(within(screen.getAllByTestId("conversation-row")[0] ?? document.body).getByTestId("conversation-delete"));
    fireEvent.click(await screen.findByTestId("conversation-delete-confirm"));
    await waitFor(() => {
      expect(screen.getAllByTestId("conversation-row")).toHaveLength(1);
    });
    expect(backend.argsOf("conversation_delete")).toEqual([{ id: "new" }]);
    expect(screen.queryByTestId("agent-recorded")).toBeNull();
  });

  it("reports a turn that cannot be exported", async () => {
    const { list, records } = recorded();
    installAgentBackend({ conversations: list, records: { new: records } });
    renderPane();
    fireEvent.click(within((await screen.findAllByTestId("conversation-row"))[0] ?? document.body).getByTestId("conversation-open"));
    const opened = await screen.findByTestId("agent-recorded");
    const second = within(opened).getAllByTestId("agent-turn")[1] ?? opened;
    fireEvent.click(await enabled("agent-export-turn", second));
    expect((await within(second).findByRole("alert")).textContent).toContain("turn 2 has no recorded reply");
  });

  it("shows a conversation the model proxy recorded, with its upstream and the calls found in its text", async () => {
    const list: ConversationSummary[] = [
      { id: "px", started_at_ms: 3_000_000, task: "Weather in Oslo?", model: "qwen3", turns: 1, tool_calls: 1, proxied: true, ended: null, usage: { input_tokens: 0, output_tokens: 0 } },
    ];
    const records: TimedRecord[] = [
      { t_ms: 0, type: "proxied", id: "px", started_at_ms: 3_000_000, first_message: "Weather in Oslo?", model: MODEL, upstream: "http://127.0.0.1:8000/v1", tools: ["get_weather"] },
      { t_ms: 1, type: "request", turn: 1, body: {} },
      { t_ms: 300, type: "reply", turn: 1, reply: { text: "<tool_call>", reasoning: "", calls: [], finish_reason: "stop", usage: null }, timing: { first_token_ms: 90, first_call_ms: null, total_ms: 299 } },
      {
        t_ms: 301,
        type: "parsed",
        turn: 1,
        report: {
          format: "hermes",
          detected: true,
          requests: [{ request_id: "r1", tool_name: "get_weather", args: { city: "Oslo" }, raw_block: "", span: { start: 0, end: 5 }, format: "hermes" }],
          diagnostics: [],
          content: "",
        },
      },
    ];
    installAgentBackend({ conversations: list, records: { px: records } });
    renderPane();
    const [row] = await screen.findAllByTestId("conversation-row");
    expect(row?.querySelector(".ag-conversation-task")?.textContent).toBe("proxy Weather in Oslo?");
    expect(within(row ?? document.body).getByTestId("conversation-ended").textContent).toBe("watched");
    fireEvent.click(within(row ?? document.body).getByTestId("conversation-open"));
    const opened = await screen.findByTestId("agent-recorded");
    expect(opened.textContent).toContain("recorded by the model proxy on its way to http://127.0.0.1:8000/v1");
    expect(opened.textContent).toContain("get_weather");
  });

  it("shows a watched conversation's new turns as the model proxy records them", async () => {
    const summary = (turns: number): ConversationSummary => ({
      id: "px",
      started_at_ms: 3_000_000,
      task: "Weather in Oslo?",
      model: "qwen3",
      turns,
      tool_calls: 0,
      proxied: true,
      ended: null,
      usage: { input_tokens: 0, output_tokens: 0 },
    });
    const turn = (n: number, text: string): TimedRecord[] => [
      { t_ms: n * 10, type: "request", turn: n, body: {} },
      { t_ms: n * 10 + 5, type: "reply", turn: n, reply: { text, reasoning: "", calls: [], finish_reason: "stop", usage: null }, timing: { first_token_ms: 1, first_call_ms: null, total_ms: 5 } },
    ];
    const records: TimedRecord[] = [
      { t_ms: 0, type: "proxied", id: "px", started_at_ms: 3_000_000, first_message: "Weather in Oslo?", model: MODEL, upstream: "http://127.0.0.1:8000/v1", tools: [] },
      ...turn(1, "Let me think."),
    ];
    const backend = installAgentBackend({ conversations: [summary(1)], records: { px: records } });
    renderPane(20);
    fireEvent.click(within((await screen.findAllByTestId("conversation-row"))[0] ?? document.body).getByTestId("conversation-open"));
    const opened = await screen.findByTestId("agent-recorded");
    expect(within(opened).getAllByTestId("agent-turn")).toHaveLength(1);

    // The agent takes a second turn through the proxy: the list and the opened view follow.
    records.push(...turn(2, "It is sunny in Oslo."));
    backend.conversations = [summary(2)];
    await waitFor(() => {
      expect(within(screen.getByTestId("agent-recorded")).getAllByTestId("agent-turn")).toHaveLength(2);
    });
    expect(screen.getByTestId("agent-recorded").textContent).toContain("It is sunny in Oslo.");
  });
});
