/** Formatting shared by the panes, so the same value reads the same everywhere. */

/** A run's duration: "0.48 ms", "14.9 ms", "2.35 s"; empty when unknown. */
export function formatDuration(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return "";
  if (ms < 10) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${ms.toFixed(1)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}
