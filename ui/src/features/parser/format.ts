/** Text helpers of the Parser pane: pretty JSON, durations, argument issues. */
import { formatCount } from "../../lib/format";
import type { ArgumentIssue, Value } from "../../lib/ipc";

/** Longest result text that is re-indented as JSON; longer text is shown as it came. */
const PRETTY_LIMIT = 2 * 1024 * 1024;

export function prettyJson(value: Value | Record<string, Value>): string {
  return JSON.stringify(value, null, 2);
}

/** `text` re-indented when it is a JSON object or array, otherwise unchanged. */
export function prettyText(text: string): string {
  const trimmed = text.trim();
  const first = trimmed[0];
  if (trimmed.length > PRETTY_LIMIT || (first !== "{" && first !== "[")) return text;
  try {
    return JSON.stringify(JSON.parse(trimmed), null, 2);
  } catch {
    return text;
  }
}

export { formatCount, formatDuration } from "../../lib/format";

/** Schema issues as the engine words them: `- /path: message`, one a line. */
export function issueLines(issues: readonly ArgumentIssue[] | undefined): string[] {
  return (issues ?? []).map((issue) => `- ${issue.path}: ${issue.message}`);
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${formatCount(count)} ${count === 1 ? one : many}`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${String(bytes)} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
