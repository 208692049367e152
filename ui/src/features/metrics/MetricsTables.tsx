/** The figures under the chart: totals, failures by kind, and a row per tool and per method. */
import type { CallStats, Metrics } from "../../lib/ipc";
import { formatCount } from "../../lib/format";
import { formatBytes } from "../results/formatBytes";
import { durationCells, failureKinds, failureRate } from "./metricsModel";

export function Totals({ totals }: { totals: CallStats }) {
  const [p50, p95, max] = durationCells(totals);
  const figures: [string, string, string][] = [
    ["calls", "Calls", formatCount(totals.calls)],
    ["failures", "Failed", `${formatCount(totals.failures)} (${failureRate(totals)})`],
    ["bytes-in", "Bytes in", formatBytes(totals.bytes_in)],
    ["bytes-out", "Bytes out", formatBytes(totals.bytes_out)],
    ["p50", "p50", p50],
    ["p95", "p95", p95],
    ["max", "Max", max],
  ];
  return (
    <dl className="metrics-totals" data-testid="metrics-totals">
      {figures.map(([id, label, value]) => (
        <div key={id} className="metrics-figure" data-testid={`metrics-total-${id}`} data-value={id === "calls" ? totals.calls : undefined}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

export function FailureKinds({ totals }: { totals: CallStats }) {
  const kinds = failureKinds(totals);
  if (kinds.length === 0) return <p className="muted metrics-no-failures">No failed calls in this range.</p>;
  return (
    <ul className="metrics-kinds" aria-label="Failures by error kind" data-testid="metrics-failure-kinds">
      {kinds.map(([kind, count]) => (
        <li key={kind} className="metrics-kind" data-kind={kind}>
          <code>{kind}</code> <span className="metrics-kind-count">{formatCount(count)}</span>
        </li>
      ))}
    </ul>
  );
}

function Row({ name, stats, method }: { name: string; stats: CallStats; method: boolean }) {
  const [p50, p95, max] = durationCells(stats);
  const kinds = failureKinds(stats)
    .map(([kind, count]) => `${kind} ${String(count)}`)
    .join(", ");
  return (
    <tr className={method ? "metrics-method-row" : "metrics-tool-row"} data-testid={method ? "metrics-method-row" : "metrics-tool-row"} data-name={name}>
      <th scope="row">{method ? <code>{name}</code> : name}</th>
      <td>{formatCount(stats.calls)}</td>
      <td className={stats.failures > 0 ? "metrics-failed" : undefined} title={kinds || undefined}>
        {formatCount(stats.failures)}
      </td>
      <td>{p50}</td>
      <td>{p95}</td>
      <td>{max}</td>
      <td>{formatBytes(stats.bytes_in)}</td>
      <td>{formatBytes(stats.bytes_out)}</td>
    </tr>
  );
}

export function ToolTable({ metrics }: { metrics: Metrics }) {
  return (
    <div className="metrics-table-wrap">
      <table className="metrics-table" data-testid="metrics-table">
        <caption className="visually-hidden">Calls, failures, durations and bytes per tool and method</caption>
        <thead>
          <tr>
            <th scope="col">Tool / method</th>
            <th scope="col">Calls</th>
            <th scope="col">Failed</th>
            <th scope="col">p50</th>
            <th scope="col">p95</th>
            <th scope="col">Max</th>
            <th scope="col">Bytes in</th>
            <th scope="col">Bytes out</th>
          </tr>
        </thead>
        {metrics.tools.map((tool) => (
          <tbody key={tool.tool_id}>
            <Row name={tool.tool_id} stats={tool.stats} method={false} />
            {tool.methods.map((method) => (
              <Row key={method.routing_name} name={method.routing_name} stats={method.stats} method />
            ))}
          </tbody>
        ))}
      </table>
    </div>
  );
}
