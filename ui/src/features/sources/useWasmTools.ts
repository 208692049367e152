/**
 * The WASM tool directories: their tools, the problems of the last reload and the grants
 * waiting for approval. Read at start and on `sources-changed`; each action returns the fresh
 * view, which replaces the shown one. Actions throw the backend's error to the caller.
 */
import { useCallback } from "react";

import { ipc, type WasmToolsView } from "../../lib/ipc";
import { useSourceQuery } from "./useSourceQuery";

export interface WasmTools {
  view: WasmToolsView | null;
  loadError: string | null;
  /** Reads the view again. */
  reload: () => void;
  add: (path: string) => Promise<void>;
  remove: (path: string) => Promise<void>;
  approve: (key: string) => Promise<void>;
  /** Re-reads every directory now, without waiting for the watch. */
  rescan: () => Promise<void>;
}

export function useWasmTools(): WasmTools {
  const { data: view, setData: setView, loadError, reload } = useSourceQuery(ipc.wasmTools);

  const add = useCallback(
    async (path: string) => {
      setView(await ipc.wasmAddDirectory(path));
    },
    [setView],
  );
  const remove = useCallback(
    async (path: string) => {
      setView(await ipc.wasmRemoveDirectory(path));
    },
    [setView],
  );
  const approve = useCallback(
    async (key: string) => {
      setView(await ipc.wasmApprove(key));
    },
    [setView],
  );
  const rescan = useCallback(async () => {
    setView(await ipc.wasmReload());
  }, [setView]);

  return { view, loadError, reload, add, remove, approve, rescan };
}
