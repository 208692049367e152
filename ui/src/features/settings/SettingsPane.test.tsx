/**
 * The Settings view against a fake backend (mockIPC): every ToolCallConfig field shown with its
 * value and what it does, only the changed fields sent, a refused save shown next to each field
 * with nothing else lost, reset to default, discard, and a reload when another pane saved.
 */
import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import { emitAppEvent, onAppEvent } from "../../lib/appEvents";
import type { ConfigForm, ToolCallConfig, Value } from "../../lib/ipc";
import { GROUPS } from "./settingsFields";
import { SettingsPane } from "./SettingsPane";

afterEach(() => {
  cleanup();
  clearMocks();
});

/** Every field, so a field added to the Rust config without a row here fails to compile. */
const DEFAULTS: Required<ToolCallConfig> = {
  enabled: true,
  mode: "auto",
  tool_toggles: {},
  default_tool_enabled: true,
  max_iterations: 10,
  timeout_ms: 30000,
  require_confirmation: false,
  parallel_execution: "smart",
  protocol: "vcp",
  max_total_tool_calls: 32,
  max_tool_output_bytes: 65536,
  strict_unknown_tool: false,
};

function form(config: ToolCallConfig): ConfigForm {
  return {
    config,
    defaults: DEFAULTS,
    limits: [
      { field: "timeout_ms", min: 1, max: 86400000 },
      { field: "max_tool_output_bytes", min: 1, max: 67108864 },
      { field: "max_total_tool_calls", min: 1, max: 10000 },
      { field: "max_iterations", min: 1, max: 1000 },
    ],
    protocols: ["vcp", "hermes", "json_strict"],
    path: "/data/settings.json",
  };
}

type Refusal = Record<string, string> | null;

/** A backend holding `config`; `refuse` may turn a save down with field messages. */
function backend(initial: ToolCallConfig, refuse: (changes: Record<string, Value>) => Refusal = () => null) {
  let config = { ...initial };
  const saves: Record<string, Value>[] = [];
  let loads = 0;
  mockIPC((cmd, args) => {
    if (cmd === "config_load") {
      loads += 1;
      return form(config);
    }
    if (cmd === "config_save") {
      const changes = (args as { changes: Record<string, Value> }).changes;
      saves.push(changes);
      const fields = refuse(changes);
      if (fields) {
        // A command's error is a plain {kind, message, details} object.
        // eslint-disable-next-line @typescript-eslint/only-throw-error
        throw { kind: "invalid_input", message: Object.keys(fields).join("; "), details: { fields } };
      }
      config = { ...config, ...(changes as ToolCallConfig) };
      return form(config);
    }
    throw new Error(`unexpected ${cmd}`);
  });
  return {
    saves,
    loads: () => loads,
    set: (next: ToolCallConfig) => {
      config = next;
    },
  };
}

function field(key: string): HTMLInputElement {
  return screen.getByTestId(`setting-${key}`);
}

