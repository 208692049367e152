/**
 * Test support: a fake backend behind mockIPC for the Live pane's two commands, with sessions
 * whose records a test can append to (as a running proxy would), and a recorded session of each
 * kind of record, shaped as `toolscope proxy mcp` writes them.
 */
import { mockIPC } from "@tauri-apps/api/mocks";

import type {
  CommandError,
  Fault,
  FaultChange,
  ProxyRecord,
  ProxyRecordBody,
  ProxyReplayReport,
  ProxySessionChunk,
  ProxySessionSummary,
  SessionCursor,
  ToolSet,
  Value,
} from "../../lib/ipc";

export function record(seq: number, body: ProxyRecordBody, ms = seq * 10): ProxyRecord {
  return { seq, at: `2026-01-01T12:00:${String(seq).padStart(2, "0")}.000000Z`, ms, body };
}

export function message(seq: number, dir: "agent_to_server" | "server_to_agent", msg: Value, origin: string | null = null): ProxyRecord {
  return record(seq, { type: "message", dir, origin, bytes: JSON.stringify(msg).length, msg, text: null });
}

export function summary(overrides: Partial<ProxySessionSummary> = {}): ProxySessionSummary {
  return {
    name: "everything",
    session_id: "20260101T120000.000Z-aaaaaaaa",
    started_at: "2026-01-01T12:00:00.000000Z",
    last_at: "2026-01-01T12:00:30.000000Z",
    modified_ms: Date.now(),
    argv: ["npx", "-y", "@modelcontextprotocol/server-everything"],
    enforce: false,
    server: "everything 2.0.0",
    client: "claude-desktop 1.2",
    tools: 2,
    messages: 10,
    calls: 2,
    failed_calls: 1,
    invalid_calls: 1,
    refused_calls: 0,
    end: null,
    torn: false,
    skipped_lines: 0,
    ...overrides,
  };
}

/** A session up to the tool listing: header, handshake, `tools/list` of `echo` and `get-sum`. */
export function opening(name = "everything"): ProxyRecord[] {
  return [
    record(0, {
      type: "session",
      session_id: "20260101T120000.000Z-aaaaaaaa",
      name,
      argv: ["npx", "-y", "@modelcontextprotocol/server-everything"],
      proxy_version: "0.1.0",
      enforce: false,
      format: 1,
    }),
    message(1, "agent_to_server", {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "claude-desktop", version: "1.2" } },
    }),
    message(2, "server_to_agent", {
      jsonrpc: "2.0",
      id: 0,
      result: { protocolVersion: "2025-06-18", capabilities: { tools: {}, logging: {} }, serverInfo: { name: "everything", version: "2.0.0" } },
    }),
    record(3, {
      type: "initialize",
      request_seq: 1,
      response_seq: 2,
      params: { protocolVersion: "2025-06-18", clientInfo: { name: "claude-desktop", version: "1.2" } },
      result: { protocolVersion: "2025-06-18", capabilities: { tools: {}, logging: {} }, serverInfo: { name: "everything", version: "2.0.0" } },
      error: null,
    }),
    message(4, "agent_to_server", { jsonrpc: "2.0", id: 1, method: "tools/list" }),
    message(5, "server_to_agent", { jsonrpc: "2.0", id: 1, result: { tools: [{ name: "echo" }, { name: "get-sum" }] } }),
    record(6, { type: "tools", request_seq: 4, response_seq: 5, page: false, names: ["echo", "get-sum"] }),
    record(7, {
      type: "tools_changed",
      response_seq: 5,
      since_session: "20251231T090000.000Z-99999999",
      added: ["get-sum"],
      removed: ["add"],
      changed: [],
    }),
  ];
}

/** A valid call of echo answered, and an invalid call of get-sum answered with a tool error. */
export function calls(): ProxyRecord[] {
  return [
    message(8, "agent_to_server", { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { message: "hi" }, _meta: { progressToken: "p2" } } }),
    message(9, "server_to_agent", { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "p2", progress: 1, total: 2 } }),
    record(10, { type: "progress", message_seq: 9, dir: "server_to_agent", token: "p2", progress: 1, total: 2, message: null, request_seq: 8 }),
    message(11, "server_to_agent", { jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "Echo: hi" }] } }),
    record(12, { type: "call", request_seq: 8, response_seq: 11, id: 2, tool: "echo", latency_ms: 3.25, outcome: "result", error: null }),
    message(13, "agent_to_server", { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "get-sum", arguments: { a: "one", b: 2 } } }),
    record(14, {
      type: "invalid_call",
      call_seq: 13,
      id: 3,
      tool: "get-sum",
      unknown_tool: false,
      issues: [{ path: "/a", message: '"one" is not of type "number"' }],
      message: 'Validation failed:\n- /a: "one" is not of type "number"',
      enforced: false,
    }),
    message(15, "server_to_agent", { jsonrpc: "2.0", id: 3, result: { content: [{ type: "text", text: "bad a" }], isError: true } }),
    record(16, { type: "call", request_seq: 13, response_seq: 15, id: 3, tool: "get-sum", latency_ms: 1.5, outcome: "tool_error", error: null }),
  ];
}

