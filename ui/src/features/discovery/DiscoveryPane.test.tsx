/**
 * The Discovery pane against a fake backend (mockIPC): listing, fuzzy search, keyboard use,
 * method detail, loading into the Executor, enable toggles, the prompt preview, error states
 * and the virtualised list at 10,000 methods.
 */
import { emit } from "@tauri-apps/api/event";
import { clearMocks } from "@tauri-apps/api/mocks";
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { useWorkbench, WorkbenchProvider } from "../../lib/workbench";
import { DiscoveryPane } from "./DiscoveryPane";
import { CALCULATOR, fakeBackend, generatedTools, method, stubLayout, TOOLS } from "./testing";

let restoreLayout: () => void = () => undefined;

beforeEach(() => {
  restoreLayout = stubLayout();
});

afterEach(() => {
  cleanup();
  clearMocks();
  restoreLayout();
  vi.restoreAllMocks();
});

/** Shows what the workbench holds, so tests can see what "Load into executor" did. */
function Probe() {
  const { activePane, draft } = useWorkbench();
  return (
    <output data-testid="probe">
      {activePane} {draft ? `${draft.toolName} ${JSON.stringify(draft.args)}` : "no draft"}
    </output>
  );
}

function renderPane(active = true) {
  return render(
    <WorkbenchProvider>
      <DiscoveryPane active={active} />
      <Probe />
    </WorkbenchProvider>,
  );
}

const search = () => screen.getByTestId<HTMLInputElement>("discovery-search");

function type(text: string) {
  fireEvent.change(search(), { target: { value: text } });
}

describe("DiscoveryPane list", () => {
  it("loads every tool once and lists the agent-callable methods by name", async () => {
    const backend = fakeBackend();
    renderPane();
    expect(screen.getByText("Loading tools…")).toBeTruthy();

    await screen.findByTestId("tool-item-calculator");
    const rows = screen.getAllByRole("row").map((row) => row.dataset.testid);
    // Sorted by tool name (Calculator before Workspace files), methods by name.
    expect(rows).toEqual([
      "tool-item-calculator",
      "method-item-calculator_evaluate",
      "tool-item-workspace",
      "method-item-workspace_read",
      "method-item-workspace_write",
    ]);
    expect(screen.getByTestId("discovery-summary").textContent).toContain("2 tools, 3 methods");
    expect(screen.getByTestId("discovery-summary").textContent).toContain("1 not agent-callable hidden");
    expect(backend.calls.filter((c) => c.cmd === "list_tools").map((c) => c.args)).toEqual([
      { query: null, includeNonCallable: true },
    ]);

    fireEvent.click(screen.getByTestId("discovery-non-callable"));
    const reset = screen.getByTestId("method-item-calculator_reset");
    expect(within(reset).getByText("not agent-callable")).toBeTruthy();
    expect(backend.count("list_tools")).toBe(1);
  });

  it("sorts by method count", async () => {
    fakeBackend();
    renderPane();
    await screen.findByTestId("tool-item-calculator");
    fireEvent.change(screen.getByTestId("discovery-sort"), { target: { value: "methods" } });
    const tools = screen.getAllByRole("row").filter((row) => row.getAttribute("aria-level") === "1");
    expect(tools.map((row) => row.dataset.testid)).toEqual(["tool-item-workspace", "tool-item-calculator"]);
  });

  it("finds methods fuzzily without asking the backend, and says when nothing matches", async () => {
    const backend = fakeBackend();
    renderPane();
    await screen.findByTestId("tool-item-calculator");

    type("evalute");
    await waitFor(() => {
      expect(screen.queryByTestId("method-item-workspace_read")).toBeNull();
    });
    expect(screen.getByTestId("method-item-calculator_evaluate")).toBeTruthy();

    // A typo in a description word, and words in any order across fields.
    type("arithmatic calculator");
    await waitFor(() => {
      expect(screen.queryByTestId("method-item-workspace_write")).toBeNull();
    });
    expect(screen.getByTestId("method-item-calculator_evaluate")).toBeTruthy();

    type("xyzzy");
    expect((await screen.findByTestId("discovery-empty")).textContent).toContain("No methods match 'xyzzy'");

    // The hidden non-agent-callable match is offered rather than silently dropped.
    type("memory");
    const empty = await screen.findByTestId("discovery-empty");
    fireEvent.click(within(empty).getByRole("button", { name: "Show them" }));
    expect(await screen.findByTestId("method-item-calculator_reset")).toBeTruthy();

    fireEvent.keyDown(search(), { key: "Escape" });
    expect(search().value).toBe("");
    await screen.findByTestId("method-item-workspace_read");
    expect(backend.count("list_tools")).toBe(1);
  });
});

