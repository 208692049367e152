/**
 * The Live pane against a fake backend (mockIPC): the empty state's snippets, sessions grouped
 * by server and opened from the keyboard, a session's handshake, tools and calls (a call's
 * request and response), tailing a running session from its cursor until its end, and polling
 * only while the pane is shown.
 */
import { clearMocks } from "@tauri-apps/api/mocks";
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { useWorkbench, WorkbenchProvider } from "../../lib/workbench";
import { LivePane } from "./LivePane";
import { calls, end, installLiveBackend, message, opening, record, summary } from "./testBackend";

function DraftProbe() {
  const { draft, activePane } = useWorkbench();
  return (
    <output data-testid="probe" data-pane={activePane}>
      {draft ? JSON.stringify({ toolName: draft.toolName, args: draft.args }) : ""}
    </output>
  );
}

function Wrapped({ active }: { active: boolean }) {
  return (
    <WorkbenchProvider initialPane="live">
      <LivePane active={active} pollMs={POLL} />
      <DraftProbe />
    </WorkbenchProvider>
  );
}

function renderPane() {
  return render(<Wrapped active />);
}

const POLL = 20;
const writeText = vi.fn((_text: string) => Promise.resolve());

beforeEach(() => {
  writeText.mockClear();
  Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
});

afterEach(() => {
  cleanup();
  clearMocks();
});

function rows(): HTMLElement[] {
  return screen.getAllByTestId("session-row");
}

