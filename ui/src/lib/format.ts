/**
 * Formatting shared by the panes, so the same value reads the same everywhere.
 *
 * Dates and counts go through the `Intl` formatters made once below, never through
 * `Date#toLocale*String` or `Number#toLocaleString`: WebKitGTK's JavaScriptCore (2.50) builds a
 * new ICU formatter for every such call, about 54 KB for a date and 2.4 KB for a number, and
 * the web process does not give that memory back. Rendering 100 history rows once per run that
 * way grew the web process from 300 MiB to 1.1 GiB over a few hundred runs. ESLint forbids the
 * `toLocale*` methods in the UI (eslint.config.js).
 */

/** A run's duration: "0.48 ms", "14.9 ms", "2.35 s"; empty when unknown. */
export function formatDuration(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return "";
  if (ms < 10) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${ms.toFixed(1)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

// Made on first use (not at import), then reused for every call.
let countFormat: Intl.NumberFormat | undefined;
let timeFormat: Intl.DateTimeFormat | undefined;
let dateTimeFormat: Intl.DateTimeFormat | undefined;

/** A count with digit grouping, the same in every locale: "12,345". */
export function formatCount(count: number): string {
  countFormat ??= new Intl.NumberFormat("en-US");
  return countFormat.format(count);
}

function sameLocalDay(a: number, b: number): boolean {
  const x = new Date(a);
  const y = new Date(b);
  return x.getFullYear() === y.getFullYear() && x.getMonth() === y.getMonth() && x.getDate() === y.getDate();
}

/**
 * A moment in the user's locale: the time of day alone when it is today (relative to `now`),
 * else date and time — what `toLocaleTimeString()` / `toLocaleString()` show.
 */
export function formatTimestamp(ms: number, now: number = Date.now()): string {
  if (!Number.isFinite(ms)) return "";
  if (sameLocalDay(ms, now)) {
    timeFormat ??= new Intl.DateTimeFormat(undefined, { hour: "numeric", minute: "2-digit", second: "2-digit" });
    return timeFormat.format(ms);
  }
  dateTimeFormat ??= new Intl.DateTimeFormat(undefined, {
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "2-digit",
    second: "2-digit",
  });
  return dateTimeFormat.format(ms);
}
