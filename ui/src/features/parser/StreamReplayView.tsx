/**
 * "Replay as stream": the reply fed to the parser in small deltas, as a model would stream it,
 * with each call appearing when its block closes and its arguments visible while they arrive.
 * The engine streams the reply once; playback, pause, step and the scrubber only move through
 * that recorded timeline.
 */
import { memo, useState } from "react";

import { formatCount, formatDuration } from "../../lib/format";
import { ErrorNotice } from "./ParseSummary";
import type { ReplyText } from "./replyText";
import type { ReplayCallView, ReplayFrame } from "./replayModel";
import { SPEEDS, useReplay } from "./useReplay";

const DELTA_SIZES = [1, 4, 16, 64] as const;

// The editor's text comes unjoined (see ReplyText): it is made a string only to stream it, or
// to compare it with a loaded replay.
export function StreamReplayView({ text, format }: { text: ReplyText; format: string | null }) {
  const replay = useReplay();
  const [deltaBytes, setDeltaBytes] = useState<number>(4);
  const { frame, index } = replay;
  const stale = replay.source !== null && (!text.equals(replay.source.text) || replay.source.format !== format);

  return (
    <details className="parser-replay" data-testid="replay">
      <summary>Replay as stream</summary>
      <div className="parser-replay-controls">
        <label>
          Delta{" "}
          <select
            value={deltaBytes}
            onChange={(e) => {
              setDeltaBytes(Number(e.target.value));
            }}
            data-testid="replay-delta"
          >
            {DELTA_SIZES.map((size) => (
              <option key={size} value={size}>
                {size} {size === 1 ? "byte" : "bytes"}
              </option>
            ))}
          </select>
        </label>
        <label>
          Speed{" "}
          <select
            value={replay.speed}
            onChange={(e) => {
              replay.setSpeed(Number(e.target.value));
            }}
            data-testid="replay-speed"
          >
            {SPEEDS.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          className="button parser-button-primary"
          data-testid="replay-start"
          disabled={text.length === 0 || replay.loading}
          onClick={() => void replay.load(text.toString(), format, deltaBytes)}
        >
          {replay.loading ? "Streaming…" : index ? "Replay again" : "Replay"}
        </button>
        <button type="button" className="button" data-testid="replay-toggle" disabled={!index} onClick={replay.toggle}>
          {replay.playing ? "Pause" : "Play"}
        </button>
        <button
          type="button"
          className="button"
          data-testid="replay-step"
          disabled={!index || replay.deltas >= replay.total}
          onClick={() => {
            replay.seek(replay.deltas + 1);
          }}
        >
          Step
        </button>
      </div>
      {replay.error ? <ErrorNotice title="Could not stream the reply" error={replay.error} /> : null}
      {stale ? <p className="muted">The reply or format changed since this replay: replay again to see it.</p> : null}
      {index && frame ? (
        <>
          <input
            type="range"
            className="parser-replay-scrub"
            aria-label="Position in the stream (deltas)"
            min={0}
            max={replay.total}
            value={replay.deltas}
            data-testid="replay-scrub"
            onChange={(e) => {
              replay.seek(Number(e.target.value));
            }}
          />
          <ReplayStatus frame={frame} format={index.replay.format} deltaBytes={index.replay.delta_bytes} elapsedMs={index.replay.elapsed_ms} />
          {!index.replay.incremental ? (
            <p className="muted">This format is parsed when the reply ends: its calls appear at the end.</p>
          ) : null}
          <pre className="parser-replay-text" data-testid="replay-text">
            {frame.textTail}
          </pre>
          <ReplayCalls frame={frame} />
        </>
      ) : null}
    </details>
  );
}

function ReplayStatus({
  frame,
  format,
  deltaBytes,
  elapsedMs,
}: {
  frame: ReplayFrame;
  format: string;
  deltaBytes: number;
  elapsedMs: number | null;
}) {
  return (
    <p className="parser-summary-line" role="status" data-testid="replay-progress" data-done={String(frame.done)}>
      <code>{format}</code> in {deltaBytes}-byte deltas · {formatCount(frame.fed)} of{" "}
      {formatCount(frame.total)} bytes ({frame.percent}%, {formatCount(frame.deltas)} deltas) ·{" "}
      {formatCount(frame.started)} started, {formatCount(frame.completed)} complete
      {frame.diagnostics.length > 0 ? ` · ${formatCount(frame.diagnostics.length)} diagnostics` : ""} · the
      engine streamed the whole reply in {formatDuration(elapsedMs)}
    </p>
  );
}

const ReplayCalls = memo(function ReplayCalls({ frame }: { frame: ReplayFrame }) {
  if (frame.calls.length === 0) return <p className="muted">No call has started yet.</p>;
  const hidden = frame.started - frame.calls.length;
  return (
    <>
      {hidden > 0 ? <p className="muted">{formatCount(hidden)} earlier calls not listed.</p> : null}
      <ol className="parser-replay-calls">
        {frame.calls.map((call) => (
          <ReplayCall key={call.block} call={call} />
        ))}
      </ol>
    </>
  );
});

const STATE_LABEL = { streaming: "streaming…", complete: "complete", cut: "cut off" } as const;

function ReplayCall({ call }: { call: ReplayCallView }) {
  return (
    <li className="parser-replay-call" data-testid="replay-call" data-state={call.state}>
      <span className={`badge parser-replay-${call.state}`}>{STATE_LABEL[call.state]}</span> block #{call.block + 1}
      {call.state === "complete" ? (
        call.requests.length === 0 ? (
          <span className="muted"> — no valid call (see diagnostics)</span>
        ) : (
          call.requests.map((request) => (
            <div key={request.request_id} className="parser-replay-request">
              <strong data-testid="replay-call-name">{request.tool_name}</strong>{" "}
              <code>{JSON.stringify(request.args)}</code>
            </div>
          ))
        )
      ) : (
        <pre className="parser-replay-partial">{call.partial}</pre>
      )}
    </li>
  );
}
