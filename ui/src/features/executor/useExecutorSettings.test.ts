/** The Executor's timeout follows a timeout saved elsewhere (the Settings view). */
import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { cleanup, renderHook, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import { emitAppEvent } from "../../lib/appEvents";
import { useExecutorSettings } from "./useExecutorSettings";

afterEach(() => {
  cleanup();
  clearMocks();
});

describe("useExecutorSettings", () => {
  it("reads the timeout again when settings were saved elsewhere", async () => {
    let timeout = 30000;
    mockIPC((cmd) => {
      if (cmd === "get_settings") return { config: { timeout_ms: timeout } };
      throw new Error(`unexpected ${cmd}`);
    });
    const { result } = renderHook(() => useExecutorSettings());
    await waitFor(() => {
      expect(result.current.timeoutMs).toBe(30000);
    });
    timeout = 4321;
    emitAppEvent("settings-changed");
    await waitFor(() => {
      expect(result.current.timeoutMs).toBe(4321);
    });
  });
});
