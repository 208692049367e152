/**
 * How far the running call has got, as its tool reports it (MCP progress notifications, or the
 * pieces of a streamable HTTP tool's body): a bar with progress/total when the total is known,
 * else the count; the tool's message beside.
 */
import { formatCount } from "../../lib/format";
import type { CallProgress, TaskStatus } from "../../lib/ipc";

/** A call its MCP server runs as a task (MCP tasks): where the task stands. */
const TASK_STATES: Record<TaskStatus, string> = {
  working: "running",
  input_required: "waiting for input",
  completed: "completed",
  failed: "failed",
  cancelled: "cancelled",
};

/** Most characters of a message shown; streamed text is cut at the front, where it is oldest. */
const MESSAGE_CHARS = 160;

function number(value: number): string {
  return Number.isInteger(value) ? formatCount(value) : value.toFixed(2);
}

/**
 * What a status line like "step 3 of 10" shows as is; a streamed piece of text (several lines,
 * SSE `data:` events, a long paragraph) shows its newest non-empty line, cut to its end.
 */
function shownMessage(message: string): string {
  const lines = message.split(/\r?\n/).filter((line) => line.trim() !== "");
  const newest = (lines[lines.length - 1] ?? "").trim();
  // By code point, so a cut never splits an emoji or other astral character.
  const chars = Array.from(newest);
  return chars.length > MESSAGE_CHARS ? `…${chars.slice(-(MESSAGE_CHARS - 1)).join("")}` : newest;
}

export function RunProgress({ progress }: { progress: CallProgress | null }) {
  if (progress === null) return null;
  const { total, message, task } = progress;
  const done = progress.progress ?? 0;
  const known = total !== null && total > 0;
  // A task that reports only its status has no count worth showing.
  const counted = task === null || done > 0;
  const shown = message === null ? "" : shownMessage(message);
  return (
    <div className="ex-progress" data-testid="executor-progress" role="status" aria-live="polite">
      {task !== null && (
        <span className="ex-progress-task" data-testid="executor-progress-task" title={`MCP task ${task.task_id}`}>
          Task {TASK_STATES[task.status]}
        </span>
      )}
      {known ? (
        <>
          <progress className="ex-progress-bar" value={Math.min(done, total)} max={total} aria-label="Progress" />
          <span className="ex-progress-count" data-testid="executor-progress-count">
            {number(done)} / {number(total)}
          </span>
        </>
      ) : (
        counted && (
          <span className="ex-progress-count" data-testid="executor-progress-count">
            progress {number(done)}
          </span>
        )
      )}
      {shown !== "" && (
        <span className="ex-progress-message muted" data-testid="executor-progress-message" title={message ?? undefined}>
          {shown}
        </span>
      )}
    </div>
  );
}
