/**
 * The HTTP tool directory: its files and problems (read at start, on `sources-changed` and
 * after each save or delete), and per-file drafts so switching files never loses an edit.
 */
import { useCallback, useEffect, useState } from "react";

import { errorMessage, ipc, type HttpToolsView } from "../../lib/ipc";
import { useSourcesChanged } from "../../lib/useSourcesChanged";

export interface HttpTools {
  view: HttpToolsView | null;
  loadError: string | null;
  reload: () => void;
  read: (fileName: string) => Promise<string>;
  /** Saves and returns nothing; throws the backend's error (the caller keeps the text). */
  save: (fileName: string, text: string) => Promise<void>;
  remove: (fileName: string) => Promise<void>;
}

export function useHttpTools(): HttpTools {
  const [request, setRequest] = useState(0);
  const [view, setView] = useState<HttpToolsView | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);

  useEffect(() => {
    let current = true;
    ipc.httpTools().then(
      (next) => {
        if (!current) return;
        setView(next);
        setLoadError(null);
      },
      (reason: unknown) => {
        if (current) setLoadError(errorMessage(reason));
      },
    );
    return () => {
      current = false;
    };
  }, [request]);

  const reload = useCallback(() => {
    setRequest((n) => n + 1);
  }, []);
  useSourcesChanged(reload);

  const read = useCallback((fileName: string) => ipc.httpToolRead(fileName), []);
  const save = useCallback(async (fileName: string, text: string) => {
    setView(await ipc.httpToolSave(fileName, text));
  }, []);
  const remove = useCallback(async (fileName: string) => {
    setView(await ipc.httpToolDelete(fileName));
  }, []);

  return { view, loadError, reload, read, save, remove };
}
