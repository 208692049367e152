/** The Executor's completion catalog follows the tool sources (`sources-changed`). */
import { emit } from "@tauri-apps/api/event";
import { clearMocks } from "@tauri-apps/api/mocks";
import { act, cleanup, renderHook, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import { installBackend, TOOLS } from "./testBackend";
import { useToolCatalog } from "./useToolCatalog";

afterEach(() => {
  cleanup();
  clearMocks();
});

describe("useToolCatalog", () => {
  it("reloads when the tool sources change", async () => {
    const backend = installBackend();
    const { result } = renderHook(() => useToolCatalog(true));
    await waitFor(() => {
      expect(result.current.methods.has("calculator_evaluate")).toBe(true);
    });
    backend.tools = [
      ...TOOLS,
      {
        id: "files",
        name: "files",
        description: "An MCP server",
        source: "mcp",
        enabled: true,
        methods: [
          {
            routing_name: "files_read-file",
            meta: { name: "read-file", description: "", parameters: { type: "object" }, agent_callable: true },
          },
        ],
      },
    ];
    await act(() => emit("sources-changed", 3));
    await waitFor(() => {
      expect(result.current.methods.get("files_read-file")?.source).toBe("mcp");
    });
  });
});
