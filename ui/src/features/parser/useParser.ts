/**
 * Parsing as the user types: `schedule` debounces `ipc.parseReply`, `parseNow` runs it at once,
 * and only the answer to the latest request is kept (a slow answer for older text is dropped).
 * The parsed text travels with its answer, since the spans index that text, not the editor's.
 * Asking `parseNow` again for exactly what is already on its way waits for that answer instead
 * of sending the reply again (a paste starts its parse before the editor has taken it in).
 * An answer holds its first requests only: `loadRequests` adds the rest, a page at a time, to
 * the snapshot they belong to.
 */
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";

import { errorMessage, ipc, IpcError, type ParsedReply, type RequestToolsChoice } from "../../lib/ipc";
import { sameTools } from "./RequestToolsPicker";

export const PARSE_DEBOUNCE_MS = 250;

/** A parse answer together with what was parsed. */
export interface ParseSnapshot {
  text: string;
  /** The format asked for (`null` = auto-detect). */
  format: string | null;
  /** The request's tools it was checked against (`null` = the registry). */
  tools: RequestToolsChoice | null;
  /** Whether what a serving stack would not return was dropped. */
  strict: boolean;
  reply: ParsedReply;
}

export interface ShownError {
  kind: string;
  message: string;
}

export interface ParserState {
  snapshot: ParseSnapshot | null;
  error: ShownError | null;
  pending: boolean;
}

export function asShownError(reason: unknown): ShownError {
  if (reason instanceof IpcError) return { kind: reason.kind, message: reason.message };
  return { kind: "ipc", message: errorMessage(reason) };
}

export function useParser() {
  const [state, setState] = useState<ParserState>({ snapshot: null, error: null, pending: false });
  const latest = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  // What the latest request asked, while its answer is on its way.
  const inFlight = useRef<{ request: number; text: string; format: string | null; tools: RequestToolsChoice | null; strict: boolean } | null>(null);

  const stopTimer = useCallback(() => {
    if (timer.current !== null) clearTimeout(timer.current);
    timer.current = null;
  }, []);

  const parseNow = useCallback(
    (text: string, format: string | null, tools: RequestToolsChoice | null = null, strict = false) => {
      stopTimer();
      const flying = inFlight.current;
      if (
        flying?.request === latest.current &&
        flying.format === format &&
        flying.strict === strict &&
        sameTools(flying.tools, tools) &&
        flying.text === text
      ) {
        return;
      }
      latest.current += 1;
      const request = latest.current;
      if (text === "") {
        inFlight.current = null;
        setState({ snapshot: null, error: null, pending: false });
        return;
      }
      inFlight.current = { request, text, format, tools, strict };
      setState((previous) => ({ ...previous, pending: true }));
      ipc.parseReply(text, format, tools, strict).then(
        (reply) => {
          if (request !== latest.current) return;
          inFlight.current = null;
          setState({ snapshot: { text, format, tools, strict, reply }, error: null, pending: false });
        },
        (reason: unknown) => {
          if (request !== latest.current) return;
          inFlight.current = null;
          setState((previous) => ({ ...previous, error: asShownError(reason), pending: false }));
        },
      );
    },
    [stopTimer],
  );

  // `text` may be a function giving the text when the timer fires: typing in a 5 MB reply then
  // builds its string once per pause, not once per keystroke.
  const schedule = useCallback(
    (text: string | (() => string), format: string | null, tools: RequestToolsChoice | null = null, strict = false) => {
      stopTimer();
      // Anything in flight is for older text now.
      latest.current += 1;
      setState((previous) => (previous.pending ? previous : { ...previous, pending: true }));
      timer.current = setTimeout(() => {
        timer.current = null;
        parseNow(typeof text === "string" ? text : text(), format, tools, strict);
      }, PARSE_DEBOUNCE_MS);
    },
    [parseNow, stopTimer],
  );

  useEffect(() => stopTimer, [stopTimer]);

  // The latest snapshot, for loads started from callbacks; and how far loads were asked to go.
  const shown = useRef<ParseSnapshot | null>(null);
  // Before any passive effect: the lists ask for pages from theirs.
  useLayoutEffect(() => {
    shown.current = state.snapshot;
  }, [state.snapshot]);
  const wanted = useRef<{ parseId: number; upTo: number; loading: boolean } | null>(null);

  /** Asks for the shown snapshot's requests up to `upTo` (exclusive) that it does not hold yet. */
  const loadRequests = useCallback((upTo: number) => {
    const snapshot = shown.current;
    if (!snapshot) return;
    const parseId = snapshot.reply.parse_id;
    const held = snapshot.reply.report.requests.length;
    const target = Math.min(upTo, snapshot.reply.outline.count);
    if (target <= held) return;
    if (wanted.current?.parseId === parseId) {
      // A load on its way goes on to the new end.
      wanted.current.upTo = Math.max(wanted.current.upTo, target);
      if (wanted.current.loading) return;
    } else {
      wanted.current = { parseId, upTo: target, loading: false };
    }
    const goal = wanted.current;
    goal.loading = true;
    void (async () => {
      let from = held;
      try {
        while (wanted.current === goal && goal.upTo > from) {
          const page = await ipc.parsedRequests(parseId, from, goal.upTo);
          setState((previous) => {
            const current = previous.snapshot;
            if (current?.reply.parse_id !== parseId || current.reply.report.requests.length !== page.from) return previous;
            const { reply } = current;
            const requests = [...reply.report.requests, ...page.requests];
            const checks = [...reply.checks, ...page.checks];
            return { ...previous, snapshot: { ...current, reply: { ...reply, report: { ...reply.report, requests }, checks } } };
          });
          if (page.requests.length === 0) break;
          from += page.requests.length;
        }
        goal.loading = false;
      } catch (reason: unknown) {
        if (wanted.current !== goal) return;
        wanted.current = null;
        // A newer parse replaced this one: its answer is on its way, nothing to say.
        if (shown.current?.reply.parse_id !== parseId) return;
        setState((previous) => ({ ...previous, error: asShownError(reason) }));
      }
    })();
  }, []);

  return { ...state, schedule, parseNow, loadRequests };
}
