/**
 * The Metrics view's data: the report for the applied range, read again when the range changes,
 * on demand, and after a run (at once while the view is shown, else the next time it is).
 */
import { useCallback, useEffect, useEffectEvent, useRef, useState } from "react";

import { onAppEvent } from "../../lib/appEvents";
import { ipc, IpcError, IPC_FAILURE, type MetricsRange, type MetricsReport } from "../../lib/ipc";

export interface MetricsState {
  /** The last report read (kept on screen while a newer one loads or fails). */
  report: MetricsReport | null;
  error: IpcError | null;
  loading: boolean;
  refresh: () => void;
}

function toIpcError(reason: unknown): IpcError {
  return reason instanceof IpcError ? reason : new IpcError(IPC_FAILURE, String(reason));
}

interface Answer {
  report: MetricsReport | null;
  error: IpcError | null;
  /** The request this answers. */
  request: number;
}

/** `range` must keep its identity until the person applies another one. */
export function useMetrics(range: MetricsRange, active: boolean): MetricsState {
  const [request, setRequest] = useState(0);
  const [answer, setAnswer] = useState<Answer>({ report: null, error: null, request: -1 });
  // A run ended while the view was hidden: read again when it is shown.
  const stale = useRef(false);

  const refresh = useCallback(() => {
    setRequest((n) => n + 1);
  }, []);

  const onRunFinished = useEffectEvent(() => {
    if (active) refresh();
    else stale.current = true;
  });
  useEffect(
    () =>
      onAppEvent("run-finished", () => {
        onRunFinished();
      }),
    [],
  );

  useEffect(() => {
    if (active && stale.current) {
      stale.current = false;
      refresh();
    }
  }, [active, refresh]);

  // A new range is a new request too.
  const [shownRange, setShownRange] = useState(range);
  if (shownRange !== range) {
    setShownRange(range);
    setRequest((n) => n + 1);
  }

  useEffect(() => {
    let live = true;
    ipc.metricsReport(shownRange).then(
      (report) => {
        if (live) setAnswer({ report, error: null, request });
      },
      (reason: unknown) => {
        if (live) setAnswer((previous) => ({ report: previous.report, error: toIpcError(reason), request }));
      },
    );
    return () => {
      live = false;
    };
  }, [shownRange, request]);

  return { report: answer.report, error: answer.error, loading: answer.request !== request, refresh };
}
