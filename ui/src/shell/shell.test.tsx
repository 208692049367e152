import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import type { Settings } from "../lib/ipc";
import { StartupNotices } from "./StartupNotices";
import { ThemeSelect } from "./ThemeSelect";

afterEach(() => {
  cleanup();
  clearMocks();
  delete document.documentElement.dataset.theme;
});

describe("ThemeSelect", () => {
  it("applies the stored theme and saves a new one", async () => {
    let stored: Settings = { theme: "dark", last_protocol: "vcp" };
    const saved: Settings[] = [];
    mockIPC((cmd, args) => {
      if (cmd === "get_settings") return stored;
      if (cmd === "save_settings") {
        const next = (args as { settings: Settings }).settings;
        saved.push(next);
        stored = next;
        return next;
      }
      throw new Error(`unexpected ${cmd}`);
    });
    render(<ThemeSelect />);
    await waitFor(() => {
      expect(document.documentElement.dataset.theme).toBe("dark");
    });
    fireEvent.change(screen.getByTestId("theme-select"), { target: { value: "system" } });
    await waitFor(() => {
      expect(saved).toHaveLength(1);
    });
    expect(saved[0]?.theme).toBe("system");
    expect(saved[0]?.last_protocol).toBe("vcp");
    expect(document.documentElement.dataset.theme).toBeUndefined();
  });

  it("reports a failed save", async () => {
    mockIPC((cmd) => {
      if (cmd === "get_settings") return {};
      // A command's error value is a plain {kind, message, details} object, not an Error.
      // eslint-disable-next-line @typescript-eslint/only-throw-error
      throw { kind: "settings", message: "disk full", details: null };
    });
    render(<ThemeSelect />);
    fireEvent.change(screen.getByTestId("theme-select"), { target: { value: "light" } });
    expect((await screen.findByRole("alert")).textContent).toContain("disk full");
  });
});

describe("StartupNotices", () => {
  it("shows notices until dismissed", async () => {
    mockIPC((cmd) => {
      if (cmd === "startup_notices") return ["history tail set aside"];
      throw new Error(`unexpected ${cmd}`);
    });
    render(<StartupNotices />);
    expect((await screen.findByTestId("startup-notices")).textContent).toContain("history tail set aside");
    fireEvent.click(screen.getByRole("button", { name: "Dismiss" }));
    expect(screen.queryByTestId("startup-notices")).toBeNull();
  });

  it("renders nothing when there is nothing to say", async () => {
    let asked = false;
    mockIPC((cmd) => {
      if (cmd === "startup_notices") {
        asked = true;
        return [];
      }
      throw new Error(`unexpected ${cmd}`);
    });
    const { container } = render(<StartupNotices />);
    await waitFor(() => {
      expect(asked).toBe(true);
    });
    expect(container.innerHTML).toBe("");
  });
});
