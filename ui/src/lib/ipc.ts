/**
 * The one module that talks to the Tauri backend. Components call {@link ipc}: the generated,
 * typed commands of `../bindings.ts` with their `{status, data | error}` results unwrapped, so a
 * failure is a thrown {@link IpcError} carrying the backend's `kind`, `message` and `details`.
 */
import { Channel, invoke } from "@tauri-apps/api/core";
import { listen } from "@tauri-apps/api/event";

import { announcing } from "./appEvents";

import {
  commands,
  type AgentRunEvent,
  type AgentSettings,
  type CommandError,
  type CommandErrorKind,
  type CycleOutcome,
  type ElicitationAnswer,
  type Decision,
  type EndpointProfile,
  type ExportKind,
  type ExportSource,
  type FaultChange,
  type McpServerConfig,
  type MetricsRange,
  type ParsedReply,
  type ParseOptions,
  type RequestToolsChoice,
  type RunEvent,
  type SessionCursor,
  type ToolCallConfig,
  type Value,
} from "../bindings";

export type * from "../bindings";

/** Kind used when the failure did not come from a command body (IPC, permissions, ...). */
export const IPC_FAILURE = "ipc";

export class IpcError extends Error {
  readonly kind: CommandErrorKind | typeof IPC_FAILURE;
  readonly details: Value | null;

  constructor(kind: CommandErrorKind | typeof IPC_FAILURE, message: string, details: Value | null = null) {
    super(message);
    this.name = "IpcError";
    this.kind = kind;
    this.details = details;
  }
}

type Outcome<T> = { status: "ok"; data: T } | { status: "error"; error: CommandError };

async function unwrap<T>(pending: Promise<Outcome<T>>): Promise<T> {
  let outcome: Outcome<T>;
  try {
    outcome = await pending;
  } catch (reason: unknown) {
    // Tauri itself rejects with a plain string (unknown command, denied by a capability, ...).
    throw new IpcError(IPC_FAILURE, describe(reason));
  }
  if (outcome.status === "ok") return outcome.data;
  throw new IpcError(outcome.error.kind, outcome.error.message, outcome.error.details ?? null);
}

function describe(reason: unknown): string {
  if (typeof reason === "string") return reason;
  if (reason instanceof Error) return reason.message;
  return "unexpected failure talking to the app";
}

/** The message to show for any caught failure. */
export function errorMessage(reason: unknown): string {
  if (reason instanceof Error) return reason.message;
  return describe(reason);
}

/** Whether a rejection is a command's own error (its `Err`), not Tauri's (a plain string). */
function isCommandError(reason: unknown): reason is CommandError {
  return typeof reason === "object" && reason !== null && "kind" in reason && "message" in reason && typeof reason.message === "string";
}

/**
 * `parse_reply` takes one raw body, not JSON arguments (`ReplyBody` in
 * src-tauri/commands/parser.rs): its {@link ParseOptions} as one line of JSON, a line break, then
 * the reply in UTF-8. A 5 MB reply as a JSON string argument was escaped here and parsed into a
 * JSON value there; as bytes it is read in place. (Its generated binding sends no body.)
 */
async function parseReplyRaw(text: string, options: ParseOptions): Promise<Outcome<ParsedReply>> {
  const encoder = new TextEncoder();
  const head = encoder.encode(`${JSON.stringify(options)}\n`);
  const reply = encoder.encode(text);
  const body = new Uint8Array(head.length + reply.length);
  body.set(head);
  body.set(reply, head.length);
  try {
    return { status: "ok", data: await invoke<ParsedReply>("parse_reply", body) };
  } catch (reason: unknown) {
    if (isCommandError(reason)) return { status: "error", error: reason };
    throw reason;
  }
}

/** A fresh id for a run, so it can be cancelled with {@link ipc.cancelRun}. */
export function newRunId(): string {
  return crypto.randomUUID();
}

/** A channel delivering a run's events to `onEvent`. */
export function runChannel(onEvent: (event: RunEvent) => void): Channel<RunEvent> {
  const channel = new Channel<RunEvent>();
  channel.onmessage = onEvent;
  return channel;
}

/** A channel delivering a live conversation's events to `onEvent`. */
export function agentChannel(onEvent: (event: AgentRunEvent) => void): Channel<AgentRunEvent> {
  const channel = new Channel<AgentRunEvent>();
  channel.onmessage = onEvent;
  return channel;
}

/** The app's event when an MCP server's status or any tool source's tools change. */
export const SOURCES_CHANGED = "sources-changed";

