/**
 * The imported tool sets: their list (kept fresh like the other sources) and the one set open
 * in the section, re-read after every change so its definitions and mocks are what is saved.
 */
import { useCallback, useEffect, useState } from "react";

import { errorMessage, ipc, type Mock, type ToolSet } from "../../lib/ipc";
import { useSourceQuery } from "./useSourceQuery";

export function useImportedSets() {
  const { data: sets, loadError, reload } = useSourceQuery(ipc.importedSets);
  const [openName, setOpenName] = useState<string | null>(null);
  const [open, setOpen] = useState<ToolSet | null>(null);
  const [openError, setOpenError] = useState<string | null>(null);

  const listed = sets?.some((set) => set.name === openName) ?? false;
  // Re-read the open set whenever the list changes (an import, a mock saved elsewhere).
  useEffect(() => {
    if (openName === null || !listed) return;
    let current = true;
    ipc.importedSet(openName).then(
      (set) => {
        if (!current) return;
        setOpen(set);
        setOpenError(null);
      },
      (reason: unknown) => {
        if (current) setOpenError(errorMessage(reason));
      },
    );
    return () => {
      current = false;
    };
  }, [openName, listed, sets]);

  const saveMock = useCallback(
    async (definition: string, mock: Mock | null) => {
      if (openName === null) return;
      await ipc.importedSetMock(openName, definition, mock);
      reload();
    },
    [openName, reload],
  );

  const remove = useCallback(
    async (name: string) => {
      await ipc.importedRemove(name);
      if (name === openName) setOpenName(null);
      reload();
    },
    [openName, reload],
  );

  // A set closed, removed or not read yet shows nothing (not the previous one).
  const shown = openName !== null && listed && open?.name === openName ? open : null;

  return { sets, loadError, reload, openName, setOpenName, open: shown, openError, saveMock, remove };
}
