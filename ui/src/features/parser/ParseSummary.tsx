/**
 * What the last parse found: the format used (and whether it was detected), counts, a clear
 * "no tool calls found" message, and parse failures (an `IpcError` such as `unknown_format`).
 */
import { memo } from "react";

import type { ParsedReply } from "../../lib/ipc";
import { validCount } from "./requestOutline";
import { formatCount, plural } from "./format";
import type { ShownError } from "./useParser";

export function noCallsMessage(format: string, detected: boolean): string {
  return detected
    ? "No tool calls found (format auto: no known format matched)."
    : `No tool calls found (format ${format}).`;
}

export function ErrorNotice({ title, error }: { title: string; error: ShownError }) {
  return (
    <div className="status status-error parser-error" role="alert" data-testid="parser-error" data-kind={error.kind}>
      <p>
        <strong>{title}</strong> <code className="kind">{error.kind}</code>
      </p>
      <p>{error.message}</p>
    </div>
  );
}

export const ParseSummary = memo(function ParseSummary({
  reply,
  stale,
  pending,
  error,
}: {
  reply: ParsedReply | null;
  /** The editor's text changed since `reply` was parsed. */
  stale: boolean;
  pending: boolean;
  error: ShownError | null;
}) {
  const report = reply?.report;
  const count = reply?.outline.count ?? 0;
  const valid = reply ? validCount(reply.outline) : 0;
  const errors = report?.diagnostics.filter((d) => d.severity === "error").length ?? 0;
  const warnings = (report?.diagnostics.length ?? 0) - errors;
  return (
    <div className="parser-summary">
      {error ? <ErrorNotice title="Could not parse the reply" error={error} /> : null}
      <p className="muted parser-summary-line" role="status" aria-live="polite">
        {pending ? "Parsing…" : stale ? "The text changed since the last parse." : ""}
      </p>
      {report ? (
        <p className="parser-summary-line" data-testid="parser-summary">
          <span data-testid="parser-format-used" data-format={report.format} data-detected={String(report.detected)}>
            Format <code>{report.format}</code> {report.detected ? "(detected)" : "(chosen)"}
          </span>
          {" · "}
          {plural(count, "request")} ({formatCount(valid)} valid) · {plural(errors, "error")} ·{" "}
          {plural(warnings, "warning")}
        </p>
      ) : null}
      {report && count === 0 ? (
        <p className="status parser-no-calls" data-testid="parser-no-calls">
          {noCallsMessage(report.format, report.detected)}
        </p>
      ) : null}
    </div>
  );
});
