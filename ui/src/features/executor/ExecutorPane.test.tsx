/**
 * The Executor pane against a fake backend (mockIPC): drafts, form and JSON modes, runs,
 * results, confirmation, cancellation, settings and history.
 */
import { EditorView } from "@codemirror/view";
import { clearMocks } from "@tauri-apps/api/mocks";
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import type { ManualCall, TaskProgress, Value } from "../../lib/ipc";
import { useWorkbench, WorkbenchProvider } from "../../lib/workbench";
import { ExecutorPane } from "./ExecutorPane";
import { stubLayout } from "../discovery/testing";
import { deferred, entry, installBackend, result, WRITE_SCHEMA, type FakeBackend } from "./testBackend";
import { HISTORY_ROW_HEIGHT } from "./HistoryRows";
import { HISTORY_PAGE, HISTORY_WINDOW, REFRESH_PAGE } from "./useHistory";

// codemirror-json-schema's ESM build uses extension-less relative imports, which vitest's Node
// loader cannot resolve for an externalized dependency; the editor gets a recording stand-in here
// (the real wiring is covered by jsonSchemaSupport.test.ts).
const schemaCalls = vi.hoisted(() => ({ initial: [] as unknown[], updates: [] as unknown[] }));
vi.mock("./jsonSchemaSupport", () => ({
  schemaSupport: (schema: unknown) => {
    schemaCalls.initial.push(schema);
    return [];
  },
  setEditorSchema: (_view: unknown, schema: unknown) => {
    schemaCalls.updates.push(schema);
  },
}));

beforeEach(() => {
  schemaCalls.initial.length = 0;
  schemaCalls.updates.length = 0;
});

afterEach(() => {
  cleanup();
  clearMocks();
  vi.restoreAllMocks();
});

/** Lets the test play another pane: "load into executor". */
function DraftSender({ toolName, args, parentId }: { toolName: string; args: Record<string, Value>; parentId: string | null }) {
  const { loadIntoExecutor } = useWorkbench();
  return (
    <button
      type="button"
      data-testid="send-draft"
      onClick={() => {
        loadIntoExecutor(toolName, args, parentId);
      }}
    >
      send
    </button>
  );
}

function renderPane(
  active = true,
  draft: { toolName: string; args: Record<string, Value>; parentId: string | null } = {
    toolName: "workspace_write",
    args: {},
    parentId: null,
  },
) {
  const ui = (isActive: boolean) => (
    <WorkbenchProvider initialPane="executor">
      <DraftSender {...draft} />
      <ExecutorPane active={isActive} />
    </WorkbenchProvider>
  );
  const rendered = render(ui(active));
  return {
    ...rendered,
    setActive: (next: boolean) => {
      rendered.rerender(ui(next));
    },
  };
}

const nameInput = () => screen.getByTestId<HTMLInputElement>("executor-tool-name");
/** An element rendered by the form, by its rjsf id (`root_` + path joined with `_`). */
function fieldElement(id: string): HTMLElement {
  const element = document.getElementById(`root_${id}`);
  if (!element) throw new Error(`no field ${id}`);
  return element;
}
function field(id: string): HTMLInputElement {
  const element = fieldElement(id);
  if (!(element instanceof HTMLInputElement)) throw new Error(`${id} is not an input`);
  return element;
}
function select(id: string): HTMLSelectElement {
  const element = fieldElement(id);
  if (!(element instanceof HTMLSelectElement)) throw new Error(`${id} is not a select`);
  return element;
}
function at<T>(list: readonly T[], index: number): T {
  const item = list[index];
  if (item === undefined) throw new Error(`no item ${String(index)}`);
  return item;
}

/** Types the name into the combobox and picks the matching option once the methods are listed. */
async function chooseTool(name: string) {
  fireEvent.focus(nameInput());
  fireEvent.change(nameInput(), { target: { value: name } });
  fireEvent.mouseDown(await screen.findByRole("option", { name: new RegExp(name) }));
  expect(nameInput().value).toBe(name);
  await screen.findByTestId("executor-method-info");
}

async function editor(): Promise<EditorView> {
  const host = await screen.findByTestId("executor-json-editor");
  return waitFor(
    () => {
      const view = host.querySelector(".cm-content") ? EditorView.findFromDOM(host) : null;
      if (!view) throw new Error("editor not mounted yet");
      return view;
    },
    { timeout: 5000 },
  );
}

async function typeInEditor(text: string) {
  const view = await editor();
  act(() => {
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text }, userEvent: "input.type" });
  });
}

/** jsdom's Blob has no text(). */
function readBlob(blob: Blob | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    if (!blob) {
      reject(new Error("no blob"));
      return;
    }
    const reader = new FileReader();
    reader.onload = () => {
      resolve(typeof reader.result === "string" ? reader.result : "");
    };
    reader.onerror = () => {
      reject(new Error("unreadable blob"));
    };
    reader.readAsText(blob);
  });
}

const lastCall = (backend: FakeBackend) => backend.argsOf("execute_call").at(-1)?.call as ManualCall | undefined;