describe("DiscoveryPane and tool sources", () => {
  it("reloads the tools and the prompt when the sources change (an MCP server came up)", async () => {
    let tools = TOOLS;
    const backend = fakeBackend(TOOLS, undefined, { list_tools: () => tools });
    renderPane();
    await screen.findByTestId("tool-item-calculator");
    const prompts = backend.count("tool_prompt");
    tools = [...TOOLS, { ...CALCULATOR, id: "files", name: "files (MCP)", source: "mcp", methods: [method("files", { name: "read-file" })] }];
    await act(() => emit("sources-changed", 1));
    expect(await screen.findByTestId("tool-item-files")).toBeTruthy();
    await waitFor(() => {
      expect(backend.count("tool_prompt")).toBeGreaterThan(prompts);
    });
  });
});

describe("DiscoveryPane keyboard", () => {
  it("focuses the search with Ctrl+K and Cmd+K only while the pane is shown", async () => {
    fakeBackend();
    const view = renderPane(true);
    await screen.findByTestId("tool-item-calculator");

    fireEvent.keyDown(window, { key: "k", ctrlKey: true });
    expect(document.activeElement).toBe(search());
    search().blur();
    fireEvent.keyDown(window, { key: "K", metaKey: true });
    expect(document.activeElement).toBe(search());
    search().blur();

    view.rerender(
      <WorkbenchProvider>
        <DiscoveryPane active={false} />
      </WorkbenchProvider>,
    );
    fireEvent.keyDown(window, { key: "k", ctrlKey: true });
    expect(document.activeElement).not.toBe(search());
  });

  it("moves through the list with the arrow keys and selects with Enter", async () => {
    fakeBackend();
    renderPane();
    await screen.findByTestId("tool-item-calculator");

    fireEvent.keyDown(search(), { key: "ArrowDown" });
    await waitFor(() => {
      expect(document.activeElement).toBe(screen.getByTestId("tool-item-calculator"));
    });
    fireEvent.keyDown(document.activeElement ?? document.body, { key: "ArrowDown" });
    await waitFor(() => {
      expect(document.activeElement).toBe(screen.getByTestId("method-item-calculator_evaluate"));
    });
    fireEvent.keyDown(document.activeElement ?? document.body, { key: "ArrowDown" });
    fireEvent.keyDown(document.activeElement ?? document.body, { key: "ArrowDown" });
    const read = screen.getByTestId("method-item-workspace_read");
    await waitFor(() => {
      expect(document.activeElement).toBe(read);
    });
    expect(read.getAttribute("tabindex")).toBe("0");
    expect(screen.queryByTestId("method-detail")).toBeNull();

    fireEvent.keyDown(read, { key: "Enter" });
    const detail = await screen.findByTestId("method-detail");
    expect(within(detail).getByRole("heading", { level: 3 }).textContent).toBe("workspace_read");
    expect(screen.getByTestId("method-item-workspace_read").getAttribute("aria-selected")).toBe("true");
    expect(screen.getByTestId("method-item-calculator_evaluate").getAttribute("aria-selected")).toBe("false");

    // ← on a method goes to its tool, ← again folds it.
    fireEvent.keyDown(read, { key: "ArrowLeft" });
    const workspace = screen.getByTestId("tool-item-workspace");
    await waitFor(() => {
      expect(document.activeElement).toBe(workspace);
    });
    fireEvent.keyDown(workspace, { key: "ArrowLeft" });
    await waitFor(() => {
      expect(screen.queryByTestId("method-item-workspace_read")).toBeNull();
    });
    expect(screen.getByTestId("tool-item-workspace").getAttribute("aria-expanded")).toBe("false");
  });

  it("opens the first match with Enter in the search box", async () => {
    fakeBackend();
    renderPane();
    await screen.findByTestId("tool-item-calculator");
    type("writ");
    await waitFor(() => {
      expect(screen.queryByTestId("method-item-calculator_evaluate")).toBeNull();
    });
    fireEvent.keyDown(search(), { key: "Enter" });
    expect(within(await screen.findByTestId("method-detail")).getByRole("heading", { level: 3 }).textContent).toBe(
      "workspace_write",
    );
  });
});

