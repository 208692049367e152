import { describe, expect, it } from "vitest";

import { listenCommand, llmCommand, mcpServersEntry, nameProblem, splitCommand } from "./snippets";

describe("snippets", () => {
  it("splits a command line as a shell would in the simple cases", () => {
    expect(splitCommand(`  npx -y "@scope/server x"  'a b'\\ c d\\"e ""`)).toEqual(["npx", "-y", "@scope/server x", "a b c", 'd"e', ""]);
    expect(splitCommand("")).toEqual([]);
  });

  it("accepts the names the proxy accepts", () => {
    expect(nameProblem("github-tools_2.x")).toBeNull();
    for (const bad of ["", ".hidden", "../up", "a/b", "sp ace", "x".repeat(65)]) expect(nameProblem(bad)).not.toBeNull();
  });

  it("writes the entry and the commands to paste", () => {
    expect(JSON.parse(mcpServersEntry("files", ["node", "server.js"]))).toEqual({
      mcpServers: { files: { command: "toolscope", args: ["proxy", "mcp", "--name", "files", "--", "node", "server.js"] } },
    });
    expect(listenCommand("files", ["node", "it's.js"])).toBe(`toolscope proxy mcp --name files --listen 127.0.0.1:0 -- node 'it'\\''s.js'`);
    expect(llmCommand("https://api.example.com/v1")).toBe("toolscope proxy llm --upstream https://api.example.com/v1");
  });
});
