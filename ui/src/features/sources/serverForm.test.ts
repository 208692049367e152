import { describe, expect, it } from "vitest";

import type { McpServerConfig } from "../../lib/ipc";
import { fieldsOf, toConfig } from "./serverForm";

describe("the server form", () => {
  it("keeps an HTTP server's sign-in settings through an edit it does not show", () => {
    const config: McpServerConfig = {
      name: "tracker",
      enabled: true,
      transport: {
        type: "http",
        url: "https://mcp.example.com/mcp",
        headers: {},
        oauth: { clientId: "toolscope-desktop", clientSecret: "${TRACKER_SECRET}" },
      },
    };
    const edited = { ...fieldsOf(config), url: "https://mcp.example.com/v2/mcp" };
    const result = toConfig(edited);
    expect(result).toEqual({
      ok: true,
      config: { ...config, transport: { ...config.transport, url: "https://mcp.example.com/v2/mcp" } },
    });
  });

  it("writes no sign-in settings for a server that had none", () => {
    const result = toConfig({ ...fieldsOf({ name: "plain", enabled: true, transport: { type: "http", url: "http://127.0.0.1:9/mcp" } }) });
    expect(result.ok && result.config.transport).toEqual({ type: "http", url: "http://127.0.0.1:9/mcp", headers: {} });
  });
});
