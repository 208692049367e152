/**
 * The session as it happens: each tool call (pending until answered) with its outcome,
 * latency, validation and progress, elicitations, other progress and cancellations, and the
 * end. Calls are buttons: ↑/↓/Home/End move between them, Enter shows the call's messages.
 * The list follows new entries while it is scrolled to the bottom.
 */
import { useLayoutEffect, useRef, useState } from "react";

import { formatDuration } from "../../lib/format";
import { brief, endText, type CallEntry, type TimelineEntry } from "./sessionModel";
import { useRovingFocus } from "./useRovingFocus";

/** Entries rendered at first; older ones are one click away. */
const SHOWN = 300;

const OUTCOME: Record<CallEntry["outcome"], { label: string; tone: string }> = {
  pending: { label: "waiting", tone: "lv-badge-info" },
  result: { label: "result", tone: "badge-ok" },
  tool_error: { label: "tool error", tone: "lv-badge-error" },
  error: { label: "error", tone: "lv-badge-error" },
};

function CallFlags({ call }: { call: CallEntry }) {
  const invalid = call.invalid;
  return (
    <>
      {invalid !== null && (
        <span className="badge lv-badge-warn" data-testid="call-invalid" title={invalid.message}>
          {invalid.enforced ? "refused: invalid" : invalid.unknownTool ? "unknown tool" : "invalid"}
        </span>
      )}
      {call.progress.length > 0 && <span className="badge badge-muted">progress {call.progress.at(-1)?.progress}</span>}
      {call.cancelled !== null && <span className="badge lv-badge-warn">cancelled</span>}
    </>
  );
}

function CallRow({ call }: { call: CallEntry }) {
  const outcome = OUTCOME[call.outcome];
  const args = brief(call.args);
  return (
    <>
      <span className="lv-call-head">
        <span className="lv-time muted">+{formatDuration(call.ms)}</span>
        <code className="lv-tool">{call.tool || "(no name)"}</code>
        <span className={`badge ${outcome.tone}`} data-testid="call-outcome">
          {outcome.label}
        </span>
        {call.latencyMs !== null && <span className="muted lv-small">{formatDuration(call.latencyMs)}</span>}
        <CallFlags call={call} />
      </span>
      {args !== "" && <code className="lv-args muted">{args}</code>}
      {call.invalid !== null && call.invalid.issues.length > 0 && (
        <span className="lv-issues lv-warn-text">
          {call.invalid.issues.map((issue) => `${issue.path || "/"}: ${issue.message}`).join(" · ")}
        </span>
      )}
      {call.error !== null && <span className="lv-error-text lv-small">{call.error}</span>}
    </>
  );
}

function OtherRow({ entry }: { entry: Exclude<TimelineEntry, CallEntry> }) {
  const time = <span className="lv-time muted">+{formatDuration(entry.ms)}</span>;
  switch (entry.kind) {
    case "elicitation":
      return (
        <>
          {time} <span className="badge lv-badge-info">elicitation</span> {entry.message ?? ""}
          <span className="muted lv-small"> · {entry.action === null ? (entry.error ?? "waiting for the agent") : `answered: ${entry.action}`}</span>
        </>
      );
    case "progress":
    case "cancelled":
      return (
        <>
          {time} <span className="muted">{entry.text}</span>
        </>
      );
    case "end":
      return (
        <>
          {time} <span className="badge badge-muted">end</span> {endText(entry.end)}
          {entry.end.pending_answered > 0 && ` ${String(entry.end.pending_answered)} unanswered requests got an error from the proxy.`}
          {entry.end.stderr_tail && entry.end.stderr_tail.length > 0 && <pre className="lv-code lv-stderr">{entry.end.stderr_tail.join("\n")}</pre>}
        </>
      );
    case "unknown":
      return (
        <>
          {time} <span className="muted">a “{entry.type}” record (from a newer proxy)</span>
        </>
      );
  }
}

interface Props {
  entries: TimelineEntry[];
  selected: string | null;
  onSelect: (key: string) => void;
}

export function Timeline({ entries, selected, onSelect }: Props) {
  const [showAll, setShowAll] = useState(false);
  const shown = showAll ? entries : entries.slice(-SHOWN);
  const hidden = entries.length - shown.length;
  const calls = shown.filter((e): e is CallEntry => e.kind === "call");
  const roving = useRovingFocus<HTMLOListElement>(
    calls.length,
    calls.findIndex((c) => c.key === selected),
    (index) => {
      const call = calls[index];
      if (call) onSelect(call.key);
    },
  );
  const scroller = useRef<HTMLDivElement>(null);
  const following = useRef(true);

  useLayoutEffect(() => {
    const element = scroller.current;
    if (element && following.current) element.scrollTop = element.scrollHeight;
  }, [entries.length]);

  if (entries.length === 0) return <p className="muted lv-small">No calls yet.</p>;
  const callIndex = new Map(calls.map((call, index) => [call.key, index]));
  return (
    <div
      className="lv-timeline-scroll"
      ref={scroller}
      onScroll={(event) => {
        const element = event.currentTarget;
        following.current = element.scrollHeight - element.scrollTop - element.clientHeight < 24;
      }}
    >
      {hidden > 0 && (
        <button
          type="button"
          className="button button-small"
          onClick={() => {
            setShowAll(true);
          }}
        >
          Show {hidden} earlier
        </button>
      )}
      <ol className="lv-timeline" onKeyDown={roving.onKeyDown} aria-label="Timeline" data-testid="timeline">
        {shown.map((entry) =>
          entry.kind === "call" ? (
            <li key={entry.key}>
              <button
                type="button"
                className={`lv-call lv-call-${entry.outcome}${entry.invalid !== null ? " is-invalid" : ""}${entry.key === selected ? " is-open" : ""}`}
                aria-current={entry.key === selected ? "true" : undefined}
                onClick={() => {
                  onSelect(entry.key);
                }}
                data-testid="call-row"
                {...roving.itemProps(callIndex.get(entry.key) ?? 0)}
              >
                <CallRow call={entry} />
              </button>
            </li>
          ) : (
            <li key={entry.key} className={`lv-event lv-event-${entry.kind}`} data-testid={`event-${entry.kind}`}>
              <OtherRow entry={entry} />
            </li>
          ),
        )}
      </ol>
    </div>
  );
}
