/**
 * Test support: a fake backend behind mockIPC for the Executor's commands (snake_case names,
 * camelCase arguments, as the generated bindings send them), recording every call.
 */
import type { Channel } from "@tauri-apps/api/core";
import { mockIPC } from "@tauri-apps/api/mocks";

import type {
  HistoryPage,
  HistorySummary,
  ManualCall,
  RunEvent,
  Settings,
  SkippedLine,
  ToolExecutionResult,
  ToolView,
  Value,
} from "../../lib/ipc";

export const WRITE_SCHEMA: Value = {
  type: "object",
  required: ["path"],
  properties: {
    path: { type: "string", title: "Path", description: "File to write" },
    mode: { type: "string", enum: ["overwrite", "append"], default: "overwrite" },
    options: {
      type: "object",
      title: "Options",
      properties: { mkdir: { type: "boolean", title: "Create folders" }, encoding: { type: "string" } },
    },
    tags: {
      type: "array",
      title: "Tags",
      items: { type: "object", required: ["key"], properties: { key: { type: "string" }, value: { type: "string" } } },
    },
    target: { title: "Target", oneOf: [{ title: "Text", type: "string" }, { title: "Count", type: "number" }] },
  },
};

export const TOOLS: ToolView[] = [
  {
    id: "workspace",
    name: "Workspace",
    description: "Files in the workspace",
    source: "builtin",
    enabled: true,
    methods: [
      {
        routing_name: "workspace_write",
        meta: {
          name: "write",
          description: "Writes a file in the workspace.",
          parameters: WRITE_SCHEMA,
          agent_callable: true,
          annotations: { destructive: true },
        },
      },
    ],
  },
  {
    id: "calculator",
    name: "Calculator",
    description: "Arithmetic",
    source: "builtin",
    enabled: true,
    methods: [
      {
        routing_name: "calculator_evaluate",
        meta: {
          name: "evaluate",
          description: "Evaluates an arithmetic expression.",
          parameters: {
            type: "object",
            required: ["expression"],
            properties: { expression: { type: "string", title: "Expression" } },
          },
          agent_callable: true,
          annotations: { read_only: true, idempotent: true },
        },
      },
    ],
  },
];

export function result(overrides: Partial<ToolExecutionResult> = {}): ToolExecutionResult {
  return {
    request_id: "req-1",
    tool_name: "calculator_evaluate",
    status: "success",
    result: "42",
    duration_ms: 3,
    error: null,
    truncated: null,
    ...overrides,
  };
}

export function entry(id: string, toolName: string, args: Record<string, Value>, timestamp_ms: number): HistorySummary {
  return {
    id,
    parent_id: null,
    timestamp_ms,
    origin: "app",
    tool_name: toolName,
    args,
    status: "success",
    error_kind: null,
    duration_ms: 3,
  };
}

export interface ExecuteContext {
  call: ManualCall;
  runId: string;
  send: (event: RunEvent) => void;
}

export interface FakeBackend {
  tools: ToolView[];
  settings: Settings;
  /** Oldest first, as in the history file. */
  history: HistorySummary[];
  skipped: SkippedLine[];
  exportText: string;
  execute: (context: ExecuteContext) => ToolExecutionResult | Promise<ToolExecutionResult>;
  onCancel: (runId: string) => void;
  onAnswer: (confirmationId: string, approve: boolean) => void;
  calls: { cmd: string; args: Record<string, unknown> }[];
  argsOf: (cmd: string) => Record<string, unknown>[];
}

export function installBackend(overrides: Partial<Omit<FakeBackend, "calls" | "argsOf">> = {}): FakeBackend {
  const backend: FakeBackend = {
    tools: TOOLS,
    settings: { config: { timeout_ms: 30000 }, theme: "system" },
    history: [],
    skipped: [],
    exportText: "",
    execute: () => result(),
    onCancel: () => undefined,
    onAnswer: () => undefined,
    ...overrides,
    calls: [],
    argsOf: (cmd) => backend.calls.filter((c) => c.cmd === cmd).map((c) => c.args),
  };
  mockIPC(async (cmd, payload) => {
    const args = (payload ?? {}) as Record<string, unknown>;
    backend.calls.push({ cmd, args });
    switch (cmd) {
      case "list_tools":
        return backend.tools;
      case "get_settings":
        return backend.settings;
      case "save_settings":
        backend.settings = args.settings as Settings;
        return backend.settings;
      case "history_list": {
        const words = typeof args.query === "string" ? args.query.toLowerCase().split(/\s+/) : [];
        const matching = [...backend.history]
          .reverse()
          .filter((e) => words.every((w) => e.tool_name.toLowerCase().includes(w)));
        const offset = typeof args.offset === "number" ? args.offset : 0;
        const limit = typeof args.limit === "number" ? args.limit : matching.length;
        const page: HistoryPage = {
          entries: matching.slice(offset, offset + limit),
          total: matching.length,
          skipped: backend.skipped,
        };
        return page;
      }
      case "history_export":
        return backend.exportText;
      case "execute_call": {
        const channel = args.onEvent as Channel<RunEvent>;
        const context: ExecuteContext = {
          call: args.call as ManualCall,
          runId: args.runId as string,
          send: (event) => {
            channel.onmessage(event);
          },
        };
        const outcome = await backend.execute(context);
        context.send({ event: "result_ready", index: 0, result: outcome });
        return outcome;
      }
      case "cancel_run":
        backend.onCancel(args.runId as string);
        return true;
      case "answer_confirmation":
        backend.onAnswer(args.confirmationId as string, args.approve as boolean);
        return true;
      default:
        throw new Error(`unexpected command ${cmd}`);
    }
  }, { shouldMockEvents: true });
  return backend;
}

/** A promise with its resolve function, for runs that end when the test says so. */
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
