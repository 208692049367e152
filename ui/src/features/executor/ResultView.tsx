/**
 * The outcome of the last run: status, duration, the classified error (kind, message, argument
 * issues as `- /path: message`, the engine's suggestion as a hint), a truncation note, and the result — pretty-printed when it is
 * JSON, else as text; a result in MCP's content shape as its blocks (images shown, raw JSON a
 * toggle away). Everything is rendered as text, never as HTML. A copy button.
 */
import { memo, useMemo } from "react";

import { CopyButton as SharedCopyButton } from "../../lib/CopyButton";
import type { ToolExecutionResult } from "../../lib/ipc";
import type { RunFailure, RunOutcome } from "./useRun";
import { formatDuration } from "../../lib/format";
import { formatBytes } from "../results/formatBytes";
import { McpContentView } from "../results/McpContentView";
import { parseMcpContent } from "../results/mcpContent";
import { SuggestionHint } from "../results/SuggestionHint";

/** The result text for display: indented JSON when it parses, else the text itself. */
export function prettyResult(text: string): { body: string; json: boolean } {
  const trimmed = text.trim();
  if (trimmed === "") return { body: text, json: false };
  try {
    return { body: JSON.stringify(JSON.parse(trimmed), null, 2), json: true };
  } catch {
    return { body: text, json: false };
  }
}

/** A copy button that says whether it worked. */
export function CopyButton({ text, label, testId }: { text: string; label: string; testId?: string }) {
  return <SharedCopyButton text={text} label={label} testId={testId} className="button ex-small" stateClassName="ex-copy-state" />;
}

function ResultBody({ result }: { result: ToolExecutionResult }) {
  const mcp = useMemo(() => parseMcpContent(result.result), [result.result]);
  if (mcp) {
    return (
      <div className="ex-result-body-wrap">
        <div className="ex-result-tools">
          <span className="muted">MCP result</span>
          <CopyButton text={mcp.raw} label="Copy result" testId="executor-copy-result" />
        </div>
        <McpContentView content={mcp} testId="executor-result-body" />
      </div>
    );
  }
  return <PlainResultBody result={result} />;
}

function PlainResultBody({ result }: { result: ToolExecutionResult }) {
  const { body, json } = prettyResult(result.result);
  return (
    <div className="ex-result-body-wrap">
      <div className="ex-result-tools">
        <span className="muted">{json ? "JSON" : "text"}</span>
        <CopyButton text={body} label="Copy result" testId="executor-copy-result" />
      </div>
      <pre className="ex-result-body" data-testid="executor-result-body" data-format={json ? "json" : "text"} tabIndex={0}>
        {body}
      </pre>
    </div>
  );
}

/** One short line for screen readers; the result itself is not read out. */
function announce(outcome: RunOutcome | null, failure: RunFailure | null): string {
  if (failure) return `${failure.call.tool_name} could not complete: ${failure.message}`;
  if (!outcome) return "";
  const { result } = outcome;
  const took = result.duration_ms === null ? "" : ` in ${formatDuration(result.duration_ms)}`;
  return result.status === "success"
    ? `${result.tool_name} succeeded${took}`
    : `${result.tool_name} failed${took}: ${result.error?.kind ?? "error"}`;
}

/** Memoised: the pane re-renders as a run starts and ends, and the result it shows is unchanged then. */
export const ResultView = memo(function ResultView({ outcome, failure }: { outcome: RunOutcome | null; failure: RunFailure | null }) {
  return (
    <div className="ex-results">
      <p className="visually-hidden" aria-live="polite" data-testid="executor-announcement">
        {announce(outcome, failure)}
      </p>
      {failure && (
        <div className="status status-error" role="alert" data-testid="executor-run-error">
          <p>
            <strong>{failure.call.tool_name}</strong> could not complete: {failure.message}
            <span className="kind badge">{failure.kind}</span>
          </p>
        </div>
      )}
      {outcome && <ResultPanel outcome={outcome} />}
    </div>
  );
});

function ResultPanel({ outcome }: { outcome: RunOutcome }) {
  const { result } = outcome;
  const error = result.error ?? null;
  return (
    <section
      className={`ex-result ex-result-${result.status}`}
      data-testid="executor-result"
      data-status={result.status}
      aria-label="Result"
    >
      <header className="ex-result-head">
        <span className={result.status === "success" ? "badge badge-ok" : "badge ex-badge-danger"} data-testid="executor-result-status">
          {result.status}
        </span>
        <code className="ex-result-name">{result.tool_name}</code>
        <span className="muted" data-testid="executor-result-duration">
          {result.duration_ms === null ? "no duration" : formatDuration(result.duration_ms)}
        </span>
        {outcome.call.parent_id && (
          <span className="muted" title={outcome.call.parent_id}>
            re-run of {outcome.call.parent_id.slice(0, 8)}
          </span>
        )}
      </header>
      {error && (
        <div className="ex-result-error" data-testid="executor-result-error">
          <p>
            <span className="badge ex-badge-danger" data-testid="executor-error-kind">
              {error.kind}
            </span>{" "}
            {error.message}
          </p>
          {error.issues && error.issues.length > 0 && (
            <ul className="ex-issues" data-testid="executor-issues" aria-label="Argument issues">
              {error.issues.map((issue, index) => (
                <li key={`${issue.path}-${String(index)}`}>
                  - <code>{issue.path}</code>: {issue.message}
                </li>
              ))}
            </ul>
          )}
          <SuggestionHint error={error} testId="executor-suggestion" />
        </div>
      )}
      {result.truncated && (
        <p className="ex-warning" data-testid="executor-truncated">
          Output truncated: kept {formatBytes(result.truncated.kept_bytes)} of {formatBytes(result.truncated.original_bytes)}.
        </p>
      )}
      <ResultBody result={result} />
    </section>
  );
}
