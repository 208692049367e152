/**
 * The Sources pane against a fake backend (mockIPC with events): server statuses, secrets kept
 * out of the list, the add form's validation and kept input, approval of a command line,
 * import, server output, and the HTTP definition editor's save and delete.
 */
import { emit } from "@tauri-apps/api/event";
import { clearMocks } from "@tauri-apps/api/mocks";
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import { emitAppEvent } from "../../lib/appEvents";
import { SourcesPane } from "./SourcesPane";
import { commandError, installSourcesBackend } from "./testBackend";

afterEach(() => {
  cleanup();
  clearMocks();
});

function server(name: string): HTMLElement {
  const row = screen.getAllByTestId("server-item").find((item) => item.dataset.name === name);
  if (!row) throw new Error(`no server row ${name}`);
  return row;
}

async function renderPane() {
  render(<SourcesPane active />);
  await screen.findAllByTestId("server-item");
}

function change(testId: string, value: string) {
  fireEvent.change(screen.getByTestId(testId), { target: { value } });
}

describe("where MCP sampling requests go", () => {
  it("lists the endpoint profiles, stores the choice, and shows a removed one as removed", async () => {
    const backend = installSourcesBackend();
    backend.samplingProfile = "gone";
    await renderPane();
    const select = within(screen.getByTestId("sampling-choice")).getByRole<HTMLSelectElement>("combobox");
    await waitFor(() => {
      expect(select.value).toBe("gone");
    });
    expect([...select.options].map((o) => o.textContent)).toEqual(["nobody: decline them", "local", "gone (removed)"]);

    fireEvent.change(select, { target: { value: "local" } });
    await waitFor(() => {
      expect(backend.samplingProfile).toBe("local");
    });
    fireEvent.change(select, { target: { value: "" } });
    await waitFor(() => {
      expect(backend.samplingProfile).toBeNull();
    });
    expect(backend.argsOf("set_sampling_profile")).toEqual([{ profile: "local" }, { profile: null }]);

    // A profile saved in the Agent pane is offered at once.
    backend.profiles = ["local", "cloud"];
    act(() => {
      emitAppEvent("profiles-changed");
    });
    await waitFor(() => {
      expect([...select.options].map((o) => o.value)).toEqual(["", "local", "cloud"]);
    });
  });
});

describe("MCP server list", () => {
  it("shows each server's transport and status, with the failure reason in full", async () => {
    installSourcesBackend();
    await renderPane();
    const states = screen.getAllByTestId("server-item").map((row) => row.dataset.state);
    expect(states).toEqual(["ready", "failed", "awaiting_approval", "disabled", "connecting"]);

    const files = within(server("files"));
    expect(files.getByTestId("server-status").textContent).toBe("ready · 14 tools");
    expect(files.getByTestId("server-info").textContent).toBe("secure-filesystem-server 0.2.0");
    expect(files.getByTestId("server-transport").textContent).toBe("npx -y @modelcontextprotocol/server-filesystem '/tmp/my dir'");
    expect(server("files").textContent).toContain("env: API_TOKEN");

    expect(within(server("remote")).getByTestId("server-failure").textContent).toContain("connection refused (os error 111)");
    expect(within(server("fresh")).getByTestId("server-status").textContent).toBe("awaiting approval");
    expect(within(server("fresh")).getByTestId("server-approve")).toBeTruthy();
    expect(within(server("off")).getByTestId("server-toggle").textContent).toBe("Enable");
    expect(within(server("starting")).getByTestId("server-status").textContent).toBe("connecting…");
  });

  it("never shows env values, header values or URL query values in the list", async () => {
    installSourcesBackend();
    await renderPane();
    const list = screen.getByRole("list", { name: "MCP servers" }).textContent;
    expect(list).not.toContain("sk-secret-env-value");
    expect(list).not.toContain("hdr-secret");
    expect(list).not.toContain("q-secret");
    expect(server("remote").textContent).toContain("headers: Authorization");
    expect(within(server("remote")).getByTestId("server-transport").textContent).toBe("https://mcp.example.com/mcp?key=***");
  });

  it("refreshes on sources-changed", async () => {
    const backend = installSourcesBackend();
    await renderPane();
    const fresh = backend.servers.find((s) => s.config.name === "fresh");
    if (!fresh) throw new Error("fixture");
    fresh.status = { state: "ready", tools: 2, server: "test 1.0" };
    await act(() => emit("sources-changed", 7));
    await waitFor(() => {
      expect(server("fresh").dataset.state).toBe("ready");
    });
  });

  it("removes a server only after confirming", async () => {
    const backend = installSourcesBackend();
    await renderPane();
    fireEvent.click(within(server("off")).getByTestId("server-remove"));
    const dialog = screen.getByTestId("remove-dialog");
    fireEvent.keyDown(dialog, { key: "Escape" });
    expect(screen.queryByTestId("remove-dialog")).toBeNull();
    expect(backend.argsOf("mcp_remove")).toEqual([]);
    fireEvent.click(within(server("off")).getByTestId("server-remove"));
    fireEvent.click(screen.getByTestId("remove-dialog-confirm"));
    await waitFor(() => {
      expect(screen.getAllByTestId("server-item").map((row) => row.dataset.name)).not.toContain("off");
    });
    expect(backend.argsOf("mcp_remove")).toEqual([{ name: "off" }]);
  });

  it("shows a server's output", async () => {
    installSourcesBackend();
    await renderPane();
    fireEvent.click(within(server("files")).getByTestId("server-output"));
    expect((await screen.findByTestId("server-log-lines")).textContent).toBe(
      "Secure MCP Filesystem Server running on stdio\nAllowed directories: [ '/tmp/my dir' ]",
    );
  });
});

