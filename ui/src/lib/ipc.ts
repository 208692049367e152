/**
 * The one module that talks to the Tauri backend: a typed thin client around `invoke`.
 *
 * Every command the app exposes (see `src-tauri/lib.rs`) has one typed function here, and
 * every failure is normalised to an {@link IpcError} carrying the backend's `kind`, so
 * components never see raw rejections.
 */
import { invoke, type InvokeArgs } from "@tauri-apps/api/core";

/** Where a tool comes from (`ToolSource` in the engine, snake_case). */
export type ToolSource = "builtin" | "http" | "mcp" | "wasm";

/** One method of a listed tool. */
export interface MethodOverview {
  name: string;
  description: string;
  /** Whether a model may discover and call the method. */
  agent_callable: boolean;
}

/** One tool as the Discovery pane lists it (`ToolOverview` in `src-tauri/lib.rs`). */
export interface ToolOverview {
  id: string;
  name: string;
  description: string;
  source: ToolSource;
  methods: MethodOverview[];
}

/** Kinds of `CommandError` the backend reports (`{kind, message}` over IPC). */
export type CommandErrorKind = "not_ready" | "workspace" | "registry";

/** Kind used when the failure did not come from a command body (IPC, permissions, ...). */
export const IPC_FAILURE = "ipc";

/** A failed command call. `kind` is a {@link CommandErrorKind} or {@link IPC_FAILURE}. */
export class IpcError extends Error {
  readonly kind: CommandErrorKind | typeof IPC_FAILURE;
  readonly command: string;

  constructor(command: string, kind: CommandErrorKind | typeof IPC_FAILURE, message: string) {
    super(message);
    this.name = "IpcError";
    this.command = command;
    this.kind = kind;
  }
}

const COMMAND_ERROR_KINDS: readonly string[] = ["not_ready", "workspace", "registry"];

function isCommandErrorKind(kind: string): kind is CommandErrorKind {
  return COMMAND_ERROR_KINDS.includes(kind);
}

function toIpcError(command: string, reason: unknown): IpcError {
  if (
    typeof reason === "object" &&
    reason !== null &&
    "kind" in reason &&
    "message" in reason &&
    typeof reason.kind === "string" &&
    typeof reason.message === "string" &&
    isCommandErrorKind(reason.kind)
  ) {
    return new IpcError(command, reason.kind, reason.message);
  }
  // Tauri itself rejects with a plain string (unknown command, denied by a capability, ...).
  return new IpcError(command, IPC_FAILURE, describe(reason));
}

function describe(reason: unknown): string {
  if (typeof reason === "string") return reason;
  if (reason instanceof Error) return reason.message;
  try {
    const json: unknown = JSON.stringify(reason);
    if (typeof json === "string") return `unexpected failure: ${json}`;
  } catch {
    // Not serialisable (a cycle, a BigInt): fall through.
  }
  return "unexpected failure";
}

async function call<T>(command: string, args?: InvokeArgs): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (reason: unknown) {
    throw toIpcError(command, reason);
  }
}

/** Typed access to the backend's commands. */
export const ipc = {
  /** The built-in tools and their methods, ordered by tool id. */
  builtinOverview: (): Promise<ToolOverview[]> => call<ToolOverview[]>("builtin_overview"),
};
