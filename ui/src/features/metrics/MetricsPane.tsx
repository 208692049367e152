/**
 * The Metrics view (seed 002): what the run history adds up to over a chosen range — calls,
 * failures by error kind, bytes in and out, p50 / p95 / max durations per tool and method — with
 * a chart of calls over time. Read from the same history file `toolscope stats` reads, after
 * every run and on demand.
 */
import { useMemo, useState } from "react";

import { formatTimestamp } from "../../lib/format";
import type { IpcError, MetricsReport } from "../../lib/ipc";
import type { PaneProps } from "../../shell/lazyPane";
import { CallsChart } from "./CallsChart";
import { FailureKinds, ToolTable, Totals } from "./MetricsTables";
import { hasCalls, INITIAL_RANGE, toRange, type RangeChoice } from "./metricsModel";
import { RangePicker } from "./RangePicker";
import { useMetrics } from "./useMetrics";
import "./metrics.css";

function invalidField(error: IpcError | null): string | null {
  const details = error?.details;
  if (error?.kind !== "invalid_input" || typeof details !== "object" || details === null || Array.isArray(details)) return null;
  const field = details.field;
  return typeof field === "string" ? field : null;
}

function Empty({ choice }: { choice: RangeChoice }) {
  const everything = choice.preset === "all" && choice.tool === "";
  return (
    <div className="status metrics-empty" data-testid="metrics-empty">
      {everything ? (
        <p>No runs recorded yet. Run a method in the Executor or a reply in the Parser and it is counted here.</p>
      ) : (
        <p>No calls in this range{choice.tool === "" ? "" : ` to ${choice.tool}`}. Choose a longer range or “All”.</p>
      )}
    </div>
  );
}

function Report({ report }: { report: MetricsReport }) {
  const { metrics } = report;
  return (
    <>
      <Totals totals={metrics.totals} />
      <section className="metrics-section" aria-labelledby="metrics-chart-title">
        <h3 id="metrics-chart-title">Calls over time</h3>
        <CallsChart report={report} />
      </section>
      <section className="metrics-section" aria-labelledby="metrics-kinds-title">
        <h3 id="metrics-kinds-title">Failures by error kind</h3>
        <FailureKinds totals={metrics.totals} />
      </section>
      <section className="metrics-section" aria-labelledby="metrics-table-title">
        <h3 id="metrics-table-title">Per tool and method</h3>
        <ToolTable metrics={metrics} />
      </section>
    </>
  );
}

export function MetricsPane({ active }: PaneProps) {
  const [choice, setChoice] = useState<RangeChoice>(INITIAL_RANGE);
  const range = useMemo(() => toRange(choice), [choice]);
  const { report, error, loading, refresh } = useMetrics(range, active);

  return (
    <section className="pane metrics-pane" aria-labelledby="metrics-title" data-testid="metrics-pane">
      <div className="pane-head">
        <div>
          <h2 id="metrics-title">Metrics</h2>
          <p className="muted">
            Every call recorded in the run history (Executor, Parser, Agent and the CLI), as <code>toolscope stats</code> counts it.
          </p>
        </div>
        <div className="metrics-refresh">
          <span className="muted" aria-live="polite" data-testid="metrics-status">
            {loading ? "Loading…" : report ? `Read at ${formatTimestamp(report.now_ms)}` : ""}
          </span>
          <button type="button" className="button" onClick={refresh} disabled={loading} data-testid="metrics-refresh">
            Refresh
          </button>
        </div>
      </div>
      <RangePicker choice={choice} toolIds={report?.tool_ids ?? []} invalidField={invalidField(error)} onChange={setChoice} />
      {error && (
        <div className="status status-error" role="alert" data-testid="metrics-error">
          <p>
            <strong>The metrics could not be read.</strong> <code className="kind">{error.kind}</code>
          </p>
          <p>{error.message}</p>
          <button type="button" className="button button-small" onClick={refresh}>
            Try again
          </button>
        </div>
      )}
      {report && report.skipped_lines > 0 && (
        <p className="muted metrics-skipped">
          {report.skipped_lines} unreadable line{report.skipped_lines === 1 ? "" : "s"} of the history left out.
        </p>
      )}
      {report && !error && (hasCalls(report) ? <Report report={report} /> : <Empty choice={choice} />)}
    </section>
  );
}
