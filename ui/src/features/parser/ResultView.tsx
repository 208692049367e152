/**
 * One run result: status, duration, classified error with its suggestion and the result text
 * (as text, never HTML); a result in MCP's content shape is shown block by block.
 */
import { memo, useMemo } from "react";

import type { ToolExecutionResult } from "../../lib/ipc";
import { McpContentView } from "../results/McpContentView";
import { SuggestionHint } from "../results/SuggestionHint";
import { parseMcpContent } from "../results/mcpContent";
import { formatBytes, formatDuration, issueLines, prettyText } from "./format";

export const ResultView = memo(function ResultView({
  result,
  label,
}: {
  result: ToolExecutionResult;
  /** Shown before the status when the result is listed on its own. */
  label?: string;
}) {
  const { error, truncated } = result;
  const issues = issueLines(error?.issues);
  const mcp = useMemo(() => parseMcpContent(result.result), [result.result]);
  return (
    <div className={`parser-result parser-result-${result.status}`} data-testid="parser-result" data-status={result.status}>
      <div className="parser-result-head">
        {label ? <span className="parser-result-label">{label}</span> : null}
        <span className={`badge ${result.status === "success" ? "badge-ok" : "parser-badge-error"}`}>{result.status}</span>
        {error ? <code className="parser-error-kind">{error.kind}</code> : null}
        {result.duration_ms !== null ? <span className="muted">{formatDuration(result.duration_ms)}</span> : null}
        {truncated ? (
          <span className="muted">
            truncated: {formatBytes(truncated.kept_bytes)} of {formatBytes(truncated.original_bytes)} kept
          </span>
        ) : null}
      </div>
      {issues.length > 0 ? <pre className="parser-issues">{issues.join("\n")}</pre> : null}
      <SuggestionHint error={error} testId="parser-result-suggestion" />
      {mcp ? <McpContentView content={mcp} /> : <pre className="parser-result-text">{prettyText(result.result)}</pre>}
    </div>
  );
});
