/**
 * The sessions, grouped by server name (the proxy's `--name`), newest first in each group and
 * the group of the newest session first. ↑/↓/Home/End move through every session, Enter opens.
 */
import { formatCount, formatTimestamp } from "../../lib/format";
import type { ProxySessionSummary } from "../../lib/ipc";
import { sessionState, startedMs } from "./sessionState";
import { StateBadge } from "./StateBadge";
import { sessionKey } from "./useSessionTail";
import { useRovingFocus } from "./useRovingFocus";

interface Props {
  sessions: ProxySessionSummary[];
  selected: string | null;
  now: number;
  onOpen: (session: ProxySessionSummary) => void;
}

interface Group {
  name: string;
  sessions: { session: ProxySessionSummary; index: number }[];
}

function groups(sessions: ProxySessionSummary[]): Group[] {
  const byName = new Map<string, Group>();
  for (const session of sessions) {
    const group = byName.get(session.name) ?? { name: session.name, sessions: [] };
    group.sessions.push({ session, index: 0 });
    byName.set(session.name, group);
  }
  let index = 0;
  const ordered = [...byName.values()];
  for (const group of ordered) for (const row of group.sessions) row.index = index++;
  return ordered;
}

function plural(count: number, one: string, many: string): string {
  return `${formatCount(count)} ${count === 1 ? one : many}`;
}

function Row({ session, now }: { session: ProxySessionSummary; now: number }) {
  const problems = session.invalid_calls > 0 || session.failed_calls > 0;
  return (
    <>
      <span className="lv-row-head">
        <StateBadge state={sessionState(session, now)} />
        <span className="lv-row-time">{formatTimestamp(startedMs(session), now)}</span>
        {session.enforce && <span className="badge badge-muted" title="Invalid calls are refused (--enforce)">enforce</span>}
      </span>
      <span className="muted lv-small lv-ellipsis">{session.server ?? session.argv.join(" ")}</span>
      <span className="muted lv-small" data-testid="session-counts">
        {plural(session.calls, "call", "calls")}
        {session.invalid_calls > 0 && (
          <span className="lv-warn-text">
            {" "}
            · {formatCount(session.invalid_calls)} invalid{session.refused_calls > 0 && ` (${formatCount(session.refused_calls)} refused)`}
          </span>
        )}
        {session.failed_calls > 0 && <span className="lv-error-text"> · {formatCount(session.failed_calls)} failed</span>}
        {!problems && session.calls > 0 && " · all valid"}
        {session.torn && " · last line incomplete"}
      </span>
    </>
  );
}

export function SessionList({ sessions, selected, now, onOpen }: Props) {
  const grouped = groups(sessions);
  const selectedIndex = sessions.findIndex((s) => sessionKey({ name: s.name, id: s.session_id }) === selected);
  const roving = useRovingFocus<HTMLDivElement>(sessions.length, selectedIndex, (index) => {
    const session = sessions[index];
    if (session) onOpen(session);
  });

  return (
    <div className="lv-sessions" onKeyDown={roving.onKeyDown} data-testid="session-list">
      {grouped.map((group) => (
        <section key={group.name} className="lv-group" aria-label={`Sessions of ${group.name}`}>
          <h3 className="lv-group-name">
            {group.name} <span className="muted lv-small">{plural(group.sessions.length, "session", "sessions")}</span>
          </h3>
          <ul className="lv-rows">
            {group.sessions.map(({ session, index }) => {
              const key = sessionKey({ name: session.name, id: session.session_id });
              return (
                <li key={key}>
                  <button
                    type="button"
                    className={`lv-row${key === selected ? " is-open" : ""}`}
                    aria-current={key === selected ? "true" : undefined}
                    onClick={() => {
                      onOpen(session);
                    }}
                    data-testid="session-row"
                    data-session={session.session_id}
                    {...roving.itemProps(index)}
                  >
                    <Row session={session} now={now} />
                  </button>
                </li>
              );
            })}
          </ul>
        </section>
      ))}
    </div>
  );
}