describe("drafts from the workbench", () => {
  it("load the routing name, the arguments and the parent into the editor", async () => {
    const backend = installBackend();
    renderPane(true, { toolName: "workspace_write", args: { path: "notes/a.txt", options: { mkdir: true } }, parentId: "entry-7" });
    fireEvent.click(screen.getByTestId("send-draft"));
    expect(nameInput().value).toBe("workspace_write");
    await screen.findByTestId("executor-method-info");
    expect(field("path").value).toBe("notes/a.txt");
    expect(field("options_mkdir").checked).toBe(true);
    expect(screen.getByTestId("executor-parent").textContent).toContain("entry-7");

    // Exactly the draft is sent: no schema default slipped in, and the parent is kept.
    fireEvent.click(screen.getByTestId("executor-run"));
    await screen.findByTestId("executor-result");
    expect(lastCall(backend)).toEqual({
      tool_name: "workspace_write",
      args: { path: "notes/a.txt", options: { mkdir: true } },
      parent_id: "entry-7",
    });
  });

  it("replace JSON mode's text with the draft", async () => {
    installBackend();
    renderPane(true, { toolName: "calculator_evaluate", args: { expression: "1+1" }, parentId: null });
    fireEvent.click(screen.getByTestId("executor-mode-json"));
    await typeInEditor("{ broken");
    fireEvent.click(screen.getByTestId("send-draft"));
    const view = await editor();
    await waitFor(() => {
      expect(JSON.parse(view.state.doc.toString())).toEqual({ expression: "1+1" });
    });
    expect(screen.queryByTestId("executor-json-error")).toBeNull();
  });
});

describe("form mode", () => {
  it("renders fields from a nested schema: required, enum with default, nested object, array of objects, oneOf", async () => {
    installBackend();
    renderPane();
    await chooseTool("workspace_write");
    expect(screen.getByTestId("executor-method-info").textContent).toContain("Writes a file in the workspace.");
    expect(screen.getByTestId("executor-method-info").textContent).toContain("destructive");

    const path = field("path");
    expect(path.required).toBe(true);
    expect(document.querySelector("label[for='root_path']")?.textContent).toContain("Path");
    const mode = select("mode");
    expect([...mode.options].map((o) => o.textContent)).toEqual(["overwrite", "append"]);
    expect(mode.selectedOptions[0]?.textContent).toBe("overwrite"); // the schema default, for a fresh call
    expect(field("options_mkdir").type).toBe("checkbox");
    expect(field("options_encoding").tagName).toBe("INPUT");
    expect(select("target__oneof_select").options).toHaveLength(2);

    fireEvent.click(within(fieldElement("tags")).getByRole("button", { name: "Add" }));
    expect(field("tags_0_key")).toBeTruthy();
    expect(field("tags_0_value")).toBeTruthy();
  });

  it("completes routing names from the listed methods with the keyboard", async () => {
    installBackend();
    renderPane();
    fireEvent.focus(nameInput());
    fireEvent.change(nameInput(), { target: { value: "eval" } });
    const listbox = await screen.findByRole("listbox");
    expect(within(listbox).getAllByRole("option").map((o) => o.querySelector("code")?.textContent)).toEqual([
      "calculator_evaluate",
    ]);
    expect(nameInput().getAttribute("aria-expanded")).toBe("true");
    fireEvent.keyDown(nameInput(), { key: "ArrowDown" });
    expect(nameInput().getAttribute("aria-activedescendant")).toBe(within(listbox).getByRole("option").id);
    fireEvent.keyDown(nameInput(), { key: "Enter" });
    expect(nameInput().value).toBe("calculator_evaluate");
    expect(nameInput().getAttribute("aria-expanded")).toBe("false");
    expect((await screen.findByTestId("executor-method-info")).textContent).toContain("read-only");
  });

  it("keeps and sends arguments the schema has no field for", async () => {
    const backend = installBackend();
    renderPane(true, { toolName: "calculator_evaluate", args: { expression: "1", precision: 3 }, parentId: null });
    fireEvent.click(screen.getByTestId("send-draft"));
    expect((await screen.findByTestId("executor-extra-keys")).textContent).toContain('"precision"');
    fireEvent.change(field("expression"), { target: { value: "2" } });
    fireEvent.click(screen.getByTestId("executor-run"));
    await screen.findByTestId("executor-result");
    expect(lastCall(backend)?.args).toEqual({ expression: "2", precision: 3 });
  });

  it("live-validates with the cfworker validator and shows the errors in place", async () => {
    installBackend();
    renderPane();
    await chooseTool("workspace_write");
    fireEvent.change(field("path"), { target: { value: "x" } });
    fireEvent.change(field("path"), { target: { value: "" } });
    await waitFor(() => {
      expect(document.getElementById("root_path__error")?.textContent).toContain("is a required property");
    });
  });
});