export function end(seq: number): ProxyRecord {
  return record(seq, { type: "end", reason: "agent_closed", signal: null, server_status: { code: 0, signal: null }, pending_answered: 0, messages: 9 });
}

export interface LiveBackend {
  sessions: ProxySessionSummary[];
  roots: string[];
  /** Each session's records, by `name/id`; append to simulate a running proxy. */
  records: Map<string, ProxyRecord[]>;
  /** `list` and `read` fail with this while set. */
  failure: CommandError | null;
  reads: { name: string; id: string; from: SessionCursor }[];
  lists: number;
  /** What `proxy_session_replay` answers, and the sessions it was asked to replay. */
  replay: ProxyReplayReport | null;
  replays: { name: string; id: string }[];
  /** The fault plan every server shares here, and each change asked for. */
  faults: Record<string, Fault>;
  faultChanges: { name: string; tool: string; change: FaultChange }[];
  /** The app's imported sets (for mocks). */
  importedSets: ToolSet[];
}

export function installLiveBackend(
  overrides: Partial<Pick<LiveBackend, "sessions" | "roots" | "records" | "replay" | "importedSets">> = {},
): LiveBackend {
  const backend: LiveBackend = {
    sessions: [],
    roots: ["/home/me/.local/share/dev.toolscope.app/proxy", "/home/me/.local/share/toolscope/proxy"],
    records: new Map(),
    failure: null,
    reads: [],
    lists: 0,
    replay: null,
    replays: [],
    faults: {},
    faultChanges: [],
    importedSets: [],
    ...overrides,
  };
  const fail = (): never => {
    // A command's error value is a plain {kind, message, details} object, not an Error.
    // eslint-disable-next-line @typescript-eslint/only-throw-error
    throw backend.failure;
  };
  mockIPC((cmd, payload) => {
    const args = (payload ?? {}) as Record<string, unknown>;
    switch (cmd) {
      case "proxy_sessions_list":
        backend.lists += 1;
        if (backend.failure) return fail();
        return { roots: backend.roots, sessions: backend.sessions };
      case "proxy_session_read": {
        const name = args.name as string;
        const id = args.id as string;
        const from = args.from as SessionCursor;
        backend.reads.push({ name, id, from });
        if (backend.failure) return fail();
        const all = backend.records.get(`${name}/${id}`) ?? [];
        // The fake cursor: one line per record, 100 bytes a line.
        const records = all.slice(from.line);
        const chunk: ProxySessionChunk = {
          records,
          skipped: [],
          next: { line: all.length, offset: all.length * 100 },
          torn: false,
          reset: false,
        };
        return chunk;
      }
      case "proxy_session_replay":
        backend.replays.push({ name: args.name as string, id: args.id as string });
        if (backend.replay === null) return fail();
        return backend.replay;
      case "proxy_faults_read":
        return { path: `/faults/${String(args.name)}/faults.json`, plan: { tools: backend.faults } };
      case "proxy_fault_set": {
        const tool = args.tool as string;
        const change = args.change as FaultChange;
        backend.faultChanges.push({ name: args.name as string, tool, change });
        if (change.kind === "clear") {
          backend.faults = Object.fromEntries(Object.entries(backend.faults).filter(([name]) => name !== tool));
        } else if (change.kind === "set") {
          backend.faults = { ...backend.faults, [tool]: change.fault };
        } else {
          const mock = backend.importedSets.find((s) => s.name === change.set)?.mocks?.[change.definition];
          if (!mock) throw new Error(`no mock ${change.set}/${change.definition}`);
          backend.faults = { ...backend.faults, [tool]: { imported: { set: change.set, definition: change.definition, mock } } };
        }
        return { path: `/faults/${String(args.name)}/faults.json`, plan: { tools: backend.faults } };
      }
      case "imported_sets":
        return backend.importedSets.map((set) => ({
          name: set.name,
          id: set.id,
          origin: set.origin ?? "",
          imported_at: set.imported_at,
          definitions: set.definitions.length,
          mocked: Object.keys(set.mocks ?? {}).length,
        }));
      case "imported_set":
        return backend.importedSets.find((set) => set.name === args.name);
      default:
        throw new Error(`unexpected command ${cmd}`);
    }
  });
  return backend;
}
