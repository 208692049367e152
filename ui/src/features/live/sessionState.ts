/** Whether a session is running, as far as its file tells. */
import type { ProxySessionSummary } from "../../lib/ipc";

/** A session with no `end` record written to within this long is shown as live. */
export const LIVE_WINDOW_MS = 5 * 60 * 1000;

export type SessionState = "live" | "ended" | "unfinished";

export function lastWrite(session: ProxySessionSummary): number | null {
  if (session.modified_ms !== null) return session.modified_ms;
  const at = session.last_at === null ? Number.NaN : Date.parse(session.last_at);
  return Number.isFinite(at) ? at : null;
}

export function sessionState(session: ProxySessionSummary, now: number): SessionState {
  if (session.end !== null) return "ended";
  const written = lastWrite(session);
  return written !== null && now - written < LIVE_WINDOW_MS ? "live" : "unfinished";
}

export function startedMs(session: ProxySessionSummary): number {
  const at = session.started_at === null ? Number.NaN : Date.parse(session.started_at);
  return Number.isFinite(at) ? at : Number.NaN;
}
