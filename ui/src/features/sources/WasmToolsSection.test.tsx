/**
 * The WASM tools section against the fake backend: directories with their tools, problems by
 * file and field, a typed directory added (and a refused one kept with the reason), removal
 * only after confirmation, and grants approved after the exact lines were shown.
 */
import { clearMocks } from "@tauri-apps/api/mocks";
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import { commandError, installSourcesBackend, WASM_VIEW } from "./testBackend";
import { WasmToolsSection } from "./WasmToolsSection";

afterEach(() => {
  cleanup();
  clearMocks();
});

function directory(path: string): HTMLElement {
  const block = screen.getAllByTestId("wasm-directory").find((item) => item.dataset.path === path);
  if (!block) throw new Error(`no directory block ${path}`);
  return block;
}

/** Types a path and presses Enter (which submits the form). */
function typeAndSubmit(path: string) {
  const input = screen.getByTestId<HTMLInputElement>("wasm-directory-input");
  fireEvent.change(input, { target: { value: path } });
  const form = input.form;
  if (!form) throw new Error("the input is not in a form");
  fireEvent.submit(form);
}

describe("WASM tools", () => {
  it("lists each directory with its tools, its problems by file and field, and pending grants", async () => {
    installSourcesBackend();
    render(<WasmToolsSection />);
    await screen.findAllByTestId("wasm-directory");
    const block = within(directory("/home/me/wasm-tools"));
    const tool = block.getByTestId("wasm-tool");
    expect(tool.dataset.toolId).toBe("textkit");
    expect(tool.textContent).toBe("textkitText kit4 methods");

    const problems = block.getByTestId("wasm-problems");
    expect(problems.className).toBe("src-problems");
    const listed = within(problems).getAllByRole("listitem");
    expect(listed.map((item) => item.textContent)).toEqual([
      "broken/manifest.toml: methods[0].export: the module does not export a function named 'missing'",
    ]);
    expect(within(problems).getByTitle("/home/me/wasm-tools/broken/manifest.toml")).toBeTruthy();

    expect(block.getByTestId("wasm-pending").textContent).toContain("files (files/manifest.toml) waits for your approval of 2 grants");
  });

  it("adds a typed directory on Enter, and keeps the text with the reason when it is refused", async () => {
    const backend = installSourcesBackend();
    render(<WasmToolsSection />);
    await screen.findAllByTestId("wasm-directory");

    typeAndSubmit("/tmp/built/textkit");
    await waitFor(() => {
      expect(screen.getAllByTestId("wasm-directory")).toHaveLength(2);
    });
    expect(backend.argsOf("wasm_add_directory")).toEqual([{ path: "/tmp/built/textkit" }]);
    expect(within(directory("/tmp/built/textkit")).getByTestId("wasm-tool").textContent).toBe("textkit1 method");
    expect(screen.getByTestId<HTMLInputElement>("wasm-directory-input").value).toBe("");

    typeAndSubmit("/tmp/missing");
    const error = await screen.findByTestId("wasm-add-error");
    expect(error.textContent).toBe("Could not add it: /tmp/missing is not a directory");
    expect(screen.getByTestId<HTMLInputElement>("wasm-directory-input").value).toBe("/tmp/missing");
    expect(screen.getAllByTestId("wasm-directory")).toHaveLength(2);

    // The button does what Enter does; an empty path is not sent.
    fireEvent.change(screen.getByTestId("wasm-directory-input"), { target: { value: "  " } });
    fireEvent.click(screen.getByTestId("wasm-add"));
    expect((await screen.findByTestId("wasm-add-error")).textContent).toContain("Type the path");
    expect(backend.argsOf("wasm_add_directory")).toHaveLength(2);
  });

  it("removes a directory only after the confirmation", async () => {
    const backend = installSourcesBackend();
    render(<WasmToolsSection />);
    await screen.findAllByTestId("wasm-directory");

    fireEvent.click(within(directory("/home/me/wasm-tools")).getByTestId("wasm-remove"));
    const dialog = screen.getByTestId("wasm-remove-dialog");
    expect(dialog.textContent).toContain("/home/me/wasm-tools");
    fireEvent.keyDown(dialog, { key: "Escape" });
    expect(screen.queryByTestId("wasm-remove-dialog")).toBeNull();
    expect(backend.argsOf("wasm_remove_directory")).toEqual([]);

    fireEvent.click(within(directory("/home/me/wasm-tools")).getByTestId("wasm-remove"));
    fireEvent.click(screen.getByTestId("wasm-remove-dialog-confirm"));
    expect(await screen.findByTestId("wasm-empty")).toBeTruthy();
    expect(backend.argsOf("wasm_remove_directory")).toEqual([{ path: "/home/me/wasm-tools" }]);
    expect(screen.queryByTestId("wasm-problems")).toBeNull();
  });

  it("shows the exact grant lines before approving them, and loads the tool", async () => {
    const backend = installSourcesBackend();
    render(<WasmToolsSection />);
    await screen.findAllByTestId("wasm-directory");
    const pending = WASM_VIEW.pending[0];
    if (!pending) throw new Error("the fixture has a pending tool");

    fireEvent.click(screen.getByTestId("wasm-review-grants"));
    const dialog = screen.getByTestId("wasm-approval-dialog");
    const lines = within(dialog).getByTestId("wasm-approval-grants");
    expect(lines.textContent).toBe("read the environment variable HOME\nread the directory /home/me/notes (seen as /notes)");
    expect(document.activeElement).toBe(lines);
    expect(dialog.textContent).toContain("/home/me/wasm-tools/files/manifest.toml");

    // Enter on the focused lines approves, as in the MCP dialog.
    fireEvent.keyDown(lines, { key: "Enter" });
    await waitFor(() => {
      expect(within(directory("/home/me/wasm-tools")).getAllByTestId("wasm-tool").map((t) => t.dataset.toolId)).toEqual(["textkit", "files"]);
    });
    expect(backend.argsOf("wasm_approve")).toEqual([{ key: pending.key }]);
    expect(screen.queryByTestId("wasm-approval-dialog")).toBeNull();
    expect(screen.queryByTestId("wasm-pending")).toBeNull();
  });

  it("shows why an action failed", async () => {
    installSourcesBackend({
      wasm_reload: () => commandError("not_ready", "WASM tools are unavailable (see the startup notice)"),
    });
    render(<WasmToolsSection />);
    await screen.findAllByTestId("wasm-directory");
    fireEvent.click(screen.getByTestId("wasm-reload"));
    expect((await screen.findByTestId("wasm-action-error")).textContent).toBe(
      "Could not reload: WASM tools are unavailable (see the startup notice)",
    );
  });
});
