/**
 * An opened session: its command line and state, the handshake, the tool listings, the faults
 * set for its server, the timeline as it grows, and the call selected in it.
 */
import { useMemo, useState } from "react";

import { formatCount } from "../../lib/format";
import type { ProxySessionSummary } from "../../lib/ipc";
import { CallDetail } from "./CallDetail";
import { FaultControl } from "./FaultControl";
import { Handshake } from "./Handshake";
import { ReplayControl } from "./ReplayControl";
import { endText, foldSession } from "./sessionModel";
import { sessionState } from "./sessionState";
import { StateBadge } from "./StateBadge";
import { Timeline } from "./Timeline";
import { ToolListings } from "./ToolListings";
import type { TailState } from "./useSessionTail";

interface Props {
  summary: ProxySessionSummary;
  tail: TailState | null;
  now: number;
}

export function SessionView({ summary, tail, now }: Props) {
  const records = tail?.records;
  const model = useMemo(() => foldSession(records ?? []), [records]);
  const [selected, setSelected] = useState<string | null>(null);
  const call = model.timeline.find((entry) => entry.kind === "call" && entry.key === selected);
  const argv = model.header?.argv ?? summary.argv;
  const end = model.end?.end ?? summary.end;
  const readError = tail?.error ?? null;

  return (
    <section className="lv-session" aria-labelledby="lv-session-title" data-testid="session-view">
      <div className="lv-session-head">
        <h3 id="lv-session-title">
          {summary.name} <span className="muted lv-small">{summary.session_id}</span>
        </h3>
        <StateBadge state={sessionState(summary, now)} />
        {summary.enforce && <span className="badge badge-muted">enforce</span>}
      </div>
      <p className="lv-argv">
        <code data-testid="session-argv">{argv.join(" ")}</code>
      </p>
      {argv.length > 0 && <ReplayControl key={summary.session_id} name={summary.name} sessionId={summary.session_id} argv={argv} />}
      {end !== null && (
        <p className="muted lv-small" data-testid="session-end">
          {endText(end)}
        </p>
      )}
      {readError !== null && (
        <div className="status status-error" role="alert">
          <p>The session could not be read: {readError}</p>
        </div>
      )}
      {tail !== null && tail.skipped.length > 0 && (
        <p className="lv-warn-text lv-small">
          {formatCount(tail.skipped.length)} {tail.skipped.length === 1 ? "line" : "lines"} could not be read (first: line {tail.skipped[0]?.line}
          , {tail.skipped[0]?.reason}).
        </p>
      )}
      {tail?.torn === true && end === null && summary.end === null && sessionState(summary, now) !== "live" && (
        <p className="muted lv-small">The file ends in an incomplete line: the proxy was probably killed while writing.</p>
      )}
      {tail?.loaded !== true ? (
        <p className="muted">Reading the session…</p>
      ) : (
        <>
          <div className="lv-overview">
            <section aria-label="Handshake">
              <h4>Handshake</h4>
              <Handshake handshake={model.handshake} />
            </section>
            <section aria-label="Tools">
              <h4>Tools listed</h4>
              <ToolListings listings={model.listings} />
            </section>
          </div>
          <FaultControl key={summary.name} name={summary.name} tools={model.listings.at(-1)?.names ?? []} />
          <div className="lv-calls">
            <section aria-label="Calls">
              <h4>
                Timeline <span className="muted lv-small">{formatCount(model.calls)} answered calls</span>
              </h4>
              <Timeline entries={model.timeline} selected={selected} onSelect={setSelected} />
            </section>
            {call?.kind === "call" ? (
              <CallDetail server={summary.name} call={call} messages={model.messages} />
            ) : (
              <p className="muted lv-small lv-detail-empty">Select a call to see its request and response.</p>
            )}
          </div>
        </>
      )}
    </section>
  );
}