describe("DiscoveryPane detail", () => {
  it("shows annotations as badges and the parameter schema as readable rows", async () => {
    fakeBackend();
    renderPane();
    fireEvent.click(await screen.findByTestId("method-item-calculator_evaluate"));
    const detail = screen.getByTestId("method-detail");

    const badges = within(within(detail).getByRole("list", { name: "Annotations" }))
      .getAllByRole("listitem")
      .map((badge) => badge.textContent);
    expect(badges).toEqual(["read-only", "idempotent"]);
    expect(within(detail).getByTestId("vcp-command").textContent).toContain("Calculate");
    expect(within(detail).getByText("Evaluates one arithmetic expression.")).toBeTruthy();

    const params = within(detail).getByTestId("parameter-schema");
    const expression = within(params).getByTestId("schema-row-/expression");
    expect(expression.textContent).toContain("string");
    expect(expression.textContent).toContain("required");
    expect(expression.textContent).toContain("The expression, e.g. 1 + 2 * 3.");
    const precision = within(params).getByTestId("schema-row-/precision");
    expect(precision.textContent).toContain("integer");
    expect(precision.textContent).toContain("default 6");
    expect(precision.textContent).toContain("0 ≤ value ≤ 20");
    expect(precision.textContent).not.toContain("required");
    const mode = within(params).getByTestId("schema-row-/mode");
    expect(within(mode).getAllByText(/"(deg|rad)"/).map((e) => e.textContent)).toEqual(['"rad"', '"deg"', '"rad"']);
    // Nested object properties and array items are indented under their parent.
    expect(within(params).getByTestId("schema-row-/options").dataset.depth).toBe("0");
    expect(within(params).getByTestId("schema-row-/options/strict").dataset.depth).toBe("1");
    expect(within(params).getByTestId("schema-row-/vars").textContent).toContain("object[]");
    expect(within(params).getByTestId("schema-row-/vars/[]/name").dataset.depth).toBe("2");
    expect(within(params).getByTestId("schema-row-/vars/[]/name").textContent).toContain("required");
    expect(within(params).getByText("No other keys are accepted.")).toBeTruthy();
    // The raw JSON is there too, folded.
    expect(within(params).getByText("Raw JSON")).toBeTruthy();
    expect(params.querySelector("details pre")?.textContent).toContain('"additionalProperties": false');

    const output = within(detail).getByTestId("output-schema");
    expect(within(output).getByTestId("schema-row-/value").textContent).toContain("The result.");
  });

  it("treats a method without annotations as destructive", async () => {
    fakeBackend();
    renderPane();
    await screen.findByTestId("tool-item-calculator");
    fireEvent.click(screen.getByTestId("discovery-non-callable"));
    fireEvent.click(await screen.findByTestId("method-item-calculator_reset"));
    const badges = within(screen.getByRole("list", { name: "Annotations" }))
      .getAllByRole("listitem")
      .map((badge) => badge.textContent);
    expect(badges).toEqual(["destructive (assumed)", "not agent-callable"]);
    expect(within(screen.getByTestId("method-detail")).getByText("No parameters.")).toBeTruthy();

    fireEvent.click(screen.getByTestId("method-item-workspace_write"));
    const explicit = within(screen.getByRole("list", { name: "Annotations" }))
      .getAllByRole("listitem")
      .map((badge) => badge.textContent);
    expect(explicit).toEqual(["destructive"]);
  });

  it("loads the method into the executor with the top-level defaults", async () => {
    fakeBackend();
    renderPane();
    fireEvent.click(await screen.findByTestId("method-item-calculator_evaluate"));
    expect(screen.getByTestId("probe").textContent).toBe("discovery no draft");
    fireEvent.click(screen.getByTestId("load-into-executor"));
    expect(screen.getByTestId("probe").textContent).toBe('executor calculator_evaluate {"precision":6,"mode":"rad"}');

    fireEvent.click(screen.getByTestId("method-item-workspace_read"));
    fireEvent.click(screen.getByTestId("load-into-executor"));
    expect(screen.getByTestId("probe").textContent).toBe("executor workspace_read {}");
  });
});

