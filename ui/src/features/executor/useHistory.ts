/**
 * The run history shown by the Executor, newest first: `ipc.historyList(query, offset, limit)`
 * pages of summaries (the request and outcome of each run, not its result text).
 *
 * The pane holds a window of at most `HISTORY_WINDOW` entries of the matching history, never all
 * of it: the list's rows above the window are placeholders and its end is where the window ends,
 * and pages are read back from the backend (which keeps everything) as the list scrolls. So what
 * the pane keeps and re-renders per run stays the same after ten or ten thousand runs, and the
 * whole history is still browsable.
 *
 * - A new (debounced) search loads its first page.
 * - `show(first, last)` (the list, as it scrolls) loads the page that the rows in view need:
 *   the next older one near the window's end, the newer one when rows above it come into view.
 *   `loadMore()` loads the next older page (a button, for the keyboard).
 * - `refresh()` (after every run, on the Refresh button, when the pane is shown again) asks
 *   only for the newest few entries and puts the ones not seen yet on top, so a run costs one
 *   small page whatever the size of the history or how far the list was scrolled.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from "react";

import { errorMessage, ipc, type HistorySummary, type SkippedLine } from "../../lib/ipc";

export const HISTORY_PAGE = 100;
/** Most entries held at once (two pages): what scrolls further away is dropped and read again when needed. */
export const HISTORY_WINDOW = 2 * HISTORY_PAGE;
/** Rows before the end of the window at which the next older page is asked for. */
export const LOAD_AHEAD = 20;
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

/** The entries held for one query: a window of the matching history. */
export interface LoadedHistory {
  query: string;
  /** Where `entries[0]` is in the whole matching history, newest first (0: the newest run). */
  offset: number;
  entries: readonly HistorySummary[];
  /** Matching entries in the whole history. */
  total: number;
  skipped: readonly SkippedLine[];
}

/** A run of consecutive entries of the history (newest first) and where it starts. */
export interface HistoryWindow {
  offset: number;
  entries: readonly HistorySummary[];
}

/**
 * The window after `page` (the entries from position `at`) arrived: `held` moved down by
 * `shift` (runs recorded since it was loaded put new entries above it), then joined with the
 * page when the two touch or overlap, or replaced by it when they do not (or disagree where
 * they overlap). At most `limit` entries are kept: the page and what adjoins it; the far side
 * is dropped. `held.entries` itself is kept when the page brings nothing new (no re-render).
 */
export function placePage(
  held: HistoryWindow,
  shift: number,
  at: number,
  page: readonly HistorySummary[],
  limit: number = HISTORY_WINDOW,
): HistoryWindow {
  const offset = held.offset + shift;
  const heldEnd = offset + held.entries.length;
  const pageEnd = at + page.length;
  const alone = (): HistoryWindow => ({ offset: at, entries: page.length > limit ? page.slice(0, limit) : page });
  if (held.entries.length === 0 || pageEnd < offset || at > heldEnd) return alone();
  const start = Math.min(offset, at);
  const merged: HistorySummary[] = held.entries.slice();
  if (at < offset) merged.unshift(...page.slice(0, offset - at));
  let added = at < offset;
  for (let i = 0; i < page.length; i++) {
    const position = at + i - start;
    const entry = page[i];
    if (!entry) continue;
    const known = merged[position];
    if (known === undefined) {
      merged[position] = entry;
      added = true;
    } else if (known.id !== entry.id) {
      return alone();
    }
  }
  if (!added) return { offset, entries: held.entries };
  if (merged.length <= limit) return { offset: start, entries: merged };
  // Keep the side of the page: a newer page (or the newest) drops the oldest entries, an older one the newest.
  return at <= offset
    ? { offset: start, entries: merged.slice(0, limit) }
    : { offset: start + merged.length - limit, entries: merged.slice(merged.length - limit) };
}

function sameSkipped(a: readonly SkippedLine[], b: readonly SkippedLine[]): boolean {
  return a.length === b.length && a.every((line, i) => line.byte_offset === b[i]?.byte_offset && line.reason === b[i].reason);
}

export interface HistoryView {
  list: LoadedHistory | null;
  loading: boolean;
  error: string | null;
  /** Entries older than the window's end exist. */
  hasMore: boolean;
  loadMore: () => void;
  /** The rows `first`..`last` (positions in the whole history) are in view: load what they need. */
  show: (first: number, last: number) => void;
  refresh: () => void;
}

/** A page to read: the first of a query, the newest few, or one at `at` (absent: what the rows in view need). */
type Load = { kind: "first" } | { kind: "newest" } | { kind: "range"; at?: number };