describe("approval", () => {
  it("shows the exact command line; Esc cancels, Enter approves", async () => {
    const backend = installSourcesBackend();
    await renderPane();
    fireEvent.click(within(server("fresh")).getByTestId("server-approve"));
    const dialog = screen.getByTestId("approval-dialog");
    expect(within(dialog).getByTestId("approval-command-line").textContent).toBe("/opt/bin/server --stdio");
    expect(dialog.textContent).toContain("runs a program on this machine");
    expect(document.activeElement).toBe(within(dialog).getByTestId("approval-command-line"));

    fireEvent.keyDown(dialog, { key: "Escape" });
    expect(screen.queryByTestId("approval-dialog")).toBeNull();
    expect(backend.argsOf("mcp_approve")).toEqual([]);

    fireEvent.click(within(server("fresh")).getByTestId("server-approve"));
    fireEvent.keyDown(screen.getByTestId("approval-command-line"), { key: "Enter" });
    await waitFor(() => {
      expect(backend.argsOf("mcp_approve")).toEqual([{ name: "fresh" }]);
    });
    expect(screen.queryByTestId("approval-dialog")).toBeNull();
  });
});

describe("add form", () => {
  it("validates in place and keeps everything typed when the backend refuses", async () => {
    const backend = installSourcesBackend({
      mcp_add: () => commandError("source", "the name 'Files!' gives tool id 'files', which files uses already"),
    });
    await renderPane();
    fireEvent.click(screen.getByTestId("mcp-add"));
    fireEvent.click(screen.getByTestId("server-form-save"));
    expect(screen.getByTestId("server-form-name-error").textContent).toBe("A server needs a name.");
    expect(screen.getByTestId("server-form-command-error").textContent).toBe("The program to start is required.");
    expect(backend.argsOf("mcp_add")).toEqual([]);

    change("server-form-name", "files");
    expect(screen.getByTestId("server-form-name-error").textContent).toBe("A server named 'files' exists already.");
    change("server-form-name", "Files!");
    change("server-form-command", "node");
    change("server-form-args", "server.js\n--port\n\n8080");
    change("server-form-env", "TOKEN");
    fireEvent.click(screen.getByTestId("server-form-save"));
    expect(screen.getByTestId("server-form-env-error").textContent).toBe("line 1: expected KEY=VALUE");
    change("server-form-env", "TOKEN=${MY_TOKEN}");

    fireEvent.click(screen.getByTestId("server-form-save"));
    expect((await screen.findByTestId("server-form-error")).textContent).toContain("which files uses already");
    expect(backend.argsOf("mcp_add")).toEqual([
      {
        config: {
          name: "Files!",
          enabled: true,
          transport: { type: "stdio", command: "node", args: ["server.js", "--port", "8080"], env: { TOKEN: "${MY_TOKEN}" }, cwd: null },
        },
      },
    ]);
    expect(screen.getByTestId<HTMLInputElement>("server-form-name").value).toBe("Files!");
    expect(screen.getByTestId<HTMLTextAreaElement>("server-form-args").value).toBe("server.js\n--port\n\n8080");
    expect(screen.getByTestId<HTMLTextAreaElement>("server-form-env").value).toBe("TOKEN=${MY_TOKEN}");
  });

  it("checks an HTTP server's URL and headers, then adds it", async () => {
    const backend = installSourcesBackend();
    await renderPane();
    fireEvent.click(screen.getByTestId("mcp-add"));
    change("server-form-name", "web");
    fireEvent.click(screen.getByTestId("server-form-type-http"));
    change("server-form-url", "ftp://example.com");
    change("server-form-headers", "Authorization Bearer x");
    fireEvent.click(screen.getByTestId("server-form-save"));
    expect(screen.getByTestId("server-form-url-error").textContent).toBe("Expected an http:// or https:// URL.");
    expect(screen.getByTestId("server-form-headers-error").textContent).toBe("line 1: expected Name: value");
    change("server-form-url", "https://example.com/mcp");
    change("server-form-headers", "Authorization: Bearer ${TOKEN}");
    fireEvent.click(screen.getByTestId("server-form-save"));
    await waitFor(() => {
      expect(screen.queryByTestId("server-form")).toBeNull();
    });
    expect(backend.argsOf("mcp_add")[0]).toEqual({
      config: {
        name: "web",
        enabled: true,
        transport: { type: "http", url: "https://example.com/mcp", headers: { Authorization: "Bearer ${TOKEN}" } },
      },
    });
  });

  it("opens the approval dialog right after adding a command line", async () => {
    installSourcesBackend();
    await renderPane();
    fireEvent.click(screen.getByTestId("mcp-add"));
    change("server-form-name", "local");
    change("server-form-command", "/usr/bin/local-mcp");
    fireEvent.click(screen.getByTestId("server-form-save"));
    expect((await screen.findByTestId("approval-command-line")).textContent).toBe("/usr/bin/local-mcp");
  });

  it("edits a server with its current settings filled in", async () => {
    const backend = installSourcesBackend();
    await renderPane();
    fireEvent.click(within(server("remote")).getByTestId("server-edit"));
    expect(screen.getByTestId<HTMLInputElement>("server-form-url").value).toBe("https://mcp.example.com/mcp?key=q-secret");
    expect(screen.getByTestId<HTMLTextAreaElement>("server-form-headers").value).toBe("Authorization: Bearer hdr-secret");
    change("server-form-url", "https://mcp.example.com/v2");
    fireEvent.click(screen.getByTestId("server-form-save"));
    await waitFor(() => {
      expect(backend.argsOf("mcp_update")).toHaveLength(1);
    });
    expect(backend.argsOf("mcp_update")[0]?.name).toBe("remote");
  });
});

