/**
 * A recorded conversation opened: its task, model and settings, the timeline, the turns rebuilt
 * from the records (each with cURL and reply export), how it ended, and "Replay" against
 * today's parsers.
 */
import { formatTimestamp } from "../../lib/format";
import { wireLabel } from "./describe";
import { EndedNote } from "./EndedNote";
import { ReplayView } from "./ReplayView";
import { TimelineView } from "./TimelineView";
import { TurnExportControls } from "./TurnExportControls";
import { TurnView } from "./TurnView";
import type { ConversationStart } from "./conversationModel";
import type { ConversationsView, Opened } from "./useConversations";

export function RecordedView({ opened, view }: { opened: Opened; view: ConversationsView }) {
  const { conversation } = opened;
  const start = conversation.start;
  const prompted = start?.settings?.tools?.kind === "prompted";
  return (
    <section className="ag-section ag-recorded" aria-labelledby="agent-recorded-title" data-testid="agent-recorded">
      <div className="ag-section-head">
        <h3 id="agent-recorded-title">{start ? start.task : opened.id}</h3>
        <button
          type="button"
          className="button button-small"
          onClick={view.runReplay}
          disabled={view.replay?.state === "loading"}
          data-testid="agent-replay-run"
        >
          Replay with today's parser
        </button>
        <button type="button" className="button button-small" onClick={view.close}>
          Close
        </button>
      </div>
      {start && (
        <p className="muted ag-small">
          {formatTimestamp(start.startedAtMs)} · {wireLabel(start.model.wire)} <code>{start.model.model}</code> ·{" "}
          {toolsLabel(start)} ·{" "}
          {start.tools.length} {start.tools.length === 1 ? "tool" : "tools"} offered
        </p>
      )}
      {opened.skipped.length > 0 && (
        <p className="ag-warning">
          {opened.skipped.length} unreadable {opened.skipped.length === 1 ? "line" : "lines"} of the record skipped.
        </p>
      )}
      {view.replay && <ReplayView replay={view.replay} />}
      <TimelineView conversation={conversation} />
      {conversation.turns.map((turn) => (
        <TurnView
          key={turn.turn}
          turn={turn}
          // A proxied turn's calls are in its text when the model sent no native ones.
          prompted={start?.proxiedTo != null ? turn.nativeCalls.length === 0 : prompted}
          live={false}
          actions={turn.timing ? <TurnExportControls key={`${opened.id}-${String(turn.turn)}`} conversationId={opened.id} turn={turn.turn} /> : null}
        />
      ))}
      {conversation.ended ? <EndedNote ended={conversation.ended} /> : <p className="muted">The record does not say how it ended.</p>}
    </section>
  );
}

function toolsLabel(start: ConversationStart): string {
  if (start.proxiedTo !== null) return `recorded by the model proxy on its way to ${start.proxiedTo}`;
  const tools = start.settings?.tools;
  return tools?.kind === "prompted" ? `prompted (${tools.format})` : "native tools";
}
