/**
 * The HTTP tool directory: its files and problems (read at start, on `sources-changed` and
 * after each save or delete), and per-file drafts so switching files never loses an edit.
 */
import { useCallback } from "react";

import { ipc, type HttpToolsView } from "../../lib/ipc";
import { useSourceQuery } from "./useSourceQuery";

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
  const { data: view, setData: setView, loadError, reload } = useSourceQuery(ipc.httpTools);

  const read = useCallback((fileName: string) => ipc.httpToolRead(fileName), []);
  const save = useCallback(
    async (fileName: string, text: string) => {
      setView(await ipc.httpToolSave(fileName, text));
    },
    [setView],
  );
  const remove = useCallback(
    async (fileName: string) => {
      setView(await ipc.httpToolDelete(fileName));
    },
    [setView],
  );

  return { view, loadError, reload, read, save, remove };
}
