/**
 * The run history page shown by the Executor: `ipc.historyList(query, limit)` (newest first),
 * re-queried when the debounced search changes, when more is asked for, and on `refresh()`.
 */
import { useCallback, useEffect, useState } from "react";

import { errorMessage, ipc, type HistoryPage } from "../../lib/ipc";

export const HISTORY_PAGE = 100;
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

export interface HistoryView {
  page: HistoryPage | null;
  loading: boolean;
  error: string | null;
  limit: number;
  showMore: () => void;
  refresh: () => void;
}

export function useHistory(query: string, enabled: boolean): HistoryView {
  const settledQuery = useDebouncedValue(query.trim(), SEARCH_DEBOUNCE_MS);
  // "Show more" applies to the query it was asked for; a new query starts from one page again.
  const [more, setMore] = useState({ query: "", limit: HISTORY_PAGE });
  const limit = more.query === settledQuery ? more.limit : HISTORY_PAGE;
  const [generation, setGeneration] = useState(0);
  const key = `${String(generation)}|${String(limit)}|${settledQuery}`;
  const [loaded, setLoaded] = useState<{ key: string; page: HistoryPage | null; error: string | null } | null>(null);

  useEffect(() => {
    if (!enabled) return;
    let current = true;
    ipc.historyList(settledQuery === "" ? null : settledQuery, limit).then(
      (page) => {
        if (current) setLoaded({ key, page, error: null });
      },
      (reason: unknown) => {
        if (current) setLoaded((previous) => ({ key, page: previous?.page ?? null, error: errorMessage(reason) }));
      },
    );
    return () => {
      current = false;
    };
  }, [settledQuery, limit, key, enabled]);

  const showMore = useCallback(() => {
    setMore({ query: settledQuery, limit: limit + HISTORY_PAGE });
  }, [settledQuery, limit]);
  const refresh = useCallback(() => {
    setGeneration((g) => g + 1);
  }, []);

  return {
    page: loaded?.page ?? null,
    loading: enabled && loaded?.key !== key,
    error: loaded?.error ?? null,
    limit,
    showMore,
    refresh,
  };
}
