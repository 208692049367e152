/**
 * Recorded conversations, newest first: when, the task, the model, turns, calls and how it
 * ended; search, open, and delete (asked twice).
 */
import { useId, useState } from "react";

import { formatTimestamp } from "../../lib/format";
import { stopReasonShort } from "./describe";
import type { ConversationsView } from "./useConversations";

interface Props {
  view: ConversationsView;
  query: string;
  onQueryChange: (query: string) => void;
}

export function ConversationList({ view, query, onQueryChange }: Props) {
  const id = useId();
  const [deleting, setDeleting] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const { list } = view;

  const remove = (conversationId: string) => {
    setDeleting(null);
    void view.remove(conversationId).then(setProblem);
  };

  return (
    <section className="ag-section" aria-labelledby={`${id}-title`}>
      <div className="ag-section-head">
        <h3 id={`${id}-title`}>Recorded conversations</h3>
        <label className="visually-hidden" htmlFor={`${id}-search`}>
          Search conversations
        </label>
        <input
          id={`${id}-search`}
          className="ag-input ag-search"
          type="search"
          placeholder="Search task and model…"
          value={query}
          onChange={(e) => { onQueryChange(e.target.value); }}
          data-testid="conversation-search"
        />
        <button type="button" className="button button-small" onClick={view.refresh} disabled={view.loading}>
          Refresh
        </button>
      </div>
      {view.error !== null && (
        <div className="status status-error" role="alert">
          <p>Conversations unavailable: {view.error}</p>
        </div>
      )}
      {problem !== null && (
        <p className="ag-error" role="alert">
          {problem}
        </p>
      )}
      {list?.length === 0 && <p className="muted">{query.trim() === "" ? "No conversation recorded yet." : "No conversation matches."}</p>}
      {list && list.length > 0 && (
        <ul className="ag-conversations" aria-labelledby={`${id}-title`}>
          {list.map((c) => (
            <li key={c.id} className={`ag-conversation${view.opened?.id === c.id ? " is-open" : ""}`} data-testid="conversation-row">
              <button
                type="button"
                className="ag-conversation-open"
                onClick={() => { view.open(c.id); }}
                disabled={view.opening !== null}
                aria-current={view.opened?.id === c.id ? "true" : undefined}
                data-testid="conversation-open"
              >
                <span className="ag-conversation-task">
                  {c.proxied && <span className="badge badge-muted" title="Recorded by toolscope proxy llm between an agent and its model">proxy</span>}{c.proxied && " "}
                  {c.task}
                </span>
                <span className="muted ag-small">
                  {formatTimestamp(c.started_at_ms)} · <code>{c.model}</code> · {c.turns} {c.turns === 1 ? "turn" : "turns"} · {c.tool_calls}{" "}
                  {c.tool_calls === 1 ? "call" : "calls"} · <span data-testid="conversation-ended">{c.proxied && !c.ended ? "watched" : stopReasonShort(c.ended)}</span>
                </span>
              </button>
              {deleting === c.id ? (
                <span className="ag-buttons">
                  <button type="button" className="button button-small ag-danger" onClick={() => { remove(c.id); }} data-testid="conversation-delete-confirm">
                    Delete for good
                  </button>
                  <button type="button" className="button button-small" onClick={() => { setDeleting(null); }}>
                    Keep
                  </button>
                </span>
              ) : (
                <button
                  type="button"
                  className="button button-small"
                  onClick={() => { setDeleting(c.id); }}
                  aria-label={`Delete the conversation "${c.task}"`}
                  data-testid="conversation-delete"
                >
                  Delete
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {view.openError !== null && (
        <p className="ag-error" role="alert">
          Could not open the conversation: {view.openError}
        </p>
      )}
    </section>
  );
}
