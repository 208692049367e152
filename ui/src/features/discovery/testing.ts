/**
 * Test fixtures for the Discovery pane: a small registry with realistic schemas and
 * annotations, a generated 10,000-method registry, a fake backend over `mockIPC` that keeps
 * settings and derives `enabled` and the prompt from them, and a layout stub for jsdom (which
 * has no layout, so the virtualised list would otherwise see a 0-px viewport).
 */
import { mockIPC } from "@tauri-apps/api/mocks";

import type { MethodMetadata, MethodView, ProtocolInfo, Settings, ToolView } from "../../lib/ipc";

export function method(tool: string, meta: Partial<MethodMetadata> & { name: string }): MethodView {
  return {
    routing_name: `${tool}_${meta.name}`,
    meta: { description: "", parameters: { type: "object" }, agent_callable: true, annotations: {}, ...meta },
  };
}

export const CALCULATOR: ToolView = {
  id: "calculator",
  name: "Calculator",
  description: "Evaluates arithmetic expressions.",
  source: "builtin",
  enabled: true,
  methods: [
    method("calculator", {
      name: "evaluate",
      description: "Evaluates one arithmetic expression.",
      parameters: {
        type: "object",
        properties: {
          expression: { type: "string", description: "The expression, e.g. 1 + 2 * 3." },
          precision: { type: "integer", default: 6, minimum: 0, maximum: 20 },
          mode: { type: "string", enum: ["deg", "rad"], default: "rad" },
          options: {
            type: "object",
            description: "Evaluation switches.",
            properties: { strict: { type: "boolean", default: false } },
          },
          vars: {
            type: "array",
            items: { type: "object", properties: { name: { type: "string" }, value: { type: "number" } }, required: ["name"] },
          },
        },
        required: ["expression"],
        additionalProperties: false,
      },
      annotations: { read_only: true, idempotent: true },
      protocol_config: { vcp_command: "Calculate" },
      output_schema: { type: "object", properties: { value: { type: "number", description: "The result." } } },
    }),
    method("calculator", { name: "reset", description: "Clears the memory.", agent_callable: false }),
  ],
};

export const WORKSPACE: ToolView = {
  id: "workspace",
  name: "Workspace files",
  description: "Reads and writes files inside the workspace.",
  source: "builtin",
  enabled: true,
  methods: [
    method("workspace", { name: "read", description: "Reads a file.", annotations: { read_only: true } }),
    method("workspace", {
      name: "write",
      description: "Writes a file.",
      annotations: { destructive: true, open_world: false },
    }),
  ],
};

export const TOOLS: ToolView[] = [WORKSPACE, CALCULATOR];

export const PROTOCOLS: ProtocolInfo[] = [
  { id: "vcp", label: "VCP" },
  { id: "hermes", label: "Hermes" },
];

/** `tools` × `methods` generated methods, ids `tool{t}` / routing names `tool{t}_method{m}`. */
export function generatedTools(tools: number, methods: number): ToolView[] {
  return Array.from({ length: tools }, (_, t) => ({
    id: `tool${String(t)}`,
    name: `Generated ${String(t).padStart(3, "0")}`,
    description: "A generated tool.",
    source: "builtin" as const,
    enabled: true,
    methods: Array.from({ length: methods }, (_, m) =>
      method(`tool${String(t)}`, {
        name: `method${String(m)}`,
        description: `Generated method number ${String(m)} of tool ${String(t)}.`,
        parameters: { type: "object", properties: { text: { type: "string" }, count: { type: "integer", default: 1 } } },
      }),
    ),
  }));
}

type Handler = (args: Record<string, unknown>) => unknown;

export interface FakeBackend {
  calls: { cmd: string; args: Record<string, unknown> }[];
  settings: Settings;
  count: (cmd: string) => number;
}

/**
 * A backend whose `list_tools` derives `enabled` from the stored toggles and whose `tool_prompt`
 * lists the enabled tools, so refreshes after a toggle are observable. `override` replaces a
 * command (throw a `{kind, message}` object to make it fail like a command error).
 */
export function fakeBackend(
  tools: ToolView[] = TOOLS,
  initial: Settings = { theme: "dark", last_protocol: "vcp", config: { timeout_ms: 5000, tool_toggles: { echo: false } } },
  override: Record<string, Handler> = {},
): FakeBackend {
  const backend: FakeBackend = {
    calls: [],
    settings: initial,
    count: (cmd) => backend.calls.filter((call) => call.cmd === cmd).length,
  };
  const enabled = (id: string) =>
    backend.settings.config?.tool_toggles?.[id] ?? backend.settings.config?.default_tool_enabled ?? true;
  mockIPC((cmd, payload) => {
    const args = (payload ?? {}) as Record<string, unknown>;
    backend.calls.push({ cmd, args });
    const replaced = override[cmd];
    if (replaced) return replaced(args);
    switch (cmd) {
      case "list_tools":
        return tools.map((tool) => ({ ...tool, enabled: enabled(tool.id) }));
      case "list_protocols":
        return PROTOCOLS;
      case "tool_prompt":
        return `[${String(args.protocol)}] ${tools
          .filter((tool) => enabled(tool.id))
          .map((tool) => tool.id)
          .join(", ")}`;
      case "get_settings":
        return backend.settings;
      case "save_settings":
        backend.settings = args.settings as Settings;
        return backend.settings;
      default:
        throw new Error(`unexpected command ${cmd}`);
    }
  }, { shouldMockEvents: true });
  return backend;
}

/** Gives every element a viewport and makes `scrollTo` scroll, as a browser would. */
export function stubLayout(height = 600): () => void {
  const proto = HTMLElement.prototype as HTMLElement & { scrollTo: unknown };
  const hadScrollTo = Object.prototype.hasOwnProperty.call(proto, "scrollTo");
  Object.defineProperty(proto, "clientHeight", { configurable: true, get: () => height });
  Object.defineProperty(proto, "clientWidth", { configurable: true, get: () => 800 });
  // A scroller's content height: the virtualised list sets it on its inner element.
  Object.defineProperty(proto, "scrollHeight", {
    configurable: true,
    get(this: HTMLElement) {
      const inner = this.firstElementChild;
      const content = inner instanceof HTMLElement ? Number.parseFloat(inner.style.height) : Number.NaN;
      return Number.isNaN(content) ? height : Math.max(content, height);
    },
  });
  Object.defineProperty(proto, "scrollTo", {
    configurable: true,
    writable: true,
    value(this: HTMLElement, options: ScrollToOptions) {
      if (options.top !== undefined) this.scrollTop = options.top;
      this.dispatchEvent(new Event("scroll"));
    },
  });
  return () => {
    Reflect.deleteProperty(proto, "clientHeight");
    Reflect.deleteProperty(proto, "clientWidth");
    Reflect.deleteProperty(proto, "scrollHeight");
    if (!hadScrollTo) Reflect.deleteProperty(proto, "scrollTo");
  };
}
