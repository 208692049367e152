/**
 * How far the running call has got, as its tool reports it (MCP progress notifications): a
 * bar with progress/total when the total is known, else the count; the tool's message beside.
 */
import { formatCount } from "../../lib/format";
import type { CallProgress } from "../../lib/ipc";

function number(value: number): string {
  return Number.isInteger(value) ? formatCount(value) : value.toFixed(2);
}

export function RunProgress({ progress }: { progress: CallProgress | null }) {
  if (progress === null) return null;
  const { total, message } = progress;
  const done = progress.progress ?? 0;
  const known = total !== null && total > 0;
  return (
    <div className="ex-progress" data-testid="executor-progress" role="status" aria-live="polite">
      {known ? (
        <>
          <progress className="ex-progress-bar" value={Math.min(done, total)} max={total} aria-label="Progress" />
          <span className="ex-progress-count" data-testid="executor-progress-count">
            {number(done)} / {number(total)}
          </span>
        </>
      ) : (
        <span className="ex-progress-count" data-testid="executor-progress-count">
          progress {number(done)}
        </span>
      )}
      {message !== null && message !== "" && (
        <span className="ex-progress-message muted" data-testid="executor-progress-message">
          {message}
        </span>
      )}
    </div>
  );
}
