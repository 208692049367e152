/**
 * The one module that talks to the Tauri backend. Components call {@link ipc}: the generated,
 * typed commands of `../bindings.ts` with their `{status, data | error}` results unwrapped, so a
 * failure is a thrown {@link IpcError} carrying the backend's `kind`, `message` and `details`.
 */
import { Channel } from "@tauri-apps/api/core";

import { commands, type CommandError, type CommandErrorKind, type RunEvent, type Value } from "../bindings";

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

/** Typed access to every backend command. */
export const ipc = {
  listTools: (query: string | null, includeNonCallable: boolean) =>
    unwrap(commands.listTools(query, includeNonCallable)),
  listProtocols: () => unwrap(commands.listProtocols()),
  toolPrompt: (protocol: string) => unwrap(commands.toolPrompt(protocol)),
  parseReply: (text: string, format: string | null) => unwrap(commands.parseReply(text, format)),
  replayStream: (text: string, format: string | null, deltaBytes: number) =>
    unwrap(commands.replayStream(text, format, deltaBytes)),
  executeCall: (...args: Parameters<typeof commands.executeCall>) => unwrap(commands.executeCall(...args)),
  runReply: (...args: Parameters<typeof commands.runReply>) => unwrap(commands.runReply(...args)),
  cancelRun: (runId: string) => unwrap(commands.cancelRun(runId)),
  answerConfirmation: (confirmationId: string, approve: boolean) =>
    unwrap(commands.answerConfirmation(confirmationId, approve)),
  historyList: (query: string | null, offset: number, limit: number) =>
    unwrap(commands.historyList(query, offset, limit)),
  historyExport: () => unwrap(commands.historyExport()),
  getSettings: () => unwrap(commands.getSettings()),
  saveSettings: (...args: Parameters<typeof commands.saveSettings>) => unwrap(commands.saveSettings(...args)),
  startupNotices: () => unwrap(commands.startupNotices()),
};
