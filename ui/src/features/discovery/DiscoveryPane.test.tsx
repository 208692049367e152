import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { cleanup, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import type { MethodMetadata, ToolView } from "../../lib/ipc";
import { DiscoveryPane } from "./DiscoveryPane";

function method(tool: string, name: string, description: string, agentCallable: boolean) {
  const meta: MethodMetadata = {
    name,
    description,
    parameters: { type: "object" },
    agent_callable: agentCallable,
    annotations: {},
  };
  return { routing_name: `${tool}_${name}`, meta };
}

const TOOLS: ToolView[] = [
  {
    id: "calculator",
    name: "Calculator",
    description: "Evaluates arithmetic expressions.",
    source: "builtin",
    enabled: true,
    methods: [
      method("calculator", "evaluate", "Evaluates one expression.", true),
      method("calculator", "reset", "Clears the memory.", false),
    ],
  },
  {
    id: "workspace",
    name: "Workspace files",
    description: "Reads and writes files inside the workspace.",
    source: "builtin",
    enabled: true,
    methods: [method("workspace", "read", "Reads a file.", true)],
  },
];

afterEach(() => {
  cleanup();
  clearMocks();
});

describe("DiscoveryPane", () => {
  it("lists every built-in tool with its methods from list_tools", async () => {
    const calls: string[] = [];
    mockIPC((cmd) => {
      calls.push(cmd);
      if (cmd === "list_tools") return TOOLS;
      throw new Error(`unexpected command ${cmd}`);
    });

    render(<DiscoveryPane />);
    expect(screen.getByRole("status").textContent).toMatch(/loading/i);

    const list = await screen.findByRole("list", { name: "Built-in tools" });
    const tools = within(list).getAllByRole("listitem").filter((item) => item.parentElement === list);
    expect(tools).toHaveLength(2);

    const calculator = tools[0];
    if (!calculator) throw new Error("no first tool");
    expect(within(calculator).getByRole("heading", { name: "Calculator" })).toBeTruthy();
    expect(within(calculator).getByText("Evaluates arithmetic expressions.")).toBeTruthy();
    const methods = within(calculator).getByRole("list", { name: "Methods of Calculator" });
    const methodItems = within(methods).getAllByRole("listitem");
    expect(methodItems.map((item) => item.querySelector(".method-name")?.textContent)).toEqual([
      "calculator_evaluate",
      "calculator_reset",
    ]);
    expect(within(methodItems[0] ?? methods).getByText("agent-callable")).toBeTruthy();
    expect(within(methodItems[1] ?? methods).getByText("not agent-callable")).toBeTruthy();

    const workspace = tools[1];
    if (!workspace) throw new Error("no second tool");
    expect(within(workspace).getByRole("heading", { name: "Workspace files" })).toBeTruthy();
    expect(within(workspace).getByText("workspace_read")).toBeTruthy();

    expect(screen.getByText("2 tools, 3 methods")).toBeTruthy();
    expect(calls).toEqual(["list_tools"]);
  });

  it("says so when no built-in tool is registered", async () => {
    mockIPC(() => []);
    render(<DiscoveryPane />);
    expect(await screen.findByText("No built-in tools are registered yet.")).toBeTruthy();
    expect(screen.queryByRole("list", { name: "Built-in tools" })).toBeNull();
  });

  it("shows the backend's error kind and message", async () => {
    mockIPC(() => {
      // Tauri rejects with the command's serialised error value, not an Error instance.
      // eslint-disable-next-line @typescript-eslint/only-throw-error
      throw { kind: "workspace", message: "cannot create the workspace directory /nope" };
    });
    render(<DiscoveryPane />);
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("workspace");
    expect(alert.textContent).toContain("cannot create the workspace directory /nope");
  });
});
