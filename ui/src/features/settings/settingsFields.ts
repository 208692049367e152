/**
 * Every `ToolCallConfig` field as the Settings view shows it: a label, one line saying what it
 * does, and how it is edited. The form holds a draft (numbers as the text typed, so a half-typed
 * value is not lost) and sends only the fields that differ from what is stored; the backend
 * checks every value (`config_save`), so nothing here decides what is valid.
 */
import { formatDuration } from "../../lib/format";
import type { ToolCallConfig, Value } from "../../lib/ipc";
import { formatBytes } from "../results/formatBytes";

export type ConfigKey = keyof ToolCallConfig;

interface Choice {
  value: string;
  label: string;
}

export type FieldSpec =
  | { key: ConfigKey; label: string; help: string; kind: "bool" }
  | { key: ConfigKey; label: string; help: string; kind: "number"; unit: string }
  | { key: ConfigKey; label: string; help: string; kind: "choice"; choices: readonly Choice[] }
  | { key: ConfigKey; label: string; help: string; kind: "protocol" }
  | { key: ConfigKey; label: string; help: string; kind: "toggles" };

export interface FieldGroup {
  title: string;
  fields: readonly FieldSpec[];
}

export const GROUPS: readonly FieldGroup[] = [
  {
    title: "Running calls",
    fields: [
      {
        key: "parallel_execution",
        label: "Execution mode",
        help: "How the calls of one reply run: one after another, all at once, or read-only calls together and the rest in order.",
        kind: "choice",
        choices: [
          { value: "serial", label: "Serial" },
          { value: "parallel", label: "Parallel" },
          { value: "smart", label: "Smart" },
        ],
      },
      { key: "timeout_ms", label: "Timeout", help: "How long one call may run before it fails as timeout.", kind: "number", unit: "ms" },
      {
        key: "max_tool_output_bytes",
        label: "Output cap",
        help: "Output longer than this is cut to this many bytes and marked as truncated.",
        kind: "number",
        unit: "bytes",
      },
      {
        key: "max_total_tool_calls",
        label: "Calls per reply",
        help: "Calls beyond this many in one reply are not run; also the call cap a new agent conversation starts with.",
        kind: "number",
        unit: "calls",
      },
      {
        key: "max_iterations",
        label: "Model turns per conversation",
        help: "How many times a new agent conversation may ask the model before it stops.",
        kind: "number",
        unit: "turns",
      },
    ],
  },
  {
    title: "Confirmation",
    fields: [
      {
        key: "mode",
        label: "Call mode",
        help: "Auto runs an agent's calls as they arrive (destructive ones still ask); manual asks before each one.",
        kind: "choice",
        choices: [
          { value: "auto", label: "Auto" },
          { value: "manual", label: "Manual" },
        ],
      },
      {
        key: "require_confirmation",
        label: "Confirm every call",
        help: "Ask before every call, not only before those that may change something.",
        kind: "bool",
      },
    ],
  },
  {
    title: "What models are offered",
    fields: [
      { key: "enabled", label: "Tools on", help: "Off: no tool is offered to a model (prompts and agent requests list none).", kind: "bool" },
      {
        key: "default_tool_enabled",
        label: "New tools on",
        help: "Whether a tool without its own switch in Discovery is offered to models.",
        kind: "bool",
      },
      {
        key: "tool_toggles",
        label: "Tool switches",
        help: "Tools switched on or off one by one in Discovery; resetting clears them all.",
        kind: "toggles",
      },
      {
        key: "strict_unknown_tool",
        label: "Unknown tools are parse errors",
        help: "A call to a tool nobody registered is reported when the reply is parsed instead of running as a failed call.",
        kind: "bool",
      },
      {
        key: "protocol",
        label: "Format",
        help: "The tool-call format this configuration is for (seed 000's protocol); part of the prompt cache key.",
        kind: "protocol",
      },
    ],
  },
];

/** What the form holds for one field: numbers as typed text, the rest as stored. */
export type DraftValue = Value;
export type Draft = Partial<Record<ConfigKey, DraftValue>>;

const NUMBER_KEYS: ReadonlySet<ConfigKey> = new Set(
  GROUPS.flatMap((g) => g.fields)
    .filter((f) => f.kind === "number")
    .map((f) => f.key),
);

/** `config` as a draft: number fields as text. */
export function toDraft(config: ToolCallConfig): Draft {
  const draft: Draft = {};
  for (const [key, value] of Object.entries(config) as [ConfigKey, Value | undefined][]) {
    if (value === undefined) continue;
    draft[key] = NUMBER_KEYS.has(key) && typeof value === "number" ? String(value) : value;
  }
  return draft;
}

/** The value to send for a draft field: typed numbers as numbers, anything else as typed (the backend names what is wrong). */
export function toValue(key: ConfigKey, value: DraftValue): Value {
  if (!NUMBER_KEYS.has(key) || typeof value !== "string") return value;
  const text = value.trim();
  const number = Number(text);
  return text !== "" && Number.isFinite(number) ? number : value;
}

function same(a: DraftValue | undefined, b: DraftValue | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The fields of `draft` that differ from `stored`, as the backend takes them. */
export function changesOf(draft: Draft, stored: Draft): Record<string, Value> {
  const changes: Record<string, Value> = {};
  for (const [key, value] of Object.entries(draft) as [ConfigKey, DraftValue | undefined][]) {
    if (value !== undefined && !same(value, stored[key])) changes[key] = toValue(key, value);
  }
  return changes;
}

export function isChanged(key: ConfigKey, draft: Draft, stored: Draft): boolean {
  return !same(draft[key], stored[key]);
}

/** "30000 ms (30.0 s)", "65536 bytes (64.0 KiB)", "32 calls". */
function describeNumber(value: number, unit: string): string {
  const plain = `${String(value)} ${unit}`;
  if (unit === "ms" && value >= 1000) return `${plain} (${formatDuration(value)})`;
  if (unit === "bytes" && value >= 1024) return `${plain} (${formatBytes(value)})`;
  return plain;
}

/** A field's value as the description of its default: "30000 ms", "on", "smart". */
export function describeValue(spec: FieldSpec, value: DraftValue | undefined): string {
  if (value === undefined || value === null) return "";
  if (spec.kind === "bool") return value === true ? "on" : "off";
  if (spec.kind === "number") return describeNumber(Number(value), spec.unit);
  if (spec.kind === "toggles") return typeof value === "object" && Object.keys(value).length === 0 ? "none" : "some";
  if (spec.kind === "choice") return spec.choices.find((c) => c.value === value)?.label ?? JSON.stringify(value);
  return typeof value === "string" ? value : JSON.stringify(value);
}
