/**
 * The run history shown by the Executor, newest first: `ipc.historyList(query, offset, limit)`
 * pages of summaries (the request and outcome of each run, not its result text).
 *
 * - A new (debounced) search loads its first page.
 * - `loadMore()` appends the next page (the list asks when its end scrolls into view).
 * - `refresh()` (after every run, on the Refresh button, when the pane is shown again) asks
 *   only for the newest few entries and puts the ones not seen yet on top, so a run costs one
 *   small page whatever the size of the history or how far the list was scrolled.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from "react";

import { errorMessage, ipc, type HistorySummary, type SkippedLine } from "../../lib/ipc";

export const HISTORY_PAGE = 100;
/** Entries asked for by `refresh()`; more new runs than this since the last look start the list over. */
export const REFRESH_PAGE = 25;
export const SEARCH_DEBOUNCE_MS = 250;

/** `value`, once it has stopped changing for `delayMs`. */
export function useDebouncedValue<T>(value: T, delayMs: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = window.setTimeout(() => {
      setSettled(value);
    }, delayMs);
    return () => {
      window.clearTimeout(timer);
    };
  }, [value, delayMs]);
  return settled;
}

/** The entries loaded for one query. */
export interface LoadedHistory {
  query: string;
  entries: readonly HistorySummary[];
  /** Matching entries in the whole history. */
  total: number;
  skipped: readonly SkippedLine[];
}

/**
 * `list` with the entries of `newest` (a first page) that are newer than its first entry put on
 * top; null when `newest` does not reach back to it (too many new runs: start over from `newest`).
 * The history is append-only, so everything from that entry on is already in `list`.
 */
export function mergeNewest(
  list: readonly HistorySummary[],
  newest: readonly HistorySummary[],
): readonly HistorySummary[] | null {
  const anchor = list[0];
  if (!anchor) return newest;
  const at = newest.findIndex((entry) => entry.id === anchor.id);
  if (at < 0) return null;
  return at === 0 ? list : [...newest.slice(0, at), ...list];
}

/**
 * `list` followed by the entries of `older` (the page at offset `list.length`) it lacks: runs
 * recorded since `list` was loaded shift the offsets, so the page may repeat a few entries.
 */
export function appendOlder(
  list: readonly HistorySummary[],
  older: readonly HistorySummary[],
): readonly HistorySummary[] {
  const seen = new Set(list.map((entry) => entry.id));
  const fresh = older.filter((entry) => !seen.has(entry.id));
  return fresh.length === 0 ? list : [...list, ...fresh];
}

function sameSkipped(a: readonly SkippedLine[], b: readonly SkippedLine[]): boolean {
  return a.length === b.length && a.every((line, i) => line.byte_offset === b[i]?.byte_offset && line.reason === b[i].reason);
}

export interface HistoryView {
  list: LoadedHistory | null;
  loading: boolean;
  error: string | null;
  hasMore: boolean;
  loadMore: () => void;
  refresh: () => void;
}

type Load = "first" | "newest" | "older";

export function useHistory(query: string, enabled: boolean): HistoryView {
  const settledQuery = useDebouncedValue(query.trim(), SEARCH_DEBOUNCE_MS);
  const [list, setList] = useState<LoadedHistory | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(0);
  // What the asynchronous loads read: the current query and list, and whether a page is on its way.
  const wanted = useRef(settledQuery);
  const current = useRef(list);
  const olderPending = useRef(false);
  const mounted = useRef(true);

  useEffect(() => {
    current.current = list;
  }, [list]);

  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  const load = useCallback((kind: Load) => {
    const query = wanted.current;
    const shown = current.current?.query === query ? current.current : null;
    if (kind !== "first" && !shown) kind = "first";
    if (kind === "older") {
      if (olderPending.current || !shown || shown.entries.length >= shown.total) return;
      olderPending.current = true;
    }
    const offset = kind === "older" && shown ? shown.entries.length : 0;
    const limit = kind === "newest" ? REFRESH_PAGE : HISTORY_PAGE;
    setPending((n) => n + 1);
    ipc
      .historyList(query === "" ? null : query, offset, limit)
      .then(
        (page) => {
          // A page for a query that is no longer the one shown is dropped.
          if (!mounted.current || wanted.current !== query) return;
          setError(null);
          setList((previous) => {
            const base = previous?.query === query ? previous.entries : null;
            let entries: readonly HistorySummary[] = page.entries;
            if (base && kind === "newest") entries = mergeNewest(base, page.entries) ?? page.entries;
            else if (base && kind === "older") entries = appendOlder(base, page.entries);
            const unchanged =
              previous !== null &&
              entries === base &&
              page.total === previous.total &&
              sameSkipped(page.skipped, previous.skipped);
            return unchanged ? previous : { query, entries, total: page.total, skipped: page.skipped };
          });
        },
        (reason: unknown) => {
          if (mounted.current) setError(errorMessage(reason));
        },
      )
      .finally(() => {
        if (kind === "older") olderPending.current = false;
        if (mounted.current) setPending((n) => n - 1);
      });
  }, []);

  // A new search starts from its first page; showing the pane again picks up runs made elsewhere.
  useEffect(() => {
    wanted.current = settledQuery;
    if (!enabled) return;
    load(current.current?.query === settledQuery ? "newest" : "first");
  }, [settledQuery, enabled, load]);

  const loadMore = useCallback(() => {
    load("older");
  }, [load]);
  const refresh = useCallback(() => {
    load("newest");
  }, [load]);

  const shown = list?.query === settledQuery ? list : null;
  const loading = enabled && (pending > 0 || shown === null);
  const hasMore = shown !== null && shown.entries.length < shown.total;
  return useMemo(
    () => ({ list, loading, error, hasMore, loadMore, refresh }),
    [list, loading, error, hasMore, loadMore, refresh],
  );
}
