/**
 * A recorded conversation over time: one row per turn, with bars for the wait for the first
 * token, the streaming of the reply, and each call's duration. Plain SVG; geometry only in
 * attributes, colours from agent.css.
 */
import { formatDuration } from "../../lib/format";
import type { Conversation } from "./conversationModel";
import { buildTimeline, type Bar } from "./timelineModel";

const WIDTH = 1000;

export function TimelineView({ conversation }: { conversation: Conversation }) {
  const timeline = buildTimeline(conversation);
  if (timeline.rows.every((row) => row.bars.length === 0)) return null;
  const x = (ms: number) => (ms / timeline.end) * WIDTH;
  return (
    <figure className="ag-timeline" data-testid="agent-timeline">
      <figcaption className="muted ag-small">
        Timeline ({formatDuration(timeline.end)}): <span className="ag-key ag-key-wait" /> waiting for the first token{" "}
        <span className="ag-key ag-key-stream" /> streaming <span className="ag-key ag-key-call" /> tool call
      </figcaption>
      {timeline.rows.map((row) => (
        <div key={row.turn} className="ag-timeline-row" data-testid="agent-timeline-row">
          <span className="ag-small">Turn {row.turn}</span>
          <svg
            className="ag-timeline-bars"
            viewBox={`0 0 ${String(WIDTH)} 20`}
            preserveAspectRatio="none"
            role="img"
            aria-label={describeRow(row.turn, row.bars)}
          >
            {row.bars.map((bar, index) => (
              <rect
                key={index}
                className={`ag-bar ag-bar-${bar.kind}`}
                x={x(bar.from)}
                width={Math.max(2, x(bar.to) - x(bar.from))}
                y={bar.kind === "call" ? 11 : 2}
                height={bar.kind === "call" ? 8 : 8}
              >
                <title>{`${bar.label}: ${formatDuration(bar.to - bar.from)}`}</title>
              </rect>
            ))}
          </svg>
        </div>
      ))}
    </figure>
  );
}

function describeRow(turn: number, bars: readonly Bar[]): string {
  const parts = bars.map((bar) => `${bar.label} ${formatDuration(bar.to - bar.from)}`);
  return `Turn ${String(turn)}: ${parts.length > 0 ? parts.join(", ") : "no timing recorded"}`;
}
