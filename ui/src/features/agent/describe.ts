/** Words for what the agent loop reports: stop reasons, retries, decisions, usage, wires. */
import { formatCount, formatDuration } from "../../lib/format";
import type { Decision, StopReason, Usage } from "../../lib/ipc";
import type { Retry } from "./conversationModel";

export const WIRES: readonly { id: string; label: string }[] = [
  { id: "openai_chat", label: "OpenAI Chat Completions" },
  { id: "openai_responses", label: "OpenAI Responses" },
  { id: "anthropic", label: "Anthropic Messages" },
  { id: "gemini", label: "Gemini" },
];

export function wireLabel(wire: string): string {
  return WIRES.find((w) => w.id === wire)?.label ?? wire;
}

/** How a conversation ended, in a sentence. */
export function stopReasonText(reason: StopReason): string {
  switch (reason.reason) {
    case "final":
      return "The model answered without calling a tool.";
    case "max_iterations":
      return `Stopped at the limit of ${formatCount(reason.limit)} model requests.`;
    case "max_tool_calls":
      return `Stopped at the limit of ${formatCount(reason.limit)} tool calls.`;
    case "token_budget":
      return `Stopped: ${formatCount(reason.used)} tokens used of a budget of ${formatCount(reason.limit)}.`;
    case "stopped":
      return "Stopped by you.";
    case "model_failed":
      return `The model request failed (${reason.kind.replaceAll("_", " ")}): ${reason.message}`;
  }
}

/** A short label for a list row. */
export function stopReasonShort(reason: StopReason | null): string {
  if (!reason) return "unfinished";
  switch (reason.reason) {
    case "final":
      return "answered";
    case "max_iterations":
      return "request limit";
    case "max_tool_calls":
      return "call limit";
    case "token_budget":
      return "token budget";
    case "stopped":
      return "stopped";
    case "model_failed":
      return `failed: ${reason.kind.replaceAll("_", " ")}`;
  }
}

/** "rate limited, retry 1 of 2 in 1.0 s". */
export function retryText(retry: Retry): string {
  return `${retry.reason}, retry ${String(retry.attempt)} of ${String(retry.of)} in ${(retry.waitMs / 1000).toFixed(1)} s`;
}

export function decisionText(decision: Decision): string {
  switch (decision.decision) {
    case "run":
      return decision.edited ? "run with edited arguments" : "run";
    case "deny":
      return decision.reason ? `denied: ${decision.reason}` : "denied";
    case "stop":
      return "stopped the conversation";
  }
}

export function usageText(usage: Usage): string {
  return `${formatCount(usage.input_tokens)} in / ${formatCount(usage.output_tokens)} out tokens`;
}

/** "first token 120 ms" etc.; empty parts left out. */
export function timingParts(timing: {
  first_token_ms: number | null;
  first_call_ms: number | null;
  total_ms: number | null;
}): string[] {
  const parts: string[] = [];
  if (timing.first_token_ms !== null) parts.push(`first token ${formatDuration(timing.first_token_ms)}`);
  if (timing.first_call_ms !== null) parts.push(`first call ${formatDuration(timing.first_call_ms)}`);
  if (timing.total_ms !== null) parts.push(`total ${formatDuration(timing.total_ms)}`);
  return parts;
}
