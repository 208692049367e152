/** The conversation in flight (or the last one): its task, the turns as they stream, and how it ended. */
import type { AgentRun } from "./useAgentRun";
import { EndedNote } from "./EndedNote";
import { TurnView } from "./TurnView";

interface Props {
  run: AgentRun;
  prompted: boolean;
  /** Opens the recorded conversation below. */
  onOpenRecord: (id: string) => void;
}

export function LiveView({ run, prompted, onOpenRecord }: Props) {
  const { conversation, task } = run;
  if (task === null) return null;
  const last = conversation.turns[conversation.turns.length - 1];
  return (
    <section className="ag-section ag-live" aria-labelledby="agent-live-title" data-testid="agent-live">
      <div className="ag-section-head">
        <h3 id="agent-live-title">{run.running ? "Conversation running" : "Last conversation"}</h3>
        {run.conversationId !== null && <span className="muted ag-small">recorded as {run.conversationId}</span>}
        {run.conversationId !== null && !run.running && (
          <button
            type="button"
            className="button button-small"
            onClick={() => {
              if (run.conversationId !== null) onOpenRecord(run.conversationId);
            }}
            data-testid="agent-open-record"
          >
            Open the record
          </button>
        )}
      </div>
      <p className="ag-task-text">{task}</p>
      <p className="visually-hidden" aria-live="polite">
        {run.running ? `turn ${String(last?.turn ?? 0)}` : conversation.ended ? "conversation ended" : ""}
      </p>
      {conversation.turns.map((turn) => (
        <TurnView key={turn.turn} turn={turn} prompted={prompted} live={run.running && turn === last} />
      ))}
      {conversation.ended && <EndedNote ended={conversation.ended} />}
      {run.failure !== null && (
        <div className="status status-error" role="alert" data-testid="agent-failure">
          <p>The conversation could not run: {run.failure}</p>
        </div>
      )}
      {run.summary && run.summary.record_errors.length > 0 && (
        <p className="ag-warning">Not everything could be recorded: {run.summary.record_errors.join("; ")}</p>
      )}
      {run.controlError !== null && (
        <p className="ag-error" role="alert">
          {run.controlError}
        </p>
      )}
    </section>
  );
}