describe("form ↔ JSON", () => {
  it("keeps values in sync both ways", async () => {
    installBackend();
    renderPane();
    await chooseTool("workspace_write");
    fireEvent.change(field("path"), { target: { value: "a.txt" } });
    fireEvent.click(field("options_mkdir"));

    fireEvent.click(screen.getByTestId("executor-mode-json"));
    expect(screen.getByTestId("executor-mode-json").getAttribute("aria-selected")).toBe("true");
    const view = await editor();
    expect(JSON.parse(view.state.doc.toString())).toEqual({ path: "a.txt", mode: "overwrite", options: { mkdir: true } });
    // The JSON editor validates and completes against the method's schema.
    expect(schemaCalls.initial.at(-1)).toEqual(WRITE_SCHEMA);

    await typeInEditor('{"path": "b.txt", "mode": "append", "tags": [{"key": "k"}]}');
    fireEvent.click(screen.getByTestId("executor-mode-form"));
    expect(screen.getByTestId("executor-mode-form").getAttribute("aria-selected")).toBe("true");
    expect(field("path").value).toBe("b.txt");
    expect(select("mode").selectedOptions[0]?.textContent).toBe("append");
    expect(field("tags_0_key").value).toBe("k");
    expect(field("options_mkdir").checked).toBe(false);
  });

  it("shows invalid JSON inline, refuses to switch to the form, never loses the text and does not run it", async () => {
    const backend = installBackend();
    renderPane();
    await chooseTool("calculator_evaluate");
    fireEvent.click(screen.getByTestId("executor-mode-json"));
    const broken = '{\n  "expression": "6*7",\n}';
    await typeInEditor(broken);

    expect((await screen.findByTestId("executor-json-error")).textContent).toBe(
      "Invalid JSON at line 3, column 1: trailing comma before '}'",
    );
    fireEvent.click(screen.getByTestId("executor-mode-form"));
    expect(screen.getByTestId("executor-mode-notice").textContent).toContain("Cannot switch to the form");
    expect(screen.getByTestId("executor-mode-json").getAttribute("aria-selected")).toBe("true");
    expect((await editor()).state.doc.toString()).toBe(broken);

    fireEvent.click(screen.getByTestId("executor-run"));
    expect(screen.getByTestId("executor-run-notice").textContent).toContain("Not run: Invalid JSON at line 3");
    expect(backend.argsOf("execute_call")).toHaveLength(0);
    expect((await editor()).state.doc.toString()).toBe(broken);

    await typeInEditor('{\n  "expression": "6*7"\n}');
    await waitFor(() => {
      expect(screen.queryByTestId("executor-json-error")).toBeNull();
    });
    fireEvent.click(screen.getByTestId("executor-mode-form"));
    expect(field("expression").value).toBe("6*7");
  });
});

