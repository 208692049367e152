/**
 * One source listing kept fresh: loaded at start, again on `reload()` and on every
 * `sources-changed` event; an answer that arrives after a newer request started is dropped.
 */
import { useCallback, useEffect, useState } from "react";

import { errorMessage } from "../../lib/ipc";
import { useSourcesChanged } from "../../lib/useSourcesChanged";

export interface SourceQuery<T> {
  data: T | null;
  /** Replaces the data with what an action returned. */
  setData: (data: T) => void;
  loadError: string | null;
  reload: () => void;
}

/** `load` must be stable (a module-level IPC call). */
export function useSourceQuery<T>(load: () => Promise<T>): SourceQuery<T> {
  const [request, setRequest] = useState(0);
  const [data, setData] = useState<T | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);

  useEffect(() => {
    let current = true;
    load().then(
      (next) => {
        if (!current) return;
        setData(next);
        setLoadError(null);
      },
      (reason: unknown) => {
        if (current) setLoadError(errorMessage(reason));
      },
    );
    return () => {
      current = false;
    };
  }, [load, request]);

  const reload = useCallback(() => {
    setRequest((n) => n + 1);
  }, []);
  useSourcesChanged(reload);

  return { data, setData, loadError, reload };
}
