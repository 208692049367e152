/**
 * The fault plan of a proxied server as the Live pane shows and edits it (the plan itself is
 * `toolscope_proxy::faults`): one line per fault, and a form's fields turned into a change, with
 * what is wrong in them said before anything is sent.
 */
import type { Fault, FaultChange, InjectedErrorKind, Value } from "../../lib/ipc";

export const ERROR_KINDS: readonly { kind: InjectedErrorKind; label: string }[] = [
  { kind: "timeout", label: "timeout (JSON-RPC -32001)" },
  { kind: "server_error", label: "server error (-32603)" },
  { kind: "invalid_params", label: "invalid params (-32602)" },
  { kind: "tool_error", label: "tool error (isError: true)" },
];

export type FaultKind = "delay" | "error" | "mock" | "imported";

/** What the form holds; only the fields of the chosen kind are read. */
export interface FaultFields {
  kind: FaultKind;
  delayMs: string;
  errorKind: InjectedErrorKind;
  message: string;
  mock: string;
  set: string;
  definition: string;
}

export const EMPTY_FIELDS: FaultFields = {
  kind: "delay",
  delayMs: "1500",
  errorKind: "timeout",
  message: "",
  mock: '{"content": [{"type": "text", "text": "mocked"}]}',
  set: "",
  definition: "",
};

/** One line saying what a fault does to a call. */
export function describeFault(fault: Fault): string {
  if ("delay_ms" in fault) return `forwarded after ${String(fault.delay_ms)} ms`;
  if ("error" in fault) {
    const { kind, message } = fault.error;
    const label = ERROR_KINDS.find((k) => k.kind === kind)?.label ?? kind;
    return `answered with ${label}${message ? `: ${message}` : ""}`;
  }
  if ("imported" in fault) {
    const { set, definition, mock } = fault.imported;
    const latency = mock.latency_ms ?? 0;
    return `answered as ${set}'s mock of ${definition}${latency > 0 ? `, after ${String(latency)} ms` : ""}`;
  }
  return `answered with the mock ${JSON.stringify(fault.mock)}`;
}

/** The change the fields ask for, or what is wrong with them. */
export function changeOf(fields: FaultFields): { change: FaultChange } | { problem: string } {
  switch (fields.kind) {
    case "delay": {
      const ms = Number(fields.delayMs);
      if (fields.delayMs.trim() === "" || !Number.isInteger(ms) || ms < 0) return { problem: "The delay is a whole number of milliseconds." };
      return { change: { kind: "set", fault: { delay_ms: ms } } };
    }
    case "error": {
      const message = fields.message.trim();
      return { change: { kind: "set", fault: { error: { kind: fields.errorKind, message: message === "" ? null : message } } } };
    }
    case "mock": {
      let result: unknown;
      try {
        result = JSON.parse(fields.mock);
      } catch (error) {
        return { problem: `The mock is not JSON: ${error instanceof Error ? error.message : String(error)}` };
      }
      if (typeof result !== "object" || result === null || Array.isArray(result)) {
        return { problem: 'The mock is a CallToolResult: a JSON object such as {"content": [...]}.' };
      }
      return { change: { kind: "set", fault: { mock: result as Value } } };
    }
    case "imported":
      if (fields.set === "" || fields.definition === "") return { problem: "Choose an imported set and one of its mocked definitions." };
      return { change: { kind: "mock_from", set: fields.set, definition: fields.definition } };
  }
}
