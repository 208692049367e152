/**
 * The proxied sessions, polled while the pane is shown: each poll waits for the previous one,
 * and polling stops when the pane is hidden.
 */
import { useEffect, useState } from "react";

import { errorMessage, ipc, type ProxySessions } from "../../lib/ipc";

export const POLL_MS = 1000;

export interface SessionsView {
  sessions: ProxySessions | null;
  error: string | null;
  /** When the last poll answered (unix ms): what "live" is judged against. */
  now: number;
}

export function useProxySessions(active: boolean, pollMs: number = POLL_MS): SessionsView {
  const [sessions, setSessions] = useState<ProxySessions | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [now, setNow] = useState(0);

  useEffect(() => {
    if (!active) return;
    let live = true;
    let timer: number | undefined;
    const poll = () => {
      ipc.proxySessionsList().then(
        (found) => {
          if (!live) return;
          setSessions(found);
          setError(null);
          setNow(Date.now());
          timer = window.setTimeout(poll, pollMs);
        },
        (reason: unknown) => {
          if (!live) return;
          setError(errorMessage(reason));
          timer = window.setTimeout(poll, pollMs);
        },
      );
    };
    poll();
    return () => {
      live = false;
      window.clearTimeout(timer);
    };
  }, [active, pollMs]);

  return { sessions, error, now };
}
