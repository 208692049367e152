/** The Metrics view's ranges and the figures it shows, apart from React. */
import type { CallStats, MetricsRange, MetricsReport } from "../../lib/ipc";
import { formatDuration } from "../../lib/format";

/** The ranges offered as one click; "custom" takes the CLI's `--since` / `--until` forms. */
export const PRESETS = [
  { id: "1h", label: "Last hour", since: "1h" },
  { id: "24h", label: "24 h", since: "24h" },
  { id: "7d", label: "7 d", since: "7d" },
  { id: "30d", label: "30 d", since: "30d" },
  { id: "all", label: "All", since: null },
] as const;

export type PresetId = (typeof PRESETS)[number]["id"];

export interface RangeChoice {
  preset: PresetId | "custom";
  /** What the custom fields hold (kept while a preset is chosen). */
  since: string;
  until: string;
  /** A tool id, or "" for every tool. */
  tool: string;
}

export const INITIAL_RANGE: RangeChoice = { preset: "24h", since: "", until: "", tool: "" };

/** The command's argument for a choice. */
export function toRange(choice: RangeChoice): MetricsRange {
  const tool = choice.tool === "" ? null : choice.tool;
  if (choice.preset === "custom") {
    return { since: blankToNull(choice.since), until: blankToNull(choice.until), tool };
  }
  const preset = PRESETS.find((p) => p.id === choice.preset);
  return { since: preset?.since ?? null, until: null, tool };
}

function blankToNull(text: string): string | null {
  return text.trim() === "" ? null : text.trim();
}

/** Whether any call was counted. */
export function hasCalls(report: MetricsReport): boolean {
  return report.metrics.totals.calls > 0;
}

/** Failure kinds of `stats`, most frequent first, then by name. */
export function failureKinds(stats: CallStats): [string, number][] {
  return Object.entries(stats.failures_by_kind).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

/** p50 / p95 / max as table cells; empty without calls. */
export function durationCells(stats: CallStats): [string, string, string] {
  const d = stats.durations;
  if (!d) return ["", "", ""];
  return [formatDuration(d.p50_ms), formatDuration(d.p95_ms), formatDuration(d.max_ms)];
}

/** Share of failed calls as a whole percentage ("0 %" without calls). */
export function failureRate(stats: CallStats): string {
  if (stats.calls === 0) return "0 %";
  return `${String(Math.round((stats.failures / stats.calls) * 100))} %`;
}

/** The chart's columns: bucket middles in seconds (uPlot's time unit), calls, failures. */
export function chartData(report: MetricsReport): [number[], number[], number[]] {
  const { buckets, bucket_ms } = report.metrics.series;
  return [
    buckets.map((b) => (b.start_ms + bucket_ms / 2) / 1000),
    buckets.map((b) => b.calls),
    buckets.map((b) => b.failures),
  ];
}

/** "1 min", "15 min", "6 h", "7 d": the width of one bar. */
export function bucketLabel(ms: number): string {
  const minutes = ms / 60_000;
  if (minutes < 60) return `${String(minutes)} min`;
  const hours = minutes / 60;
  if (hours < 24) return `${String(hours)} h`;
  return `${String(hours / 24)} d`;
}

/** A one-sentence summary of the chart for people who cannot see it. */
export function chartSummary(report: MetricsReport): string {
  const { buckets, bucket_ms } = report.metrics.series;
  const busiest = buckets.reduce((best, b) => (b.calls > best ? b.calls : best), 0);
  const totals = report.metrics.totals;
  return (
    `Calls over time in ${String(buckets.length)} bars of ${bucketLabel(bucket_ms)}: ` +
    `${String(totals.calls)} calls, ${String(totals.failures)} failed, at most ${String(busiest)} in one bar.`
  );
}