/**
 * Calls `onChange` on every `event` the backend emits (its payload is not needed). Returns the
 * unlisten function; it may be called before the listener is registered. A listener that
 * cannot be registered (no Tauri, a test backend without events) is simply never called.
 */
function onBackendEvent(event: string, onChange: () => void): () => void {
  let stopped = false;
  let unlisten: (() => void) | null = null;
  listen<unknown>(event, () => {
    if (!stopped) onChange();
  }).then(
    (stop) => {
      if (stopped) stop();
      else unlisten = stop;
    },
    () => undefined,
  );
  return () => {
    stopped = true;
    unlisten?.();
    unlisten = null;
  };
}

/** Calls `onChange` on every `sources-changed` event (its payload is a counter); returns the unsubscribe. */
export function onSourcesChanged(onChange: () => void): () => void {
  return onBackendEvent(SOURCES_CHANGED, onChange);
}

/** The app's event when MCP servers' requests for input (elicitations) come or go. */
export const ELICITATIONS_CHANGED = "elicitations-changed";

/** Calls `onChange` on every `elicitations-changed` event; returns the unsubscribe. */
export function onElicitationsChanged(onChange: () => void): () => void {
  return onBackendEvent(ELICITATIONS_CHANGED, onChange);
}

/** Typed access to every backend command. */
export const ipc = {
  listTools: (query: string | null, includeNonCallable: boolean) =>
    unwrap(commands.listTools(query, includeNonCallable)),
  listProtocols: () => unwrap(commands.listProtocols()),
  formatProblems: () => unwrap(commands.formatProblems()),
  toolPrompt: (protocol: string) => unwrap(commands.toolPrompt(protocol)),
  parseReply: (text: string, format: string | null, requestTools: RequestToolsChoice | null = null, strict = false) =>
    unwrap(parseReplyRaw(text, { format, request_tools: requestTools, strict })),
  /** Requests `from..to` of parse `parseId` that its answer left out (`ParsedReply.parse_id`). */
  parsedRequests: (parseId: number, from: number, to: number) => unwrap(commands.parsedRequests(parseId, from, to)),
  replayStream: (text: string, format: string | null, deltaBytes: number) =>
    unwrap(commands.replayStream(text, format, deltaBytes)),
  // Runs add to the history: the Metrics view hears about it (lib/appEvents.ts).
  executeCall: (...args: Parameters<typeof commands.executeCall>) =>
    announcing(unwrap(commands.executeCall(...args)), "run-finished"),
  runReply: (...args: Parameters<typeof commands.runReply>) => announcing(unwrap(commands.runReply(...args)), "run-finished"),
  exportCall: (kind: ExportKind, source: ExportSource) => unwrap(commands.exportCall(kind, source)),
  exportTestCase: (reply: string, outcome: CycleOutcome, requestTools: RequestToolsChoice | null) =>
    unwrap(commands.exportTestCase(reply, outcome, requestTools)),
  cancelRun: (runId: string) => unwrap(commands.cancelRun(runId)),
  answerConfirmation: (confirmationId: string, approve: boolean) =>
    unwrap(commands.answerConfirmation(confirmationId, approve)),
  elicitationsPending: () => unwrap(commands.elicitationsPending()),
  answerElicitation: (elicitationId: string, answer: ElicitationAnswer) =>
    unwrap(commands.answerElicitation(elicitationId, answer)),
  /** The endpoint profile MCP sampling requests go to (after approval), or null to decline them. */
  setSamplingProfile: (profile: string | null) =>
    announcing(unwrap(commands.setSamplingProfile(profile)), "settings-changed", true),
  historyList: (query: string | null, offset: number, limit: number) =>
    unwrap(commands.historyList(query, offset, limit)),
  historyExport: () => unwrap(commands.historyExport()),
  getSettings: () => unwrap(commands.getSettings()),
  saveSettings: (...args: Parameters<typeof commands.saveSettings>) =>
    announcing(unwrap(commands.saveSettings(...args)), "settings-changed", true),
  startupNotices: () => unwrap(commands.startupNotices()),
  configLoad: () => unwrap(commands.configLoad()),
  /** Sets the given ToolCallConfig fields (the others stay as stored); refused whole, per field, when any is wrong. */
  configSave: (changes: Partial<Record<keyof ToolCallConfig, Value>>) =>
    announcing(unwrap(commands.configSave(changes)), "settings-changed", true),
  metricsReport: (range: MetricsRange) => unwrap(commands.metricsReport(range)),
  mcpServers: () => unwrap(commands.mcpServers()),
  mcpAdd: (config: McpServerConfig) => unwrap(commands.mcpAdd(config)),
  mcpUpdate: (name: string, config: McpServerConfig) => unwrap(commands.mcpUpdate(name, config)),
  mcpRemove: (name: string) => unwrap(commands.mcpRemove(name)),
  mcpReconnect: (name: string) => unwrap(commands.mcpReconnect(name)),
  mcpApprove: (name: string) => unwrap(commands.mcpApprove(name)),
  mcpImport: (text: string) => unwrap(commands.mcpImport(text)),
  mcpExport: () => unwrap(commands.mcpExport()),
  mcpLog: (name: string) => unwrap(commands.mcpLog(name)),
  mcpSignIn: (name: string) => unwrap(commands.mcpSignIn(name)),
  mcpCancelSignIn: (name: string) => unwrap(commands.mcpCancelSignIn(name)),
  mcpSignOut: (name: string) => unwrap(commands.mcpSignOut(name)),
  mcpSignInSteps: (name: string) => unwrap(commands.mcpSignInSteps(name)),
  httpTools: () => unwrap(commands.httpTools()),
  httpToolRead: (fileName: string) => unwrap(commands.httpToolRead(fileName)),
  httpToolSave: (fileName: string, text: string) => unwrap(commands.httpToolSave(fileName, text)),
  httpToolDelete: (fileName: string) => unwrap(commands.httpToolDelete(fileName)),
  wasmTools: () => unwrap(commands.wasmTools()),
  wasmAddDirectory: (path: string) => unwrap(commands.wasmAddDirectory(path)),
  wasmRemoveDirectory: (path: string) => unwrap(commands.wasmRemoveDirectory(path)),
  wasmApprove: (key: string) => unwrap(commands.wasmApprove(key)),
  wasmReload: () => unwrap(commands.wasmReload()),
  importedImport: (name: string, text: string, origin: string) => unwrap(commands.importedImport(name, text, origin)),
  importedSets: () => unwrap(commands.importedSets()),
  importedSet: (name: string) => unwrap(commands.importedSet(name)),
  importedRemove: (name: string) => unwrap(commands.importedRemove(name)),
  importedSetMock: (...args: Parameters<typeof commands.importedSetMock>) => unwrap(commands.importedSetMock(...args)),
  importedReplaceDefinition: (...args: Parameters<typeof commands.importedReplaceDefinition>) =>
    unwrap(commands.importedReplaceDefinition(...args)),
  importedRemoveDefinition: (name: string, definition: string) =>
    unwrap(commands.importedRemoveDefinition(name, definition)),
  endpointProfiles: () => unwrap(commands.endpointProfiles()),
  endpointSave: (profile: EndpointProfile, key: string | null) =>
    announcing(unwrap(commands.endpointSave(profile, key)), "profiles-changed", true),
  endpointRemove: (name: string) => announcing(unwrap(commands.endpointRemove(name)), "profiles-changed", true),
  endpointTest: (name: string) => unwrap(commands.endpointTest(name)),
  agentStart: (
    profile: string,
    task: string,
    settings: AgentSettings,
    tools: string[] | null,
    runId: string,
    onEvent: Channel<AgentRunEvent>,
  ) => announcing(unwrap(commands.agentStart(profile, task, settings, tools, runId, onEvent)), "run-finished"),
  agentConfirm: (confirmationId: string, decision: Decision) => unwrap(commands.agentConfirm(confirmationId, decision)),
  conversationsList: (query: string | null) => unwrap(commands.conversationsList(query)),
  conversationLoad: (id: string) => unwrap(commands.conversationLoad(id)),
  conversationDelete: (id: string) => unwrap(commands.conversationDelete(id)),
  conversationReplay: (id: string) => unwrap(commands.conversationReplay(id)),
  conversationTurnExport: (id: string, turn: number) => unwrap(commands.conversationTurnExport(id, turn)),
  proxySessionsList: () => unwrap(commands.proxySessionsList()),
  proxySessionRead: (name: string, id: string, from: SessionCursor) => unwrap(commands.proxySessionRead(name, id, from)),
  proxySessionReplay: (name: string, id: string) => unwrap(commands.proxySessionReplay(name, id)),
  proxyFaultsRead: (name: string) => unwrap(commands.proxyFaultsRead(name)),
  proxyFaultSet: (name: string, tool: string, change: FaultChange) => unwrap(commands.proxyFaultSet(name, tool, change)),
};