describe("import and export", () => {
  it("shows the servers an import added and its warnings", async () => {
    const backend = installSourcesBackend({
      mcp_import: () => ({
        servers: [{ name: "github", transport: { type: "stdio", command: "docker" }, enabled: true }],
        warnings: ["server 'weird': no command or url"],
      }),
    });
    await renderPane();
    fireEvent.click(screen.getByTestId("mcp-import"));
    change("import-text", '{"mcpServers": {}}');
    fireEvent.click(screen.getByTestId("import-run"));
    const report = await screen.findByTestId("import-report");
    expect(report.textContent).toContain("Added 1 server: github");
    expect(within(report).getByTestId("import-warnings").textContent).toBe("server 'weird': no command or url");
    expect(backend.argsOf("mcp_import")).toEqual([{ text: '{"mcpServers": {}}' }]);
  });

  it("keeps the pasted text when the import fails", async () => {
    installSourcesBackend({ mcp_import: () => commandError("invalid_input", "not valid JSON: EOF while parsing") });
    await renderPane();
    fireEvent.click(screen.getByTestId("mcp-import"));
    change("import-text", "{oops");
    fireEvent.click(screen.getByTestId("import-run"));
    expect((await screen.findByTestId("import-error")).textContent).toContain("not valid JSON");
    expect(screen.getByTestId<HTMLTextAreaElement>("import-text").value).toBe("{oops");
  });

  it("shows the export text", async () => {
    installSourcesBackend();
    await renderPane();
    fireEvent.click(screen.getByTestId("mcp-export"));
    fireEvent.click(screen.getByTestId("export-run"));
    expect((await screen.findByTestId("export-text")).textContent).toContain('"mcpServers"');
  });
});