describe("DiscoveryPane toggles", () => {
  it("saves the tool toggle into the settings, then refreshes the list and the prompt", async () => {
    const backend = fakeBackend();
    renderPane();
    const toggle = await screen.findByTestId<HTMLInputElement>("tool-toggle-workspace");
    await waitFor(() => {
      expect(screen.getByTestId("prompt-preview").textContent).toBe("[vcp] workspace, calculator");
    });
    expect(toggle.checked).toBe(true);

    fireEvent.click(toggle);
    await waitFor(() => {
      expect(screen.getByTestId("prompt-preview").textContent).toBe("[vcp] calculator");
    });
    const saves = backend.calls.filter((call) => call.cmd === "save_settings");
    expect(saves).toHaveLength(1);
    // Everything else in the settings is kept; only this tool's toggle changes.
    expect(saves[0]?.args.settings).toEqual({
      theme: "dark",
      last_protocol: "vcp",
      config: { timeout_ms: 5000, tool_toggles: { echo: false, workspace: false } },
    });
    expect(backend.count("list_tools")).toBe(2);
    expect(screen.getByTestId<HTMLInputElement>("tool-toggle-workspace").checked).toBe(false);

    fireEvent.click(screen.getByTestId("tool-toggle-workspace"));
    await waitFor(() => {
      expect(screen.getByTestId("prompt-preview").textContent).toBe("[vcp] workspace, calculator");
    });
    expect(backend.settings.config?.tool_toggles).toEqual({ echo: false, workspace: true });
  });

  it("shows a failed save and leaves the tool as it was", async () => {
    fakeBackend(undefined, undefined, {
      save_settings: () => {
        // A command's error value is a plain {kind, message} object, as Tauri delivers it.
        // eslint-disable-next-line @typescript-eslint/only-throw-error
        throw { kind: "settings", message: "disk full", details: null };
      },
    });
    renderPane();
    fireEvent.click(await screen.findByTestId("tool-toggle-calculator"));
    const alert = await screen.findByTestId("toggle-error");
    expect(alert.textContent).toContain("Could not disable Calculator");
    expect(alert.textContent).toContain("settings");
    expect(alert.textContent).toContain("disk full");
    expect(screen.getByTestId<HTMLInputElement>("tool-toggle-calculator").checked).toBe(true);
    fireEvent.click(within(alert).getByRole("button", { name: "Dismiss" }));
    expect(screen.queryByTestId("toggle-error")).toBeNull();
  });
});

describe("DiscoveryPane prompt preview", () => {
  it("previews the prompt of the chosen protocol, starting from the last one used", async () => {
    const backend = fakeBackend(TOOLS, { last_protocol: "hermes" });
    renderPane();
    await waitFor(() => {
      expect(screen.getByTestId("prompt-preview").textContent).toBe("[hermes] workspace, calculator");
    });
    const select = screen.getByTestId<HTMLSelectElement>("prompt-protocol");
    expect(select.value).toBe("hermes");
    expect([...select.options].map((o) => o.textContent)).toEqual(["VCP", "Hermes"]);

    fireEvent.change(select, { target: { value: "vcp" } });
    await waitFor(() => {
      expect(screen.getByTestId("prompt-preview").textContent).toBe("[vcp] workspace, calculator");
    });
    expect(backend.calls.filter((c) => c.cmd === "tool_prompt").map((c) => c.args.protocol)).toEqual(["hermes", "vcp"]);
  });

  it("copies the prompt and reports a failed copy", async () => {
    fakeBackend();
    const writeText = vi.fn<(text: string) => Promise<void>>().mockResolvedValue(undefined);
    Object.defineProperty(navigator, "clipboard", { configurable: true, value: { writeText } });
    renderPane();
    await waitFor(() => {
      expect(screen.getByTestId("prompt-preview").textContent).toBe("[vcp] workspace, calculator");
    });
    fireEvent.click(screen.getByTestId("prompt-copy"));
    await waitFor(() => {
      expect(screen.getByTestId("prompt-copy").textContent).toBe("Copied");
    });
    expect(writeText).toHaveBeenCalledWith("[vcp] workspace, calculator");

    writeText.mockRejectedValueOnce(new Error("clipboard denied"));
    fireEvent.click(screen.getByTestId("prompt-copy"));
    expect((await screen.findByText(/Could not copy/)).textContent).toContain("clipboard denied");
    Reflect.deleteProperty(navigator, "clipboard");
  });

  it("shows a prompt error with its kind and retries", async () => {
    let fail = true;
    fakeBackend(TOOLS, undefined, {
      tool_prompt: () => {
        if (fail) {
          // eslint-disable-next-line @typescript-eslint/only-throw-error
          throw { kind: "unknown_protocol", message: "no protocol vcp", details: null };
        }
        return "VCP PROMPT";
      },
    });
    renderPane();
    const alert = await screen.findByText("Could not generate the prompt");
    const box = alert.closest<HTMLElement>("[role=alert]");
    expect(box?.textContent).toContain("unknown_protocol");
    expect(box?.textContent).toContain("no protocol vcp");
    fail = false;
    fireEvent.click(within(box ?? document.body).getByRole("button", { name: "Retry" }));
    await waitFor(() => {
      expect(screen.getByTestId("prompt-preview").textContent).toBe("VCP PROMPT");
    });
  });
});