describe("SettingsPane", () => {
  it("shows every config field with its value, what it does and its default", async () => {
    backend({ ...DEFAULTS, timeout_ms: 5000, mode: "manual", tool_toggles: { echo: false } });
    render(<SettingsPane active />);
    await screen.findByTestId("setting-timeout_ms");
    const shown = GROUPS.flatMap((g) => g.fields.map((f) => f.key)).sort();
    expect(shown).toEqual(Object.keys(DEFAULTS).sort());
    for (const key of shown) expect(field(key)).toBeTruthy();
    expect(field("timeout_ms").value).toBe("5000");
    expect(field("timeout_ms").min).toBe("1");
    expect(field("mode").value).toBe("manual");
    expect(field("parallel_execution").value).toBe("smart");
    expect(field("require_confirmation").checked).toBe(false);
    expect(field("protocol").value).toBe("vcp");
    expect(field("tool_toggles").textContent).toContain("off: echo");
    const help = screen.getByText(/How long one call may run/);
    expect(help.textContent).toContain("Default: 30000 ms (30.0 s).");
    expect(screen.getByText(/Output longer than this/).textContent).toContain("Default: 65536 bytes (64.0 KiB).");
    expect(field("timeout_ms").getAttribute("aria-describedby")).toBe(help.id);
    expect(screen.getByText("/data/settings.json")).toBeTruthy();
    expect(screen.getByTestId<HTMLButtonElement>("settings-save").disabled).toBe(true);
  });

  it("saves only what changed and says the next run uses it", async () => {
    const fake = backend({ ...DEFAULTS, tool_toggles: { echo: false } });
    const changed: string[] = [];
    const stop = onAppEvent("settings-changed", () => changed.push("settings"));
    render(<SettingsPane active />);
    await screen.findByTestId("setting-timeout_ms");
    fireEvent.change(field("timeout_ms"), { target: { value: "1500" } });
    fireEvent.change(field("parallel_execution"), { target: { value: "serial" } });
    fireEvent.click(field("require_confirmation"));
    expect(screen.getByTestId("settings-status").textContent).toBe("3 unsaved changes.");
    fireEvent.click(screen.getByTestId("settings-save"));
    await waitFor(() => {
      expect(screen.getByTestId("settings-status").textContent).toContain("Saved");
    });
    stop();
    expect(fake.saves).toEqual([{ timeout_ms: 1500, parallel_execution: "serial", require_confirmation: true }]);
    expect(changed).toEqual(["settings"]);
    expect(field("timeout_ms").value).toBe("1500");
    expect(screen.queryByText("(changed)")).toBeNull();
  });

  it("shows a refused save next to each field, keeps the draft, and saves nothing of it", async () => {
    const fake = backend(DEFAULTS, (changes) =>
      changes.timeout_ms === 0 ? { timeout_ms: "must be between 1 and 86400000", max_iterations: "must be a whole number between 1 and 1000" } : null,
    );
    render(<SettingsPane active />);
    await screen.findByTestId("setting-timeout_ms");
    fireEvent.change(field("timeout_ms"), { target: { value: "0" } });
    fireEvent.change(field("max_iterations"), { target: { value: "" } });
    fireEvent.click(screen.getByTestId("settings-save"));
    expect((await screen.findByTestId("setting-timeout_ms-error")).textContent).toBe("must be between 1 and 86400000");
    expect(screen.getByTestId("setting-max_iterations-error").textContent).toContain("whole number");
    expect(fake.saves).toEqual([{ timeout_ms: 0, max_iterations: "" }]);
    expect(field("timeout_ms").value).toBe("0");
    expect(field("timeout_ms").getAttribute("aria-describedby")).toContain("setting-timeout_ms-error");
    expect(screen.getByTestId("settings-status").textContent).toBe("Not saved: 2 fields to fix.");
    fireEvent.change(field("timeout_ms"), { target: { value: "2000" } });
    // An edited field drops its message; the other keeps its own until fixed.
    expect(screen.queryByTestId("setting-timeout_ms-error")).toBeNull();
    expect(screen.getByTestId("settings-status").textContent).toBe("Not saved: 1 field to fix.");
    fireEvent.change(field("max_iterations"), { target: { value: "12" } });
    fireEvent.click(screen.getByTestId("settings-save"));
    await waitFor(() => {
      expect(screen.queryByTestId("setting-timeout_ms-error")).toBeNull();
    });
    expect(fake.saves.at(-1)).toEqual({ timeout_ms: 2000, max_iterations: 12 });
  });

  it("resets a field to its default, discards edits, and shows other failures whole", async () => {
    const fake = backend({ ...DEFAULTS, max_tool_output_bytes: 1024, tool_toggles: { echo: false } });
    render(<SettingsPane active />);
    await screen.findByTestId("setting-timeout_ms");
    expect(screen.getByTestId<HTMLButtonElement>("setting-timeout_ms-reset").disabled).toBe(true);
    fireEvent.click(screen.getByTestId("setting-max_tool_output_bytes-reset"));
    expect(field("max_tool_output_bytes").value).toBe("65536");
    fireEvent.click(screen.getByTestId("setting-tool_toggles-reset"));
    expect(field("tool_toggles").textContent).toContain("None");
    fireEvent.click(screen.getByTestId("settings-discard"));
    expect(field("max_tool_output_bytes").value).toBe("1024");
    expect(field("tool_toggles").textContent).toContain("off: echo");

    fireEvent.click(screen.getByTestId("setting-tool_toggles-reset"));
    fireEvent.click(screen.getByTestId("settings-save"));
    await waitFor(() => {
      expect(fake.saves).toEqual([{ tool_toggles: {} }]);
    });

    mockIPC((cmd) => {
      if (cmd === "config_load") return form(DEFAULTS);
      // eslint-disable-next-line @typescript-eslint/only-throw-error
      throw { kind: "settings", message: "the settings could not be saved (disk full)", details: null };
    });
    fireEvent.change(field("timeout_ms"), { target: { value: "7" } });
    fireEvent.click(screen.getByTestId("settings-save"));
    expect((await screen.findByTestId("settings-save-error")).textContent).toContain("disk full");
    expect(field("timeout_ms").value).toBe("7");
  });

  it("reads settings saved elsewhere again, unless there are edits", async () => {
    const fake = backend(DEFAULTS);
    render(<SettingsPane active />);
    await screen.findByTestId("setting-timeout_ms");
    fake.set({ ...DEFAULTS, timeout_ms: 900 });
    emitAppEvent("settings-changed");
    await waitFor(() => {
      expect(field("timeout_ms").value).toBe("900");
    });
    fireEvent.change(field("max_iterations"), { target: { value: "3" } });
    const loads = fake.loads();
    emitAppEvent("settings-changed");
    await Promise.resolve();
    expect(fake.loads()).toBe(loads);
    expect(field("max_iterations").value).toBe("3");
  });

  it("says when the settings cannot be read, with a retry", async () => {
    let fail = true;
    mockIPC((cmd) => {
      if (cmd !== "config_load") throw new Error(`unexpected ${cmd}`);
      if (fail) {
        // eslint-disable-next-line @typescript-eslint/only-throw-error
        throw { kind: "settings", message: "stored settings are unreadable", details: null };
      }
      return form(DEFAULTS);
    });
    render(<SettingsPane active />);
    expect((await screen.findByTestId("settings-load-error")).textContent).toContain("unreadable");
    fail = false;
    fireEvent.click(screen.getByRole("button", { name: "Try again" }));
    expect(await screen.findByTestId("setting-timeout_ms")).toBeTruthy();
    expect(screen.queryByTestId("settings-load-error")).toBeNull();
  });
});