/** Where the page the rows `first`..`last` need starts, if they need one. */
export function pageFor(held: LoadedHistory, first: number, last: number): number | null {
  const end = held.offset + held.entries.length;
  if (first < held.offset) {
    // Rows above the window in view: the page that ends where the window starts, or after a
    // jump (the scrollbar dragged to the top) the page from the first row in view.
    return held.offset - first <= HISTORY_PAGE ? Math.max(0, held.offset - HISTORY_PAGE) : Math.max(0, first - LOAD_AHEAD);
  }
  if (last >= end - LOAD_AHEAD && end < held.total) return end;
  return null;
}

export function useHistory(query: string, enabled: boolean): HistoryView {
  const settledQuery = useDebouncedValue(query.trim(), SEARCH_DEBOUNCE_MS);
  const [list, setList] = useState<LoadedHistory | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(0);
  // What the asynchronous loads read and write: the current query, the held window (the state
  // mirrors it; pages are placed here as they arrive, so the next decision sees them at once),
  // the rows in view, and whether a range page is on its way.
  const wanted = useRef(settledQuery);
  const current = useRef(list);
  const inView = useRef<{ first: number; last: number } | null>(null);
  const rangePending = useRef(false);
  const mounted = useRef(true);
  const loadRef = useRef<(request: Load) => void>(() => undefined);

  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  const load = useCallback((request: Load) => {
    const query = wanted.current;
    const shown = current.current?.query === query ? current.current : null;
    const kind = request.kind !== "first" && !shown ? "first" : request.kind;
    let at = 0;
    if (kind === "range" && request.kind === "range" && shown) {
      if (rangePending.current) return;
      const range = inView.current;
      const next = request.at ?? (range ? pageFor(shown, range.first, range.last) : null);
      if (next === null) return;
      at = next;
      rangePending.current = true;
    }
    const limit = kind === "newest" ? REFRESH_PAGE : HISTORY_PAGE;
    setPending((n) => n + 1);
    ipc
      .historyList(query === "" ? null : query, at, limit)
      .then(
        (page) => {
          // A page for a query that is no longer the one shown is dropped.
          if (!mounted.current || wanted.current !== query) return;
          setError(null);
          const previous = current.current;
          const base = previous?.query === query ? previous : null;
          // The history is append-only: a larger total means runs recorded since `base`,
          // all of them newer than its entries; a smaller one, a history replaced: start over.
          const shift = base ? page.total - base.total : 0;
          let next: HistoryWindow;
          if (!base || kind === "first" || shift < 0) {
            next = placePage({ offset: 0, entries: [] }, 0, at, page.entries);
          } else if (page.entries.length === 0 || (kind === "newest" && base.offset > 0)) {
            // Scrolled away from the newest: the rows in view stay, the new runs go above them
            // (read when scrolled to). An empty page (the history shrank under it) changes nothing.
            next = { offset: base.offset + shift, entries: base.entries };
          } else {
            next = placePage(base, shift, at, page.entries);
          }
          const unchanged =
            base !== null &&
            next.entries === base.entries &&
            next.offset === base.offset &&
            page.total === base.total &&
            sameSkipped(page.skipped, base.skipped);
          if (unchanged) return;
          const loaded: LoadedHistory = { query, ...next, total: page.total, skipped: page.skipped };
          current.current = loaded;
          setList(loaded);
        },
        (reason: unknown) => {
          if (mounted.current) setError(errorMessage(reason));
        },
      )
      .finally(() => {
        if (mounted.current) setPending((n) => n - 1);
        if (kind !== "range") return;
        rangePending.current = false;
        // The rows in view may have moved on while the page was on its way.
        if (mounted.current) loadRef.current({ kind: "range" });
      });
  }, []);

  useEffect(() => {
    loadRef.current = load;
  }, [load]);

  // A new search starts from its first page; showing the pane again picks up runs made elsewhere.
  useEffect(() => {
    wanted.current = settledQuery;
    if (!enabled) return;
    load(current.current?.query === settledQuery ? { kind: "newest" } : { kind: "first" });
  }, [settledQuery, enabled, load]);

  const loadMore = useCallback(() => {
    const held = current.current;
    if (held?.query !== wanted.current) return;
    const end = held.offset + held.entries.length;
    if (end < held.total) load({ kind: "range", at: end });
  }, [load]);
  const show = useCallback(
    (first: number, last: number) => {
      inView.current = { first, last };
      load({ kind: "range" });
    },
    [load],
  );
  const refresh = useCallback(() => {
    load({ kind: "newest" });
  }, [load]);

  const shown = list?.query === settledQuery ? list : null;
  const loading = enabled && (pending > 0 || shown === null);
  const hasMore = shown !== null && shown.offset + shown.entries.length < shown.total;
  return useMemo(
    () => ({ list, loading, error, hasMore, loadMore, show, refresh }),
    [list, loading, error, hasMore, loadMore, show, refresh],
  );
}
