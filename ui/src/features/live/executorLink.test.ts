import { describe, expect, it } from "vitest";

import { callArguments, routingName } from "./executorLink";

describe("opening a proxied call in the Executor", () => {
  it("names the app's source of the same name as the engine does", () => {
    expect(routingName("everything", "get-sum")).toBe("everything_get-sum");
    expect(routingName("weather", "get_weather")).toBe("weather_get-weather");
    expect(routingName("my files", "fs.read/all")).toBe("my-files_fs-read-all");
  });

  it("takes the arguments from the recorded request", () => {
    const request = { seq: 3, ms: 1, at: "2026-11-28T00:00:00Z", bytes: 10, dir: "agent_to_server" as const, byProxy: false, text: null,
      msg: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { message: "hi" } } } };
    expect(callArguments(request)).toEqual({ message: "hi" });
    expect(callArguments(undefined)).toEqual({});
  });
});
