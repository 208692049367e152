/**
 * A proxied MCP session's records (docs/proxy.md, "The record") folded into what the Live view
 * shows: the header, the handshake, the tool listings and their changes, a timeline of calls
 * (each with its validation, progress and cancellation, pending until answered), elicitations
 * and the end, and the messages by `seq` so a call opens on its request and response.
 *
 * Pure: the pane refolds whenever records are appended.
 */
import type { ProxyDirection, ProxyIssue, ProxyRecord, ProxyRecordBody, ProxySessionEnd, Value } from "../../lib/ipc";

export type BodyOf<K extends ProxyRecordBody["type"]> = Extract<ProxyRecordBody, { type: K }>;
type JsonObject = Record<string, Value>;

export function isObject(value: Value | null | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function str(value: Value | undefined): string | null {
  return typeof value === "string" ? value : null;
}

/** A JSON value as one short line: strings as they are, anything else as JSON. */
export function brief(value: Value | null | undefined): string {
  if (value === null || value === undefined) return "";
  return typeof value === "string" ? value : JSON.stringify(value);
}

export interface Stamp {
  seq: number;
  at: string;
  ms: number;
}

export interface MessageView extends Stamp {
  dir: ProxyDirection;
  /** Answered by the proxy itself (an `--enforce` refusal, a dead server). */
  byProxy: boolean;
  bytes: number;
  msg: Value | null;
  text: string | null;
}

export interface Handshake extends Stamp {
  client: string | null;
  server: string | null;
  /** The version the agent asked for, and the one the server answered with. */
  requested: string | null;
  protocol: string | null;
  /** The server's capabilities, by name (`tools`, `resources`, ...). */
  capabilities: string[];
  instructions: string | null;
  error: string | null;
  requestSeq: number;
  responseSeq: number;
}

export interface Listing extends Stamp {
  requestSeq: number;
  responseSeq: number;
  /** The tools of the listing, follow-up pages joined. */
  names: string[];
  pages: number;
  /** What changed with this listing (against the one before, or the previous session's). */
  change: ToolsChange | null;
}

export interface ToolsChange extends Stamp {
  responseSeq: number;
  sinceSession: string | null;
  added: string[];
  removed: string[];
  changed: string[];
}

export interface ProgressView extends Stamp {
  dir: ProxyDirection;
  progress: string;
  total: string | null;
  message: string | null;
}

export interface CancelView extends Stamp {
  dir: ProxyDirection;
  requestId: string;
  reason: string | null;
}

export interface InvalidView {
  seq: number;
  unknownTool: boolean;
  issues: ProxyIssue[];
  message: string;
  enforced: boolean;
}

export type CallOutcome = "pending" | "result" | "tool_error" | "error";

export interface CallEntry extends Stamp {
  kind: "call";
  key: string;
  id: string;
  tool: string;
  args: Value | null;
  outcome: CallOutcome;
  latencyMs: number | null;
  responseSeq: number | null;
  /** The JSON-RPC error's message, when the outcome is `error`. */
  error: string | null;
  invalid: InvalidView | null;
  progress: ProgressView[];
  cancelled: CancelView | null;
}

export interface ElicitationEntry extends Stamp {
  kind: "elicitation";
  key: string;
  message: string | null;
  /** `accept`, `decline`, `cancel`; null while the agent has not answered. */
  action: string | null;
  error: string | null;
  responseSeq: number | null;
}

/** Progress or a cancellation of a request that is not a tool call. */
export interface NoticeEntry extends Stamp {
  kind: "progress" | "cancelled";
  key: string;
  text: string;
}

export interface EndEntry extends Stamp {
  kind: "end";
  key: string;
  end: ProxySessionEnd;
}

export interface UnknownEntry extends Stamp {
  kind: "unknown";
  key: string;
  type: string;
}

export type TimelineEntry = CallEntry | ElicitationEntry | NoticeEntry | EndEntry | UnknownEntry;

export interface SessionModel {
  header: (BodyOf<"session"> & Stamp) | null;
  handshake: Handshake | null;
  listings: Listing[];
  changes: ToolsChange[];
  timeline: TimelineEntry[];
  messages: ReadonlyMap<number, MessageView>;
  calls: number;
  end: EndEntry | null;
}

function stamp(record: ProxyRecord): Stamp {
  return { seq: record.seq, at: record.at, ms: record.ms ?? 0 };
}

function callKey(seq: number, id: string): string {
  return `${String(seq)}:${id}`;
}

function software(info: Value | undefined): string | null {
  if (!isObject(info)) return null;
  const name = str(info.name);
  if (name === null) return null;
  const version = str(info.version);
  return version === null ? name : `${name} ${version}`;
}

function errorText(error: Value | null | undefined): string | null {
  if (error === null || error === undefined) return null;
  if (isObject(error)) {
    const message = str(error.message);
    const code = typeof error.code === "number" ? ` (${String(error.code)})` : "";
    if (message !== null) return `${message}${code}`;
  }
  return brief(error);
}

function handshake(record: ProxyRecord, body: BodyOf<"initialize">): Handshake {
  const params = isObject(body.params) ? body.params : {};
  const result = isObject(body.result) ? body.result : {};
  return {
    ...stamp(record),
    client: software(params.clientInfo),
    server: software(result.serverInfo),
    requested: str(params.protocolVersion),
    protocol: str(result.protocolVersion),
    capabilities: isObject(result.capabilities) ? Object.keys(result.capabilities) : [],
    instructions: str(result.instructions),
    error: errorText(body.error),
    requestSeq: body.request_seq,
    responseSeq: body.response_seq,
  };
}

/** The `tools/call` requests of a message from the agent (a batch may hold several). */
function callRequests(msg: Value | null): { id: string; tool: string; args: Value | null }[] {
  const items = Array.isArray(msg) ? msg : [msg];
  return items.flatMap((item) => {
    if (!isObject(item)) return [];
    const request = item;
    if (request.method !== "tools/call" || request.id === undefined) return [];
    const params = isObject(request.params) ? request.params : {};
    return [{ id: JSON.stringify(request.id), tool: str(params.name) ?? "", args: params.arguments ?? null }];
  });
}

function progressView(record: ProxyRecord, body: BodyOf<"progress">): ProgressView {
  return {
    ...stamp(record),
    dir: body.dir,
    progress: brief(body.progress),
    total: body.total === null ? null : brief(body.total),
    message: body.message === null ? null : brief(body.message),
  };
}

function cancelView(record: ProxyRecord, body: BodyOf<"cancelled">): CancelView {
  return {
    ...stamp(record),
    dir: body.dir,
    requestId: brief(body.request_id),
    reason: body.reason === null ? null : brief(body.reason),
  };
}

/** Folds records (in file order) into the session's view. */
export function foldSession(records: readonly ProxyRecord[]): SessionModel {
  const model: SessionModel = {
    header: null,
    handshake: null,
    listings: [],
    changes: [],
    timeline: [],
    messages: new Map(),
    calls: 0,
    end: null,
  };
  const messages = new Map<number, MessageView>();
  const calls = new Map<string, CallEntry>();
  /** Calls by the seq of their request message, for progress and cancellations. */
  const callsBySeq = new Map<number, CallEntry[]>();
  const elicitations = new Map<number, ElicitationEntry>();

  const addCall = (entry: CallEntry) => {
    calls.set(entry.key, entry);
    callsBySeq.set(entry.seq, [...(callsBySeq.get(entry.seq) ?? []), entry]);
    model.timeline.push(entry);
  };
  const callFor = (seq: number, id: Value, tool: string, record: ProxyRecord): CallEntry => {
    const key = callKey(seq, JSON.stringify(id));
    const known = calls.get(key);
    if (known) return known;
    // A call whose request message was not read (a skipped line): shown where it ended.
    const request = messages.get(seq);
    const entry: CallEntry = {
      ...(request ? { seq: request.seq, at: request.at, ms: request.ms } : stamp(record)),
      kind: "call",
      key,
      id: JSON.stringify(id),
      tool,
      args: null,
      outcome: "pending",
      latencyMs: null,
      responseSeq: null,
      error: null,
      invalid: null,
      progress: [],
      cancelled: null,
    };
    addCall(entry);
    return entry;
  };
  const onlyCall = (seq: number | null): CallEntry | undefined => {
    if (seq === null) return undefined;
    const found = callsBySeq.get(seq);
    return found?.length === 1 ? found[0] : undefined;
  };

  for (const record of records) {
    const body = record.body;
    switch (body.type) {
      case "session":
        model.header = { ...body, ...stamp(record) };
        break;
      case "message": {
        const view: MessageView = {
          ...stamp(record),
          dir: body.dir,
          byProxy: body.origin === "proxy",
          bytes: body.bytes,
          msg: body.msg,
          text: body.text,
        };
        messages.set(record.seq, view);
        if (body.dir === "agent_to_server") {
          for (const request of callRequests(body.msg)) {
            addCall({
              ...stamp(record),
              kind: "call",
              key: callKey(record.seq, request.id),
              id: request.id,
              tool: request.tool,
              args: request.args,
              outcome: "pending",
              latencyMs: null,
              responseSeq: null,
              error: null,
              invalid: null,
              progress: [],
              cancelled: null,
            });
          }
        }
        break;
      }
      case "initialize":
        model.handshake = handshake(record, body);
        break;
      case "tools": {
        const last = model.listings.at(-1);
        if (body.page && last) {
          last.names = [...last.names, ...body.names];
          last.pages += 1;
        } else {
          model.listings.push({ ...stamp(record), requestSeq: body.request_seq, responseSeq: body.response_seq, names: body.names, pages: 1, change: null });
        }
        break;
      }
      case "tools_changed": {
        const change: ToolsChange = {
          ...stamp(record),
          responseSeq: body.response_seq,
          sinceSession: body.since_session,
          added: body.added,
          removed: body.removed,
          changed: body.changed,
        };
        model.changes.push(change);
        const listing = model.listings.at(-1);
        if (listing) listing.change = change;
        break;
      }
      case "invalid_call": {
        const call = callFor(body.call_seq, body.id, body.tool, record);
        call.invalid = { seq: record.seq, unknownTool: body.unknown_tool, issues: body.issues, message: body.message, enforced: body.enforced };
        break;
      }
      case "call": {
        const call = callFor(body.request_seq, body.id, body.tool, record);
        call.outcome = body.outcome === "result" || body.outcome === "tool_error" ? body.outcome : "error";
        call.latencyMs = body.latency_ms ?? null;
        call.responseSeq = body.response_seq;
        call.error = errorText(body.error);
        model.calls += 1;
        break;
      }
      case "progress": {
        const view = progressView(record, body);
        const call = onlyCall(body.request_seq);
        if (call) call.progress.push(view);
        else {
          const total = view.total === null ? "" : ` of ${view.total}`;
          const text = `progress ${view.progress}${total}${view.message === null ? "" : `: ${view.message}`}`;
          model.timeline.push({ ...stamp(record), kind: "progress", key: `p${String(record.seq)}`, text });
        }
        break;
      }
      case "cancelled": {
        const view = cancelView(record, body);
        const call = onlyCall(body.request_seq);
        if (call) call.cancelled = view;
        else {
          const by = view.dir === "agent_to_server" ? "the agent" : "the server";
          const text = `request ${view.requestId} cancelled by ${by}${view.reason === null ? "" : `: ${view.reason}`}`;
          model.timeline.push({ ...stamp(record), kind: "cancelled", key: `c${String(record.seq)}`, text });
        }
        break;
      }
      case "elicitation": {
        const params = isObject(body.params) ? body.params : {};
        const entry: ElicitationEntry = {
          ...stamp(record),
          kind: "elicitation",
          key: `e${String(record.seq)}`,
          message: str(params.message),
          action: null,
          error: null,
          responseSeq: null,
        };
        elicitations.set(body.message_seq, entry);
        model.timeline.push(entry);
        break;
      }
      case "elicitation_result": {
        const entry = elicitations.get(body.request_seq);
        if (entry) {
          entry.action = body.action === null ? null : brief(body.action);
          entry.error = errorText(body.error);
          entry.responseSeq = body.response_seq;
        }
        break;
      }
      case "end": {
        model.end = { ...stamp(record), kind: "end", key: "end", end: body };
        model.timeline.push(model.end);
        break;
      }
      case "unknown":
        model.timeline.push({ ...stamp(record), kind: "unknown", key: `u${String(record.seq)}`, type: body.kind });
        break;
    }
  }
  model.messages = messages;
  return model;
}

/** Why a session ended, in words. */
export function endText(end: ProxySessionEnd): string {
  const status = end.server_status;
  const exit =
    status === null ? "" : status.code !== null ? ` (server exit status ${String(status.code)})` : status.signal !== null ? ` (server killed by signal ${String(status.signal)})` : "";
  switch (end.reason) {
    case "agent_closed":
      return `The agent closed the session${exit}.`;
    case "server_exited":
      return `The server exited while the agent was connected${exit}.`;
    case "signal":
      return `The proxy was stopped by ${end.signal ?? "a signal"}${exit}.`;
    default:
      return `Ended: ${end.reason}${exit}.`;
  }
}
