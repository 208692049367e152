/**
 * Test support: a fake backend behind mockIPC for the Agent pane's commands (snake_case names,
 * camelCase arguments, as the generated bindings send them), recording every call. A
 * conversation is played by `start`, which sends events down the run's channel.
 */
import type { Channel } from "@tauri-apps/api/core";
import { mockIPC } from "@tauri-apps/api/mocks";

import type {
  AgentRunEvent,
  AgentRunSummary,
  AgentSettings,
  CommandError,
  ConversationSummary,
  Decision,
  EndpointProfile,
  ProtocolInfo,
  ReplayedTurn,
  Settings,
  TimedRecord,
  ToolView,
  TurnExport,
} from "../../lib/ipc";
import { TOOLS } from "../executor/testBackend";

export { deferred, result, TOOLS } from "../executor/testBackend";

export const PROTOCOLS: ProtocolInfo[] = [
  { id: "hermes", label: "Hermes" },
  { id: "vcp", label: "VCP" },
];

export function profile(overrides: Partial<EndpointProfile> = {}): EndpointProfile {
  return {
    name: "local",
    wire: "openai_chat",
    base_url: "http://localhost:8080/v1",
    model: "qwen3",
    key_source: "none",
    key_env: null,
    ...overrides,
  };
}

export function summary(overrides: Partial<AgentRunSummary> = {}): AgentRunSummary {
  return {
    conversation_id: "conv-1",
    reason: { reason: "final" },
    turns: 1,
    tool_calls: 0,
    usage: { input_tokens: 10, output_tokens: 5 },
    record_errors: [],
    ...overrides,
  };
}

export interface StartContext {
  profile: string;
  task: string;
  settings: AgentSettings;
  tools: string[] | null;
  runId: string;
  send: (event: AgentRunEvent) => void;
}

export interface AgentBackend {
  profiles: EndpointProfile[];
  /** Keys sent once with `endpoint_save`, by profile. */
  keys: Map<string, string>;
  /** What "Test connection" answers, by profile: the models or a command error. */
  tests: Record<string, string[] | CommandError>;
  tools: ToolView[];
  protocols: ProtocolInfo[];
  conversations: ConversationSummary[];
  records: Record<string, TimedRecord[]>;
  replays: Record<string, ReplayedTurn[]>;
  exports: Record<string, TurnExport>;
  /** What `get_settings` answers (the stored config seeds the new conversation's limits). */
  settings: Settings;
  start: (context: StartContext) => AgentRunSummary | Promise<AgentRunSummary>;
  onCancel: (runId: string) => void;
  onConfirm: (confirmationId: string, decision: Decision) => void;
  calls: { cmd: string; args: Record<string, unknown> }[];
  argsOf: (cmd: string) => Record<string, unknown>[];
}

export function installAgentBackend(overrides: Partial<Omit<AgentBackend, "calls" | "argsOf">> = {}): AgentBackend {
  const backend: AgentBackend = {
    profiles: [profile()],
    keys: new Map(),
    tests: {},
    tools: TOOLS,
    protocols: PROTOCOLS,
    conversations: [],
    records: {},
    replays: {},
    exports: {},
    settings: {},
    start: () => summary(),
    onCancel: () => undefined,
    onConfirm: () => undefined,
    ...overrides,
    calls: [],
    argsOf: (cmd) => backend.calls.filter((c) => c.cmd === cmd).map((c) => c.args),
  };
  const fail = (kind: CommandError["kind"], message: string): never => {
    const error: CommandError = { kind, message, details: null };
    // A command's error value is a plain {kind, message, details} object, not an Error.
    // eslint-disable-next-line @typescript-eslint/only-throw-error
    throw error;
  };
  mockIPC(
    async (cmd, payload) => {
      const args = (payload ?? {}) as Record<string, unknown>;
      backend.calls.push({ cmd, args });
      switch (cmd) {
        case "list_tools":
          return backend.tools;
        case "list_protocols":
          return backend.protocols;
        case "endpoint_profiles":
          return backend.profiles;
        case "endpoint_save": {
          const saved = args.profile as EndpointProfile;
          if (typeof args.key === "string") backend.keys.set(saved.name, args.key);
          backend.profiles = [...backend.profiles.filter((p) => p.name !== saved.name), saved];
          return null;
        }
        case "endpoint_remove":
          backend.profiles = backend.profiles.filter((p) => p.name !== args.name);
          return null;
        case "endpoint_test": {
          const answer = backend.tests[args.name as string];
          if (answer === undefined) return fail("invalid_input", `no profile ${String(args.name)}`);
          if (Array.isArray(answer)) return answer;
          return fail(answer.kind, answer.message);
        }
        case "agent_start": {
          const channel = args.onEvent as Channel<AgentRunEvent>;
          return backend.start({
            profile: args.profile as string,
            task: args.task as string,
            settings: args.settings as AgentSettings,
            tools: args.tools as string[] | null,
            runId: args.runId as string,
            send: (event) => {
              channel.onmessage(event);
            },
          });
        }
        case "agent_confirm":
          backend.onConfirm(args.confirmationId as string, args.decision as Decision);
          return true;
        case "cancel_run":
          backend.onCancel(args.runId as string);
          return true;
        case "get_settings":
          return backend.settings;
        case "conversations_list": {
          const query = typeof args.query === "string" ? args.query.toLowerCase() : "";
          return backend.conversations.filter((c) => `${c.task} ${c.model}`.toLowerCase().includes(query));
        }
        case "conversation_load": {
          const id = args.id as string;
          const records = backend.records[id];
          if (!records) return fail("history", `no conversation ${id}`);
          return { id, records, skipped: [] };
        }
        case "conversation_delete":
          backend.conversations = backend.conversations.filter((c) => c.id !== args.id);
          return null;
        case "conversation_replay":
          return backend.replays[args.id as string] ?? [];
        case "conversation_turn_export": {
          const exported = backend.exports[`${String(args.id)}#${String(args.turn)}`];
          if (!exported) return fail("invalid_input", `turn ${String(args.turn)} has no recorded reply`);
          return exported;
        }
        default:
          throw new Error(`unexpected command ${cmd}`);
      }
    },
    { shouldMockEvents: true },
  );
  return backend;
}
