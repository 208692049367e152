/** A session's state as a badge: live, ended (how), or no end record. */
import type { SessionState } from "./sessionState";

const LABEL: Record<SessionState, string> = { live: "live", ended: "ended", unfinished: "no end record" };
const TONE: Record<SessionState, string> = { live: "badge-ok", ended: "badge-muted", unfinished: "lv-badge-warn" };
const TITLE: Record<SessionState, string> = {
  live: "Still being written: new calls appear as they happen",
  ended: "The proxy wrote its end record",
  unfinished: "No end record and nothing written for a while: still running but idle, or the proxy was killed",
};

export function StateBadge({ state }: { state: SessionState }) {
  return (
    <span className={`badge ${TONE[state]}`} title={TITLE[state]} data-testid="session-state" data-state={state}>
      {state === "live" && <span className="lv-dot" aria-hidden="true" />}
      {LABEL[state]}
    </span>
  );
}
