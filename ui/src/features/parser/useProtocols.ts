/**
 * The formats the format select offers (`ipc.listProtocols`) and the problems of declared format
 * files (`ipc.formatProblems`). Declared formats are files a person edits in their own editor, so
 * both are read again whenever the pane becomes active or the window regains focus: an edit shows
 * up when they come back, without a restart.
 */
import { useCallback, useEffect, useState } from "react";

import { ipc, type FormatProblem, type ProtocolInfo } from "../../lib/ipc";
import { asShownError, type ShownError } from "./useParser";

export function useProtocols(active = true) {
  const [protocols, setProtocols] = useState<ProtocolInfo[]>([]);
  const [problems, setProblems] = useState<FormatProblem[]>([]);
  const [error, setError] = useState<ShownError | null>(null);

  const load = useCallback(() => {
    let current = true;
    Promise.all([ipc.listProtocols(), ipc.formatProblems()]).then(
      ([found, fileProblems]) => {
        if (!current) return;
        setProtocols(found);
        setProblems(fileProblems);
        setError(null);
      },
      (reason: unknown) => {
        if (current) setError(asShownError(reason));
      },
    );
    return () => {
      current = false;
    };
  }, []);

  useEffect(() => {
    if (!active) return;
    const cancel = load();
    const onFocus = () => {
      load();
    };
    window.addEventListener("focus", onFocus);
    return () => {
      cancel();
      window.removeEventListener("focus", onFocus);
    };
  }, [active, load]);

  return { protocols, problems, error };
}
