/**
 * The records of the open session, read whole once and then tailed: every poll asks only for
 * what was appended after the cursor of the last read. Polling stops when the pane is hidden,
 * and for good once the session's `end` record is in (nothing follows it).
 */
import { useEffect, useRef, useState } from "react";

import { errorMessage, ipc, type ProxyRecord, type SkippedLine } from "../../lib/ipc";
import { POLL_MS } from "./useProxySessions";

export interface SessionRef {
  name: string;
  id: string;
}

export interface TailState {
  /** The session these records belong to. */
  key: string;
  records: ProxyRecord[];
  skipped: SkippedLine[];
  /** The file ends in a line not yet complete (being written, or torn by a killed proxy). */
  torn: boolean;
  loaded: boolean;
  error: string | null;
}

export function sessionKey(ref: SessionRef): string {
  return `${ref.name}/${ref.id}`;
}

function empty(key: string): TailState {
  return { key, records: [], skipped: [], torn: false, loaded: false, error: null };
}

export function useSessionTail(session: SessionRef | null, active: boolean, pollMs: number = POLL_MS): TailState | null {
  const key = session === null ? null : sessionKey(session);
  const [state, setState] = useState<TailState | null>(null);
  // Where the next read starts, kept across hide and show of the pane.
  const cursor = useRef<{ key: string; line: number; offset: number } | null>(null);

  const name = session?.name ?? null;
  const id = session?.id ?? null;
  const ended = state !== null && state.key === key && !state.torn && state.records.at(-1)?.body.type === "end";

  useEffect(() => {
    if (!active || name === null || id === null || key === null || ended) return;
    let live = true;
    let timer: number | undefined;
    const kept = cursor.current;
    let from = kept?.key === key ? { line: kept.line, offset: kept.offset } : { line: 0, offset: 0 };
    const poll = () => {
      ipc.proxySessionRead(name, id, from).then(
        (chunk) => {
          if (!live) return;
          from = chunk.next;
          cursor.current = { key, ...chunk.next };
          setState((previous) => {
            const base = previous?.key === key && !chunk.reset ? previous : empty(key);
            const changed = chunk.records.length > 0 || chunk.skipped.length > 0 || base.torn !== chunk.torn || !base.loaded || base.error !== null;
            if (!changed) return base;
            return {
              key,
              records: chunk.records.length > 0 ? [...base.records, ...chunk.records] : base.records,
              skipped: chunk.skipped.length > 0 ? [...base.skipped, ...chunk.skipped] : base.skipped,
              torn: chunk.torn,
              loaded: true,
              error: null,
            };
          });
          const done = !chunk.torn && chunk.records.at(-1)?.body.type === "end";
          if (!done) timer = window.setTimeout(poll, pollMs);
        },
        (reason: unknown) => {
          if (!live) return;
          setState((previous) => ({ ...(previous?.key === key ? previous : empty(key)), loaded: true, error: errorMessage(reason) }));
          timer = window.setTimeout(poll, pollMs);
        },
      );
    };
    poll();
    return () => {
      live = false;
      window.clearTimeout(timer);
    };
  }, [active, key, name, id, ended, pollMs]);

  return state?.key === key ? state : null;
}