describe("DiscoveryPane errors", () => {
  it("shows the backend's error kind and message, and retries", async () => {
    let fail = true;
    const backend = fakeBackend(TOOLS, undefined, {
      list_tools: () => {
        if (fail) {
          // eslint-disable-next-line @typescript-eslint/only-throw-error
          throw { kind: "not_ready", message: "startup has not finished", details: null };
        }
        return TOOLS;
      },
    });
    renderPane();
    const alert = await screen.findByTestId("discovery-error");
    expect(alert.textContent).toContain("not_ready");
    expect(alert.textContent).toContain("startup has not finished");

    fail = false;
    fireEvent.click(within(alert).getByRole("button", { name: "Retry" }));
    expect(await screen.findByTestId("tool-item-calculator")).toBeTruthy();
    expect(screen.queryByTestId("discovery-error")).toBeNull();
    expect(backend.count("list_tools")).toBe(2);
  });

  it("says so when no tool is registered", async () => {
    fakeBackend([]);
    renderPane();
    expect(await screen.findByText("No tools are registered.")).toBeTruthy();
  });
});

describe("DiscoveryPane at scale", () => {
  it("keeps only a window of the 10,000 methods in the DOM and still searches all of them", async () => {
    const tools = generatedTools(100, 100);
    fakeBackend(tools);
    renderPane();
    await screen.findByTestId("tool-item-tool0", {}, { timeout: 5000 });

    const list = screen.getByTestId("discovery-list");
    expect(list.getAttribute("aria-rowcount")).toBe("10100");
    const rendered = () => within(list).getAllByRole("row");
    // 600 px of 36–44 px rows plus overscan: a few dozen, never thousands.
    expect(rendered().length).toBeGreaterThan(10);
    expect(rendered().length).toBeLessThan(40);

    // Scrolling far down swaps the window instead of growing it.
    act(() => {
      list.scrollTop = 200_000;
      list.dispatchEvent(new Event("scroll"));
    });
    await waitFor(() => {
      expect(screen.queryByTestId("tool-item-tool0")).toBeNull();
    });
    expect(rendered().length).toBeLessThan(40);
    const first = Number(rendered()[0]?.getAttribute("aria-rowindex"));
    expect(first).toBeGreaterThan(4000);

    // End jumps to the last row, which is rendered and focused.
    fireEvent.keyDown(rendered()[0] ?? list, { key: "End" });
    await waitFor(() => {
      expect(document.activeElement?.getAttribute("data-testid")).toBe("method-item-tool99_method99");
    });

    type("tool57 metod42");
    await waitFor(() => {
      expect(screen.getByTestId("method-item-tool57_method42")).toBeTruthy();
    });
    expect(rendered().length).toBeLessThan(40);
  }, 20_000);
});

describe("DiscoveryPane large prompt", () => {
  it("shows the first part of a huge prompt until asked for all, and copies all of it", async () => {
    const huge = "x".repeat(150_000);
    fakeBackend(TOOLS, undefined, { tool_prompt: () => huge });
    const writeText = vi.fn<(text: string) => Promise<void>>().mockResolvedValue(undefined);
    Object.defineProperty(navigator, "clipboard", { configurable: true, value: { writeText } });
    renderPane();
    await waitFor(() => {
      expect(screen.getByTestId("prompt-preview").textContent).toHaveLength(100_000);
    });
    expect(screen.getByText(/150,000 chars/)).toBeTruthy();
    fireEvent.click(screen.getByTestId("prompt-copy"));
    await waitFor(() => {
      expect(writeText).toHaveBeenCalledWith(huge);
    });
    fireEvent.click(screen.getByRole("button", { name: "Show all" }));
    expect(screen.getByTestId("prompt-preview").textContent).toHaveLength(150_000);
    Reflect.deleteProperty(navigator, "clipboard");
  });
});