describe("with no session yet", () => {
  it("explains how to start watching an agent, with snippets to copy", async () => {
    installLiveBackend();
    renderPane();
    await screen.findByTestId("live-empty");
    const mcp = screen.getByTestId("snippet-mcp");
    expect(JSON.parse(mcp.textContent)).toEqual({
      mcpServers: {
        files: {
          command: "toolscope",
          args: ["proxy", "mcp", "--name", "files", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", "/home/me/notes"],
        },
      },
    });

    fireEvent.change(screen.getByTestId("help-name"), { target: { value: "github" } });
    fireEvent.change(screen.getByTestId("help-command"), { target: { value: `docker run -i --rm -e "GITHUB TOKEN" ghcr.io/github/github-mcp-server` } });
    expect(JSON.parse(screen.getByTestId("snippet-mcp").textContent)).toEqual({
      mcpServers: {
        github: {
          command: "toolscope",
          args: ["proxy", "mcp", "--name", "github", "--", "docker", "run", "-i", "--rm", "-e", "GITHUB TOKEN", "ghcr.io/github/github-mcp-server"],
        },
      },
    });
    expect(screen.getByTestId("snippet-listen").textContent).toBe(
      "toolscope proxy mcp --name github --listen 127.0.0.1:0 -- docker run -i --rm -e 'GITHUB TOKEN' ghcr.io/github/github-mcp-server",
    );
    expect(screen.getByTestId("snippet-llm").textContent).toBe("toolscope proxy llm --upstream http://127.0.0.1:8000/v1");
    expect(screen.getByTestId("session-roots").textContent).toContain("/home/me/.local/share/toolscope/proxy");

    fireEvent.click(screen.getByTestId("snippet-listen-copy"));
    await waitFor(() => {
      expect(writeText).toHaveBeenCalledWith(screen.getByTestId("snippet-listen").textContent);
    });

    fireEvent.change(screen.getByTestId("help-name"), { target: { value: "../up" } });
    expect(screen.getByRole("alert").textContent).toContain("letters, digits");
    expect(screen.getByTestId("snippet-mcp").textContent).toContain('"NAME"');
  });

  it("says when the sessions cannot be listed", async () => {
    const backend = installLiveBackend();
    backend.failure = { kind: "not_ready", message: "the app is still starting", details: null };
    renderPane();
    expect((await screen.findByRole("alert")).textContent).toContain("the app is still starting");
    backend.failure = null;
    await screen.findByTestId("live-empty");
  });
});

describe("recorded sessions", () => {
  const running = summary();
  const older = summary({ session_id: "20251231T090000.000Z-99999999", started_at: "2025-12-31T09:00:00.000000Z", end: { reason: "agent_closed", signal: null, server_status: { code: 0, signal: null }, pending_answered: 0, messages: 9 }, invalid_calls: 0, failed_calls: 0 });
  const files = summary({ name: "files", session_id: "20251230T090000.000Z-88888888", started_at: "2025-12-30T09:00:00.000000Z", modified_ms: Date.parse("2025-12-30T09:10:00Z"), calls: 0, invalid_calls: 0, failed_calls: 0, server: null, argv: ["--url", "https://example.com/mcp"] });

  it("groups sessions by server, marks the running one live, and opens one from the keyboard", async () => {
    installLiveBackend({
      sessions: [running, older, files],
      records: new Map([[`files/${files.session_id}`, [record(0, { type: "session", session_id: files.session_id, name: "files", argv: ["--url", "https://example.com/mcp"], proxy_version: "0.1.0", enforce: false, format: 1 })]]]),
    });
    renderPane();
    await screen.findAllByTestId("session-row");
    const groups = screen.getAllByRole("heading", { level: 3 }).map((h) => h.textContent);
    expect(groups).toEqual(["everything 2 sessions", "files 1 session"]);
    const states = rows().map((row) => within(row).getByTestId("session-state").dataset.state);
    expect(states).toEqual(["live", "ended", "unfinished"]);
    expect(within(rows()[0] ?? document.body).getByTestId("session-counts").textContent).toBe("2 calls · 1 invalid · 1 failed");

    const first = rows()[0];
    if (!first) throw new Error("no row");
    first.focus();
    fireEvent.keyDown(first, { key: "ArrowDown" });
    expect(document.activeElement).toBe(rows()[1]);
    fireEvent.keyDown(document.activeElement ?? first, { key: "End" });
    expect(document.activeElement).toBe(rows()[2]);
    fireEvent.keyDown(document.activeElement ?? first, { key: "Enter" });
    const view = await screen.findByTestId("session-view");
    expect(within(view).getByTestId("session-argv").textContent).toBe("--url https://example.com/mcp");
    expect(rows()[2]?.getAttribute("aria-current")).toBe("true");
    expect(await within(view).findByTestId("handshake-waiting")).toBeTruthy();
  });

  it("shows the handshake, the tools and what changed, the calls, and a call's request and response", async () => {
    installLiveBackend({ sessions: [running], records: new Map([[`everything/${running.session_id}`, [...opening(), ...calls()]]]) });
    renderPane();
    fireEvent.click(await screen.findByTestId("session-row"));
    const handshake = await screen.findByTestId("handshake");
    expect(handshake.textContent).toContain("claude-desktop 1.2");
    expect(handshake.textContent).toContain("everything 2.0.0");
    expect(handshake.textContent).toContain("2025-06-18");
    expect(handshake.textContent).toContain("tools, logging");
    const tools = screen.getByTestId("tool-listings");
    expect(tools.textContent).toContain("2 tools");
    expect(screen.getByTestId("tools-changed").textContent).toContain("since the previous session 20251231T090000.000Z-99999999");
    expect(screen.getByTestId("tools-changed").textContent).toContain("added: get-sum");
    expect(screen.getByTestId("tools-changed").textContent).toContain("removed: add");

    const callRows = screen.getAllByTestId("call-row");
    expect(callRows.map((row) => within(row).getByTestId("call-outcome").textContent)).toEqual(["result", "tool error"]);
    const invalid = callRows[1];
    if (!invalid) throw new Error("no second call");
    expect(within(invalid).getByTestId("call-invalid").textContent).toBe("invalid");
    expect(invalid.textContent).toContain('/a: "one" is not of type "number"');
    expect(callRows[0]?.textContent).toContain("progress 1");

    invalid.focus();
    fireEvent.keyDown(invalid, { key: "ArrowUp" });
    expect(document.activeElement).toBe(callRows[0]);
    fireEvent.keyDown(callRows[0] ?? invalid, { key: "Enter" });
    const detail = await screen.findByTestId("call-detail");
    expect(JSON.parse(within(detail).getByTestId("call-request").textContent)).toMatchObject({ params: { name: "echo", arguments: { message: "hi" } } });
    expect(within(detail).getByTestId("call-content").textContent).toContain("Echo: hi");
    expect(detail.textContent).toContain("progress 1 of 2");
    expect(within(detail).getByTestId("call-copy-fixture")).toBeTruthy();
    expect(within(detail).getByTestId("call-copy-mock")).toBeTruthy();
    fireEvent.click(within(detail).getByTestId("call-open-executor"));
    const probe = screen.getByTestId("probe");
    expect(probe.dataset.pane).toBe("executor");
    expect(JSON.parse(probe.textContent)).toEqual({ toolName: "everything_echo", args: { message: "hi" } });

    fireEvent.click(invalid);
    const second = await screen.findByTestId("call-detail");
    expect(within(second).getByTestId("call-issues").textContent).toContain("The call was forwarded anyway.");
    expect(JSON.parse(within(second).getByTestId("call-response").textContent)).toMatchObject({ id: 3, result: { isError: true } });
  });

  it("tails a running session from its cursor as records are appended, until its end", async () => {
    const records = opening();
    const backend = installLiveBackend({ sessions: [running], records: new Map([[`everything/${running.session_id}`, records]]) });
    renderPane();
    fireEvent.click(await screen.findByTestId("session-row"));
    await screen.findByTestId("handshake");
    expect(screen.queryAllByTestId("call-row")).toHaveLength(0);

    // The agent calls a tool: first the request (waiting), then the answer.
    records.push(message(8, "agent_to_server", { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { message: "hi" } } }));
    const pending = await screen.findByTestId("call-row");
    expect(within(pending).getByTestId("call-outcome").textContent).toBe("waiting");
    records.push(
      message(9, "server_to_agent", { jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "Echo: hi" }] } }),
      record(10, { type: "call", request_seq: 8, response_seq: 9, id: 2, tool: "echo", latency_ms: 2, outcome: "result", error: null }),
      end(11),
    );
    await waitFor(() => {
      expect(within(screen.getByTestId("call-row")).getByTestId("call-outcome").textContent).toBe("result");
    });
    expect((await screen.findByTestId("event-end")).textContent).toContain("The agent closed the session (server exit status 0).");

    const reads = backend.reads.filter((r) => r.id === running.session_id);
    expect(reads[0]?.from).toEqual({ line: 0, offset: 0 });
    expect(reads.some((r) => r.from.line === 8)).toBe(true);
    // After the end, nothing more is read.
    const count = backend.reads.length;
    await new Promise((resolve) => setTimeout(resolve, POLL * 5));
    expect(backend.reads.length).toBe(count);
  });

  it("polls only while the pane is shown", async () => {
    const backend = installLiveBackend({ sessions: [running], records: new Map([[`everything/${running.session_id}`, opening()]]) });
    const { rerender } = renderPane();
    fireEvent.click(await screen.findByTestId("session-row"));
    await screen.findByTestId("handshake");
    await waitFor(() => {
      expect(backend.lists).toBeGreaterThan(2);
    });
    rerender(<Wrapped active={false} />);
    await new Promise((resolve) => setTimeout(resolve, POLL * 2));
    const lists = backend.lists;
    const reads = backend.reads.length;
    await new Promise((resolve) => setTimeout(resolve, POLL * 5));
    expect(backend.lists).toBe(lists);
    expect(backend.reads.length).toBe(reads);

    rerender(<Wrapped active />);
    await waitFor(() => {
      expect(backend.lists).toBeGreaterThan(lists);
    });
    // The open session goes on from where it stopped, not from the start.
    await waitFor(() => {
      expect(backend.reads.length).toBeGreaterThan(reads);
    });
    expect(backend.reads.at(-1)?.from.line).toBe(opening().length);
  });

  it("replays a session against its server after showing what will run", async () => {
    const backend = installLiveBackend({
      sessions: [running],
      records: new Map([[`everything/${running.session_id}`, [...opening(), ...calls()]]]),
      replay: {
        session_id: "20260102T000000.000Z-abcdef12",
        requests: [
          { id: 1, method: "initialize", tool: null, verdict: "same", paths: [] },
          { id: 2, method: "tools/call", tool: "echo", verdict: "different", paths: ["/result/content/0/text"] },
        ],
        same: 1,
        different: 1,
        unanswered: 0,
      },
    });
    renderPane();
    fireEvent.click(await screen.findByTestId("session-row"));
    fireEvent.click(await screen.findByTestId("replay-start"));
    expect(screen.getByTestId("replay").textContent).toContain("This runs npx -y @modelcontextprotocol/server-everything again");
    expect(backend.replays).toEqual([]);
    fireEvent.click(screen.getByTestId("replay-run"));
    const result = await screen.findByTestId("replay-result");
    expect(result.textContent).toContain("2 requests: 1 same, 1 different, 0 unanswered");
    expect(screen.getAllByTestId("replay-changed").map((li) => li.textContent)).toEqual(["2 tools/call echo: different at /result/content/0/text "]);
    expect(backend.replays).toEqual([{ name: "everything", id: running.session_id }]);
  });

  it("sets, lists and clears a tool's faults, one of them an imported tool's mock", async () => {
    const backend = installLiveBackend({
      sessions: [running],
      records: new Map([[`everything/${running.session_id}`, [...opening(), ...calls()]]]),
      importedSets: [
        {
          name: "Shop",
          id: "imported_shop",
          imported_at: "2026-01-01T00:00:00Z",
          definitions: [],
          mocks: { echo: { reply: { type: "template", template: { said: "{{message}}" } }, latency_ms: 40 } },
        },
      ],
    });
    renderPane();
    fireEvent.click(await screen.findByTestId("session-row"));
    const faults = await screen.findByTestId<HTMLDetailsElement>("faults");
    fireEvent.click(within(faults).getByText("Faults"));
    expect(faults.open).toBe(true);
    await waitFor(() => {
      expect(faults.textContent).toContain("No faults: every call reaches the server.");
    });
    // The tool is the first of the last listing; a missing delay is refused here.
    expect(within(faults).getByTestId<HTMLInputElement>("fault-tool").value).toBe("echo");
    fireEvent.change(within(faults).getByTestId("fault-delay"), { target: { value: "" } });
    fireEvent.click(within(faults).getByTestId("fault-set-button"));
    expect((await within(faults).findByRole("alert")).textContent).toContain("whole number of milliseconds");
    expect(backend.faultChanges).toEqual([]);
    fireEvent.change(within(faults).getByTestId("fault-delay"), { target: { value: "800" } });
    fireEvent.click(within(faults).getByTestId("fault-set-button"));
    await waitFor(() => {
      expect(within(faults).getAllByTestId("fault-entry").map((li) => li.textContent)).toEqual(["echo: forwarded after 800 ms Clear"]);
    });

    fireEvent.change(within(faults).getByTestId("fault-tool"), { target: { value: "get-sum" } });
    fireEvent.change(within(faults).getByTestId("fault-kind"), { target: { value: "imported" } });
    fireEvent.change(await within(faults).findByTestId("fault-set"), { target: { value: "Shop" } });
    expect(within(faults).getByTestId<HTMLSelectElement>("fault-definition").value).toBe("echo");
    fireEvent.click(within(faults).getByTestId("fault-set-button"));
    await waitFor(() => {
      expect(within(faults).getAllByTestId("fault-entry")).toHaveLength(2);
    });
    expect(faults.textContent).toContain("get-sum: answered as Shop's mock of echo, after 40 ms");
    expect(backend.faultChanges.at(-1)).toEqual({ name: "everything", tool: "get-sum", change: { kind: "mock_from", set: "Shop", definition: "echo" } });

    fireEvent.click(within(faults).getByRole("button", { name: "Clear the fault of echo" }));
    await waitFor(() => {
      expect(within(faults).getAllByTestId("fault-entry")).toHaveLength(1);
    });
    expect(backend.faults).not.toHaveProperty("echo");
  });
});
