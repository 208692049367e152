/** "Copy as…": the backend builds the text, the control copies it or says why it cannot. */
import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { CopyAs } from "./CopyAs";

const writeText = vi.fn<(text: string) => Promise<void>>();

beforeEach(() => {
  writeText.mockReset().mockResolvedValue(undefined);
  Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
});

afterEach(() => {
  cleanup();
  clearMocks();
});

describe("CopyAs", () => {
  it("copies what the backend exports and offers result messages only with a result", async () => {
    const calls: unknown[] = [];
    mockIPC((cmd, payload) => {
      calls.push({ cmd, payload });
      if (cmd === "export_call") return "curl 'https://api.example/x' -H 'authorization: Bearer '\"${TOKEN}\"";
      throw new Error(`unexpected ${cmd}`);
    });
    const source = { from: "history", id: "e1" } as const;
    const { rerender } = render(<CopyAs source={source} hasResult={false} label="the run" />);
    const select = screen.getByTestId<HTMLSelectElement>("copy-as");
    const openai = [...select.options].find((o) => o.value === "openai_chat");
    expect(openai?.disabled).toBe(true);
    fireEvent.change(select, { target: { value: "curl" } });
    await waitFor(() => {
      expect(screen.getByTestId("copy-as-status").textContent).toBe("cURL (HTTP tools) copied.");
    });
    expect(writeText).toHaveBeenCalledWith("curl 'https://api.example/x' -H 'authorization: Bearer '\"${TOKEN}\"");
    expect(calls).toEqual([{ cmd: "export_call", payload: { kind: { kind: "curl" }, source } }]);
    expect(select.value).toBe("");

    rerender(<CopyAs source={source} hasResult label="the run" />);
    expect([...select.options].find((o) => o.value === "openai_chat")?.disabled).toBe(false);
  });

  it("says why a call has no such form", async () => {
    mockIPC((cmd) => {
      if (cmd === "export_call") {
        // A command's error value is a plain {kind, message, details} object.
        // eslint-disable-next-line @typescript-eslint/only-throw-error
        throw { kind: "invalid_input", message: "the tool 'echo' (built-in) sends no HTTP request", details: null };
      }
      throw new Error(`unexpected ${cmd}`);
    });
    render(<CopyAs source={{ from: "history", id: "e1" }} hasResult label="the run" />);
    fireEvent.change(screen.getByTestId("copy-as"), { target: { value: "curl" } });
    const status = await screen.findByTestId("copy-as-status");
    await waitFor(() => {
      expect(status.textContent).toContain("sends no HTTP request");
    });
    expect(status.className).toContain("copy-as-failed");
    expect(writeText).not.toHaveBeenCalled();
  });
});
