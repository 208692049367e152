/**
 * The Live pane: the MCP sessions `toolscope proxy mcp` records between a person's own agent
 * and its servers, as they happen. The list and the open session are polled every second while
 * the pane is shown (the open one read on from where the last read stopped). With no session
 * yet, it explains how to start watching an agent; the app itself never starts a proxy.
 */
import { useState } from "react";

import type { ProxySessionSummary } from "../../lib/ipc";
import { SessionList } from "./SessionList";
import { SessionView } from "./SessionView";
import { POLL_MS, useProxySessions } from "./useProxySessions";
import { sessionKey, useSessionTail, type SessionRef } from "./useSessionTail";
import { WatchHelp } from "./WatchHelp";
import "./live.css";

interface Props {
  active: boolean;
  /** How often the list and the open session are read again (tests shorten it). */
  pollMs?: number;
}

export function LivePane({ active, pollMs = POLL_MS }: Props) {
  const { sessions, error, now } = useProxySessions(active, pollMs);
  const [opened, setOpened] = useState<SessionRef | null>(null);
  const tail = useSessionTail(opened, active, pollMs);
  const list = sessions?.sessions ?? [];
  const openedKey = opened === null ? null : sessionKey(opened);
  const summary = list.find((s) => sessionKey({ name: s.name, id: s.session_id }) === openedKey);

  const open = (session: ProxySessionSummary) => {
    setOpened({ name: session.name, id: session.session_id });
  };

  return (
    <section className="pane lv-pane" data-active={active} aria-labelledby="live-title" data-testid="live-pane">
      <div className="pane-head">
        <div>
          <h2 id="live-title">Live</h2>
          <p className="muted">Your own agent's MCP sessions, recorded by toolscope proxy: every call as it happens, validated against the schema the agent was given.</p>
        </div>
      </div>
      {error !== null && (
        <div className="status status-error" role="alert">
          <p>Sessions unavailable: {error}</p>
        </div>
      )}
      {sessions === null && error === null && <p className="muted">Looking for sessions…</p>}
      {sessions !== null && list.length === 0 && (
        <div className="status" data-testid="live-empty">
          <h3>No proxied session yet</h3>
          <WatchHelp roots={sessions.roots} />
        </div>
      )}
      {list.length > 0 && (
        <div className="lv-main">
          <div className="lv-side">
            <SessionList sessions={list} selected={openedKey} now={now} onOpen={open} />
            <details className="lv-help-details">
              <summary>Watch another agent</summary>
              <WatchHelp roots={sessions?.roots ?? []} />
            </details>
          </div>
          {summary ? (
            <SessionView key={openedKey} summary={summary} tail={tail} now={now} />
          ) : (
            <p className="muted lv-pick">Open a session to see its handshake, tools and calls.</p>
          )}
        </div>
      )}
    </section>
  );
}