describe("HTTP tools", () => {
  it("lists files, tool ids and problems", async () => {
    installSourcesBackend();
    await renderPane();
    const files = await screen.findAllByTestId("http-file");
    expect(files.map((file) => file.textContent)).toEqual(["broken.jsonnot loaded", "weather.tomltool weather", "zz-off.jsondisabled"]);
    expect(screen.getByTestId("http-problems").textContent).toBe("broken.json: methods[0].endpoint.url: relative URL without a base");
    expect(screen.getByTestId("http-directory").textContent).toContain("http-tools");
  });

  it("keeps the text in the editor when a save is refused (Ctrl+S)", async () => {
    const backend = installSourcesBackend({
      http_tool_save: () => commandError("invalid_input", "weather.toml: methods[0].name: must not contain '_'"),
    });
    await renderPane();
    fireEvent.click((await screen.findAllByTestId("http-file"))[1] ?? document.body);
    const editor = await screen.findByTestId<HTMLTextAreaElement>("http-editor-text");
    expect(editor.value).toBe('id = "weather"\n');
    fireEvent.change(editor, { target: { value: 'id = "weather"\n[[methods]]\nname = "bad_name"\n' } });
    fireEvent.keyDown(editor, { key: "s", ctrlKey: true });
    expect((await screen.findByTestId("http-save-error")).textContent).toContain("must not contain '_'");
    expect(screen.getByTestId<HTMLTextAreaElement>("http-editor-text").value).toBe('id = "weather"\n[[methods]]\nname = "bad_name"\n');
    expect(backend.argsOf("http_tool_save")).toEqual([
      { fileName: "weather.toml", text: 'id = "weather"\n[[methods]]\nname = "bad_name"\n' },
    ]);
    // Another file and back: the edit is still there.
    fireEvent.click(screen.getAllByTestId("http-file")[0] ?? document.body);
    await waitFor(() => {
      expect(screen.getByTestId<HTMLTextAreaElement>("http-editor-text").value).toBe('{"id": "broken"}\n');
    });
    fireEvent.click(screen.getAllByTestId("http-file")[1] ?? document.body);
    expect(screen.getByTestId<HTMLTextAreaElement>("http-editor-text").value).toContain("bad_name");
  });

  it("creates a file from a template and saves it", async () => {
    const backend = installSourcesBackend();
    await renderPane();
    change("http-new-name", "notes.txt");
    fireEvent.click(screen.getByTestId("http-new"));
    expect(screen.getByTestId("http-new-error").textContent).toBe("The name must end in .json or .toml.");
    change("http-new-name", "notes.json");
    fireEvent.click(screen.getByTestId("http-new"));
    const text = screen.getByTestId<HTMLTextAreaElement>("http-editor-text").value;
    expect(JSON.parse(text)).toMatchObject({ id: "notes", methods: [{ name: "get" }] });
    fireEvent.click(screen.getByTestId("http-save"));
    await waitFor(() => {
      expect(backend.argsOf("http_tool_save")).toEqual([{ fileName: "notes.json", text }]);
    });
  });

  it("deletes a file after confirming", async () => {
    const backend = installSourcesBackend();
    await renderPane();
    fireEvent.click((await screen.findAllByTestId("http-file"))[0] ?? document.body);
    await screen.findByTestId("http-editor-text");
    fireEvent.click(screen.getByTestId("http-delete"));
    fireEvent.click(screen.getByTestId("delete-dialog-confirm"));
    await waitFor(() => {
      expect(backend.argsOf("http_tool_delete")).toEqual([{ fileName: "broken.json" }]);
    });
    await waitFor(() => {
      expect(screen.getAllByTestId("http-file").map((file) => file.dataset.file)).toEqual(["weather.toml", "zz-off.json"]);
    });
  });
});