describe("running", () => {
  it("shows the result with status, duration and pretty-printed JSON", async () => {
    const backend = installBackend({
      execute: () => result({ result: '{"value":42,"steps":["6*7"]}', duration_ms: 12 }),
    });
    renderPane();
    await chooseTool("calculator_evaluate");
    fireEvent.change(field("expression"), { target: { value: "6*7" } });
    const historyCalls = backend.argsOf("history_list").length;
    fireEvent.click(screen.getByTestId("executor-run"));

    const panel = await screen.findByTestId("executor-result");
    expect(panel.getAttribute("data-status")).toBe("success");
    expect(within(panel).getByTestId("executor-result-status").textContent).toBe("success");
    expect(within(panel).getByTestId("executor-result-duration").textContent).toBe("12.0 ms");
    expect(screen.getByTestId("executor-result-body").textContent).toBe(
      JSON.stringify({ value: 42, steps: ["6*7"] }, null, 2),
    );
    expect(lastCall(backend)).toEqual({ tool_name: "calculator_evaluate", args: { expression: "6*7" }, parent_id: null });
    expect(backend.argsOf("execute_call")[0]?.runId).toEqual(expect.any(String));
    await waitFor(() => {
      expect(backend.argsOf("history_list").length).toBeGreaterThan(historyCalls);
    });
  });

  it("renders a non-JSON result as text, never as HTML", async () => {
    installBackend({ execute: () => result({ result: "<img src=x onerror=alert(1)><b>bold</b>" }) });
    renderPane();
    await chooseTool("calculator_evaluate");
    fireEvent.click(screen.getByTestId("executor-run"));
    const body = await screen.findByTestId("executor-result-body");
    expect(body.textContent).toBe("<img src=x onerror=alert(1)><b>bold</b>");
    expect(body.querySelector("img, b")).toBeNull();
    expect(body.getAttribute("data-format")).toBe("text");
  });

  it("shows a classified error with its kind and argument issues, also on the form's fields", async () => {
    installBackend({
      execute: () =>
        result({
          tool_name: "workspace_write",
          status: "error",
          result: "invalid arguments",
          error: {
            kind: "invalid_args",
            message: "2 argument problems",
            issues: [
              { path: "/path", message: "must not be empty" },
              { path: "/options/mkdir", message: "must be a boolean" },
            ],
          },
          truncated: { original_bytes: 70000, kept_bytes: 65536 },
        }),
    });
    renderPane();
    await chooseTool("workspace_write");
    fireEvent.change(field("path"), { target: { value: "p" } });
    fireEvent.click(screen.getByTestId("executor-run"));

    const panel = await screen.findByTestId("executor-result");
    expect(panel.getAttribute("data-status")).toBe("error");
    expect(within(panel).getByTestId("executor-error-kind").textContent).toBe("invalid_args");
    expect(within(panel).getByTestId("executor-result-error").textContent).toContain("2 argument problems");
    expect([...within(panel).getByTestId("executor-issues").querySelectorAll("li")].map((li) => li.textContent)).toEqual([
      "- /path: must not be empty",
      "- /options/mkdir: must be a boolean",
    ]);
    expect(within(panel).getByTestId("executor-truncated").textContent).toContain("kept 64.0 KiB of 68.4 KiB");
    await waitFor(() => {
      expect(document.getElementById("root_path__error")?.textContent).toContain("must not be empty");
    });
  });

  it("says when an unknown routing name is typed, and still runs it", async () => {
    const backend = installBackend({
      execute: ({ call }) =>
        result({
          tool_name: call.tool_name,
          status: "error",
          result: "no tool nope",
          error: { kind: "tool_not_found", message: "no tool nope" },
        }),
    });
    renderPane();
    await waitFor(() => {
      expect(backend.argsOf("list_tools")).toHaveLength(1);
    });
    fireEvent.change(nameInput(), { target: { value: "nope_missing" } });
    expect((await screen.findByTestId("executor-unknown-name")).textContent).toContain("Unknown routing name");
    expect(screen.getByTestId("executor-form-unavailable")).toBeTruthy();
    fireEvent.click(screen.getByTestId("executor-run"));
    expect((await screen.findByTestId("executor-error-kind")).textContent).toBe("tool_not_found");
    expect(lastCall(backend)?.tool_name).toBe("nope_missing");
  });

  it("shows the engine's suggestion as a hint under the error, and none for a success", async () => {
    const suggestion = 'There is no tool named \'workspace_wrte\'. Did you mean: workspace_write?';
    installBackend({
      execute: ({ call }) =>
        call.tool_name === "workspace_wrte"
          ? result({
              tool_name: call.tool_name,
              status: "error",
              result: "no method wrte",
              error: { kind: "method_not_found", message: "no method wrte", suggestion },
            })
          : result({ tool_name: call.tool_name, result: "written" }),
    });
    renderPane();
    fireEvent.change(nameInput(), { target: { value: "workspace_wrte" } });
    fireEvent.click(screen.getByTestId("executor-run"));
    const hint = await screen.findByTestId("executor-suggestion");
    expect(hint.textContent).toBe(`Suggestion ${suggestion}`);
    expect(hint.className).toBe("suggestion-hint");
    // Inside the error block, after the message.
    expect(screen.getByTestId("executor-result-error").lastElementChild).toBe(hint);

    fireEvent.change(nameInput(), { target: { value: "workspace_write" } });
    fireEvent.click(screen.getByTestId("executor-run"));
    await waitFor(() => {
      expect(screen.getByTestId("executor-result").getAttribute("data-status")).toBe("success");
    });
    expect(screen.queryByTestId("executor-suggestion")).toBeNull();
  });

  it("asks in a dialog before a destructive call and sends the answer", async () => {
    const answers: { id: string; approve: boolean }[] = [];
    const answered = deferred<boolean>();
    const backend = installBackend({
      execute: async ({ call, send }) => {
        send({
          event: "confirmation_needed",
          confirmation_id: "conf-1",
          request: { request_id: "r", routing_name: call.tool_name, args: call.args, annotations: { destructive: true }, reason: "destructive" },
        });
        const approved = await answered.promise;
        return approved
          ? result({ tool_name: call.tool_name, result: "written" })
          : result({ tool_name: call.tool_name, status: "error", result: "denied", error: { kind: "denied", message: "denied" } });
      },
      onAnswer: (id, approve) => {
        answers.push({ id, approve });
        answered.resolve(approve);
      },
    });
    renderPane(true, { toolName: "workspace_write", args: { path: "a.txt" }, parentId: null });
    fireEvent.click(screen.getByTestId("send-draft"));
    fireEvent.click(screen.getByTestId("executor-run"));

    const dialog = await screen.findByTestId("confirm-dialog");
    expect(screen.getByRole("alertdialog")).toBe(dialog);
    expect(within(dialog).getByTestId("confirm-tool-name").textContent).toBe("workspace_write");
    expect(within(dialog).getByTestId("confirm-reason").textContent).toContain("destructive");
    expect(JSON.parse(within(dialog).getByTestId("confirm-args").textContent)).toEqual({ path: "a.txt" });
    expect(document.activeElement).toBe(within(dialog).getByTestId("confirm-deny"));

    fireEvent.click(within(dialog).getByTestId("confirm-approve"));
    expect(screen.queryByTestId("confirm-dialog")).toBeNull();
    expect((await screen.findByTestId("executor-result")).getAttribute("data-status")).toBe("success");
    expect(answers).toEqual([{ id: "conf-1", approve: true }]);
    expect(backend.argsOf("answer_confirmation")).toEqual([{ confirmationId: "conf-1", approve: true }]);
  });

  it("denies with Esc", async () => {
    const answered = deferred<boolean>();
    installBackend({
      execute: async ({ call, send }) => {
        send({
          event: "confirmation_needed",
          confirmation_id: "conf-2",
          request: { request_id: "r", routing_name: call.tool_name, args: call.args, annotations: {}, reason: "configured" },
        });
        await answered.promise;
        return result({ status: "error", result: "denied", error: { kind: "denied", message: "denied by the user" } });
      },
      onAnswer: (_id, approve) => {
        answered.resolve(approve);
      },
    });
    renderPane(true, { toolName: "workspace_write", args: { path: "a.txt" }, parentId: null });
    fireEvent.click(screen.getByTestId("send-draft"));
    fireEvent.click(screen.getByTestId("executor-run"));
    const dialog = await screen.findByTestId("confirm-dialog");
    expect(within(dialog).getByTestId("confirm-reason").textContent).toContain("configuration");
    fireEvent.keyDown(dialog, { key: "Escape" });
    expect(await answered.promise).toBe(false);
    expect((await screen.findByTestId("executor-error-kind")).textContent).toBe("denied");
  });

  it("shows a run as running only once it has lasted a moment: a quick one just shows its result", async () => {
    const slow = deferred<null>();
    let calls = 0;
    installBackend({
      execute: async () => {
        calls += 1;
        if (calls === 2) await slow.promise;
        return result({ result: `run ${String(calls)}` });
      },
    });
    renderPane(true, { toolName: "calculator_evaluate", args: { expression: "1" }, parentId: null });
    fireEvent.click(screen.getByTestId("send-draft"));
    const cancel = screen.getByTestId<HTMLButtonElement>("executor-cancel");
    const runButton = screen.getByTestId<HTMLButtonElement>("executor-run");
    // Every state the Cancel button and Run pass through, not only the last.
    const seen: string[] = [];
    const observer = new MutationObserver(() => {
      seen.push(`${cancel.dataset.shown ?? "?"}/${String(runButton.disabled)}`);
    });
    observer.observe(cancel, { attributes: true });
    observer.observe(runButton, { attributes: true });

    fireEvent.click(runButton);
    expect((await screen.findByTestId("executor-result-body")).textContent).toBe("run 1");
    expect(seen).toEqual([]);

    fireEvent.click(runButton);
    expect(cancel.dataset.shown).toBe("false");
    await waitFor(() => {
      expect(cancel.dataset.shown).toBe("true");
    });
    expect(runButton.disabled).toBe(true);
    slow.resolve(null);
    await waitFor(() => {
      expect(screen.getByTestId("executor-result-body").textContent).toBe("run 2");
    });
    await waitFor(() => {
      expect(cancel.dataset.shown).toBe("false");
    });
    observer.disconnect();
  });

  it("cancels the run by its id (button and Esc)", async () => {
    for (const how of ["button", "escape"] as const) {
      const cancelled = deferred<string>();
      const backend = installBackend({
        execute: async () => {
          await cancelled.promise;
          return result({ status: "error", result: "cancelled", error: { kind: "cancelled", message: "cancelled by the user" } });
        },
        onCancel: (runId) => {
          cancelled.resolve(runId);
        },
      });
      renderPane(true, { toolName: "calculator_evaluate", args: { expression: "1" }, parentId: null });
      fireEvent.click(screen.getByTestId("send-draft"));
      fireEvent.click(screen.getByTestId("executor-run"));
      const cancel = screen.getByTestId<HTMLButtonElement>("executor-cancel");
      await waitFor(() => {
        expect(cancel.disabled).toBe(false);
      });
      expect(cancel.dataset.shown).toBe("true");
      expect(screen.getByTestId<HTMLButtonElement>("executor-run").disabled).toBe(true);
      if (how === "button") fireEvent.click(cancel);
      else fireEvent.keyDown(window, { key: "Escape" });
      const runId = backend.argsOf("execute_call")[0]?.runId;
      expect(await cancelled.promise).toBe(runId);
      expect((await screen.findByTestId("executor-error-kind")).textContent).toBe("cancelled");
      // Idle, the Cancel button keeps its place (the bar never reflows) but is hidden and off.
      expect(cancel.disabled).toBe(true);
      expect(cancel.dataset.shown).toBe("false");
      cleanup();
      clearMocks();
    }
  });

  it("shows the running call's progress: a bar when the total is known, else the count", async () => {
    const finish = deferred<null>();
    let send:
      | ((progress: { progress: number | null; total: number | null; message: string | null; task?: TaskProgress }) => void)
      | null = null;
    const started = deferred<null>();
    installBackend({
      execute: async (context) => {
        send = (progress) => {
          context.send({ event: "progress", progress: { request_id: "req-1", task: null, ...progress } });
        };
        started.resolve(null);
        await finish.promise;
        return result({ result: "slept 1 s" });
      },
    });
    renderPane(true, { toolName: "calculator_evaluate", args: { expression: "1" }, parentId: null });
    fireEvent.click(screen.getByTestId("send-draft"));
    fireEvent.click(screen.getByTestId("executor-run"));
    await started.promise;
    act(() => {
      send?.({ progress: 3, total: 10, message: "step 3 of 10" });
    });
    const bar = screen.getByRole("progressbar");
    expect(bar.getAttribute("value")).toBe("3");
    expect(bar.getAttribute("max")).toBe("10");
    expect(screen.getByTestId("executor-progress-count").textContent).toBe("3 / 10");
    expect(screen.getByTestId("executor-progress-message").textContent).toBe("step 3 of 10");
    act(() => {
      send?.({ progress: 7, total: null, message: null });
    });
    expect(screen.queryByRole("progressbar")).toBeNull();
    expect(screen.getByTestId("executor-progress-count").textContent).toBe("progress 7");
    expect(screen.queryByTestId("executor-progress-task")).toBeNull();
    // A call its MCP server runs as a task: the task's status, and no empty count.
    act(() => {
      send?.({ progress: 0, total: null, message: "Gathering sources...", task: { task_id: "t-1", status: "working" } });
    });
    expect(screen.getByTestId("executor-progress-task").textContent).toBe("Task running");
    expect(screen.getByTestId("executor-progress-task").getAttribute("title")).toBe("MCP task t-1");
    expect(screen.queryByTestId("executor-progress-count")).toBeNull();
    expect(screen.getByTestId("executor-progress-message").textContent).toBe("Gathering sources...");
    act(() => {
      send?.({ progress: 0, total: null, message: "Which one?", task: { task_id: "t-1", status: "input_required" } });
    });
    expect(screen.getByTestId("executor-progress-task").textContent).toBe("Task waiting for input");
    finish.resolve(null);
    expect((await screen.findByTestId("executor-result-body")).textContent).toBe("slept 1 s");
    expect(screen.queryByTestId("executor-progress")).toBeNull();
  });

  it("renders an MCP content result block by block, with the raw JSON a toggle away", async () => {
    const rich = JSON.stringify({
      content: [
        { type: "text", text: "<b>not bold</b>" },
        { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
      ],
      structuredContent: { sum: 3 },
    });
    installBackend({ execute: () => result({ tool_name: "srv_rich", result: rich }) });
    renderPane(true, { toolName: "calculator_evaluate", args: { expression: "1" }, parentId: null });
    fireEvent.click(screen.getByTestId("send-draft"));
    fireEvent.click(screen.getByTestId("executor-run"));
    const body = await screen.findByTestId("executor-result-body");
    expect(body.dataset.format).toBe("mcp");
    expect(body.querySelector("b")).toBeNull();
    expect(body.textContent).toContain("<b>not bold</b>");
    expect(body.querySelector("img")?.getAttribute("src")).toBe("data:image/png;base64,iVBORw0KGgo=");
    fireEvent.click(within(body).getByTestId("mcp-raw-toggle"));
    expect(JSON.parse(body.querySelector("pre")?.textContent ?? "")).toEqual(JSON.parse(rich));
  });

  it("runs with Ctrl+Enter or Cmd+Enter only while the pane is active", async () => {
    const backend = installBackend();
    const { setActive } = renderPane(false, { toolName: "calculator_evaluate", args: { expression: "2" }, parentId: null });
    fireEvent.click(screen.getByTestId("send-draft"));
    fireEvent.keyDown(window, { key: "Enter", ctrlKey: true });
    expect(backend.argsOf("execute_call")).toHaveLength(0);

    setActive(true);
    fireEvent.keyDown(window, { key: "Enter", ctrlKey: true });
    await screen.findByTestId("executor-result");
    expect(backend.argsOf("execute_call")).toHaveLength(1);
    await waitFor(() => {
      expect(screen.getByTestId<HTMLButtonElement>("executor-run").disabled).toBe(false);
    });
    fireEvent.keyDown(window, { key: "Enter", metaKey: true });
    await waitFor(() => {
      expect(backend.argsOf("execute_call")).toHaveLength(2);
    });
  });

  it("shows the configured timeout next to Run and saves a new one", async () => {
    const backend = installBackend({ settings: { config: { timeout_ms: 5000, max_iterations: 4 }, theme: "dark" } });
    renderPane();
    const timeout = await screen.findByTestId<HTMLInputElement>("executor-timeout");
    expect(timeout.value).toBe("5000");

    fireEvent.change(timeout, { target: { value: "0" } });
    fireEvent.blur(timeout);
    expect(screen.getByRole("alert").textContent).toContain("at least 1");
    expect(backend.argsOf("save_settings")).toHaveLength(0);

    fireEvent.change(screen.getByTestId("executor-timeout"), { target: { value: "1500" } });
    fireEvent.blur(screen.getByTestId("executor-timeout"));
    await waitFor(() => {
      expect(backend.argsOf("save_settings")).toHaveLength(1);
    });
    expect(backend.settings).toEqual({ config: { timeout_ms: 1500, max_iterations: 4 }, theme: "dark" });
    await waitFor(() => {
      expect(screen.getByTestId<HTMLInputElement>("executor-timeout").value).toBe("1500");
    });
  });
});

describe("history", () => {
  // jsdom has no layout: give the virtualised list a 600 px viewport.
  let restoreLayout: () => void = () => undefined;
  beforeEach(() => {
    restoreLayout = stubLayout();
  });
  afterEach(() => {
    restoreLayout();
  });

  const history = [
    entry("e1", "calculator_evaluate", { expression: "1+1" }, Date.UTC(2025, 0, 1, 10)),
    entry("e2", "workspace_write", { path: "x.txt" }, Date.UTC(2025, 0, 1, 11)),
    entry("e3", "calculator_evaluate", { expression: "2*3" }, Date.UTC(2025, 0, 1, 12)),
  ];

  it("lists entries newest first with name, status and duration", async () => {
    installBackend({ history, skipped: [{ line: 4, byte_offset: 310, reason: "not JSON" }] });
    renderPane();
    const items = await screen.findAllByTestId("history-item");
    expect(items.map((i) => i.getAttribute("data-tool-name"))).toEqual([
      "calculator_evaluate",
      "workspace_write",
      "calculator_evaluate",
    ]);
    expect(items[0]?.textContent).toContain("3.00 ms");
    expect(items[0]?.textContent).toContain("success");
    expect(items[0]?.textContent).toContain('{"expression":"2*3"}');
    expect(screen.getByTestId("history-skipped").textContent).toContain("1 unreadable line");
  });

  it("searches through history_list with the query, debounced", async () => {
    const backend = installBackend({ history });
    renderPane();
    await screen.findAllByTestId("history-item");
    fireEvent.change(screen.getByTestId("history-search"), { target: { value: "w" } });
    fireEvent.change(screen.getByTestId("history-search"), { target: { value: "writ" } });
    await waitFor(() => {
      expect(screen.getAllByTestId("history-item")).toHaveLength(1);
    });
    const queries = backend.argsOf("history_list").map((a) => a.query);
    expect(queries).toContain("writ");
    expect(queries).not.toContain("w");
    expect(screen.getByTestId("history-item").getAttribute("data-tool-name")).toBe("workspace_write");
  });

  it("re-runs an entry as a child of it", async () => {
    const backend = installBackend({ history });
    renderPane();
    const items = await screen.findAllByTestId("history-item");
    fireEvent.click(within(at(items, 1)).getByTestId("history-rerun"));
    await screen.findByTestId("executor-result");
    expect(lastCall(backend)).toEqual({ tool_name: "workspace_write", args: { path: "x.txt" }, parent_id: "e2" });
  });

  it("loads an entry into the editor to edit and re-run", async () => {
    const backend = installBackend({ history });
    renderPane();
    const items = await screen.findAllByTestId("history-item");
    fireEvent.click(within(at(items, 0)).getByTestId("history-edit"));
    expect(nameInput().value).toBe("calculator_evaluate");
    await screen.findByTestId("executor-method-info");
    fireEvent.change(field("expression"), { target: { value: "2*4" } });
    fireEvent.click(screen.getByTestId("executor-run"));
    await screen.findByTestId("executor-result");
    expect(lastCall(backend)).toEqual({ tool_name: "calculator_evaluate", args: { expression: "2*4" }, parent_id: "e3" });
  });

  it("exports JSONL as a download, with a copy fallback", async () => {
    const jsonl = '{"id":"e1"}\n{"id":"e2"}\n';
    installBackend({ history, exportText: jsonl });
    const createObjectURL = vi.fn<(blob: Blob) => string>(() => "blob:toolscope/1");
    Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() });
    const clicks = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => undefined);
    const writeText = vi.fn<(text: string) => Promise<void>>(() => Promise.resolve());
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    renderPane();
    fireEvent.click(screen.getByTestId("history-export"));

    const link = await screen.findByTestId<HTMLAnchorElement>("history-export-download");
    expect(link.getAttribute("download")).toBe("toolscope-history.jsonl");
    expect(link.getAttribute("href")).toBe("blob:toolscope/1");
    const blob = createObjectURL.mock.calls[0]?.[0];
    expect(blob?.type).toBe("application/x-ndjson");
    expect(await readBlob(blob)).toBe(jsonl);
    expect(clicks).toHaveBeenCalled();
    expect(screen.getByTestId("history-export-ready").textContent).toContain("2 entries");

    fireEvent.click(screen.getByTestId("history-export-copy"));
    await waitFor(() => {
      expect(writeText).toHaveBeenCalledWith(jsonl);
    });
    expect(await screen.findByText("Copied")).toBeTruthy();
  });

  const many = (count: number) =>
    Array.from({ length: count }, (_, i) => entry(`m${String(i)}`, "echo_echo", { message: `run ${String(i)}` }, Date.UTC(2025, 0, 1) + i));

  it("keeps only the rows in view in the DOM and loads further pages as the list scrolls", async () => {
    const backend = installBackend({ history: many(1000) });
    renderPane();
    const items = await screen.findAllByTestId("history-item");
    // 600 px of 58 px rows plus overscan, not 100 (one page) nor 1,000.
    expect(items.length).toBeLessThan(20);
    expect(at(items, 0).textContent).toContain('{"message":"run 999"}');
    expect(at(items, 0).getAttribute("aria-setsize")).toBe("1000");
    expect(screen.getByText(/1,000 runs, 100 loaded/)).toBeTruthy();
    expect(backend.argsOf("history_list")).toEqual([{ query: null, offset: 0, limit: HISTORY_PAGE }]);

    const scroller = screen.getByTestId("history-list").parentElement;
    if (!scroller) throw new Error("no scroller");
    scroller.scrollTop = 90 * HISTORY_ROW_HEIGHT;
    fireEvent.scroll(scroller);
    await waitFor(() => {
      expect(backend.argsOf("history_list")).toContainEqual({ query: null, offset: HISTORY_PAGE, limit: HISTORY_PAGE });
    });
    await screen.findByText(/1,000 runs, 200 loaded/);
    const shown = screen.getAllByTestId("history-item");
    expect(shown.length).toBeLessThan(25);
    expect(shown.some((item) => item.textContent.includes('"run 909"'))).toBe(true);
  });

  it("holds a bounded window of entries and reads dropped ones back when scrolled to", async () => {
    const backend = installBackend({ history: many(1000) });
    renderPane();
    await screen.findByText(/1,000 runs, 100 loaded/);
    const scroller = screen.getByTestId("history-list").parentElement;
    if (!scroller) throw new Error("no scroller");
    const scrollTo = (row: number) => {
      scroller.scrollTop = row * HISTORY_ROW_HEIGHT;
      fireEvent.scroll(scroller);
    };
    scrollTo(90);
    await screen.findByText(/1,000 runs, 200 loaded/);
    scrollTo(190);
    await waitFor(() => {
      expect(backend.argsOf("history_list")).toContainEqual({ query: null, offset: 200, limit: HISTORY_PAGE });
    });
    // Still 200 held: the newest 100 were dropped to make room.
    await waitFor(() => {
      expect(screen.getAllByTestId("history-item").some((item) => item.textContent.includes('"run 800"'))).toBe(true);
    });
    expect(screen.getByText(/1,000 runs, 200 loaded/)).toBeTruthy();
    const deep = screen.getAllByTestId("history-item");
    expect(deep.some((item) => item.getAttribute("aria-posinset") === "200")).toBe(true);

    // Back at the top: the dropped rows are placeholders until their page is read again.
    const reads = backend.argsOf("history_list").length;
    scrollTo(0);
    await waitFor(() => {
      expect(at(screen.getAllByTestId("history-item"), 0).textContent).toContain('{"message":"run 999"}');
    });
    expect(backend.argsOf("history_list").slice(reads)).toContainEqual({ query: null, offset: 0, limit: HISTORY_PAGE });
    expect(screen.queryAllByTestId("history-placeholder")).toHaveLength(0);
    expect(screen.getByText(/1,000 runs, 200 loaded/)).toBeTruthy();
  });

  it("keeps at most a window of entries however many runs are made", async () => {
    const backend = installBackend({ history: many(HISTORY_WINDOW + 50) });
    backend.execute = ({ call }) => {
      backend.history.push(entry("new-1", call.tool_name, call.args, Date.UTC(2025, 0, 2)));
      return result({ tool_name: call.tool_name });
    };
    renderPane();
    await screen.findByText(/250 runs, 100 loaded/);
    // Scrolled to the end of the first page: the next one fills the window.
    const scroller = screen.getByTestId("history-list").parentElement;
    if (!scroller) throw new Error("no scroller");
    scroller.scrollTop = (HISTORY_PAGE - 5) * HISTORY_ROW_HEIGHT;
    fireEvent.scroll(scroller);
    await screen.findByText(/250 runs, 200 loaded/);
    scroller.scrollTop = 0;
    fireEvent.scroll(scroller);
    await chooseTool("calculator_evaluate");
    fireEvent.change(field("expression"), { target: { value: "1+2" } });
    fireEvent.click(screen.getByTestId("executor-run"));
    // The new run on top, the oldest held entry dropped: still a window of 200.
    await screen.findByText(/251 runs, 200 loaded/);
    const first = at(screen.getAllByTestId("history-item"), 0);
    expect(first.getAttribute("data-tool-name")).toBe("calculator_evaluate");
    expect(first.getAttribute("aria-posinset")).toBe("1");
    expect(screen.getByRole("button", { name: "Load 51 more" })).toBeTruthy();
  }, 15_000);

  it("after a run asks only for the newest entries and puts the new one on top", async () => {
    const backend = installBackend({ history: many(150) });
    backend.execute = ({ call }) => {
      backend.history.push(entry("new-1", call.tool_name, call.args, Date.UTC(2025, 0, 2)));
      return result({ tool_name: call.tool_name });
    };
    renderPane();
    await screen.findByText(/150 runs, 100 loaded/);
    await chooseTool("calculator_evaluate");
    fireEvent.change(field("expression"), { target: { value: "1+2" } });
    fireEvent.click(screen.getByTestId("executor-run"));
    await screen.findByText(/151 runs, 101 loaded/);
    expect(backend.argsOf("history_list").at(-1)).toEqual({ query: null, offset: 0, limit: REFRESH_PAGE });
    const first = at(screen.getAllByTestId("history-item"), 0);
    expect(first.getAttribute("data-tool-name")).toBe("calculator_evaluate");
    expect(first.textContent).toContain('{"expression":"1+2"}');
  });

  it("starts over from the newest page when more runs were made elsewhere than a refresh asks for", async () => {
    const backend = installBackend({ history: many(120) });
    renderPane();
    await screen.findByText(/120 runs, 100 loaded/);
    backend.history.push(...many(REFRESH_PAGE + 5).map((e) => ({ ...e, id: `cli-${e.id}`, origin: "cli" })));
    const refresh = screen.getByRole<HTMLButtonElement>("button", { name: "Refresh" });
    // The list shows before its load settles; a click while the button is still disabled is lost.
    await waitFor(() => {
      expect(refresh.disabled).toBe(false);
    });
    fireEvent.click(refresh);
    await screen.findByText(new RegExp(`${String(120 + REFRESH_PAGE + 5)} runs, ${String(REFRESH_PAGE)} loaded`));
    expect(at(screen.getAllByTestId("history-item"), 0).textContent).toContain("cli");
  });
});
