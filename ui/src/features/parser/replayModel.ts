/**
 * "Replay as stream": what the Parser pane shows at each moment of a replayed stream. The engine
 * streams the reply once (`replay_stream`) and reports when each call started and completed, in
 * bytes fed; this module turns that timeline plus a playback position into what is visible, so
 * playback, pausing and scrubbing are plain state changes that never call the backend again.
 */
import type { ParsedToolRequest, ReplayedDiagnostic, StreamReplay } from "../../lib/ipc";
import { mapByteOffsets, type PositionMap } from "./textIndex";

/** Most calls listed at once: a 1 MB reply holds thousands; the newest are what streaming shows. */
export const MAX_LISTED_CALLS = 50;
/** Characters of a call's arguments shown while they stream in. */
export const ARGUMENT_TAIL = 400;
/** Characters of the reply shown under the progress bar (its newest part). */
export const TEXT_TAIL = 1_200;

export interface ReplayCallView {
  block: number;
  /** "streaming": started, arguments arriving; "complete": decoded; "cut": the reply ended first. */
  state: "streaming" | "complete" | "cut";
  /** Arguments text so far (streaming) — the newest part. */
  partial: string;
  requests: ParsedToolRequest[];
}

export interface ReplayFrame {
  fed: number;
  total: number;
  percent: number;
  /** Deltas fed so far. */
  deltas: number;
  textTail: string;
  calls: ReplayCallView[];
  /** Calls started so far (may exceed `calls.length`). */
  started: number;
  completed: number;
  diagnostics: ReplayedDiagnostic[];
  done: boolean;
}

/** Byte offsets the frames need, mapped to string indices once per replay. */
export interface ReplayIndex {
  replay: StreamReplay;
  text: string;
  map: PositionMap;
  /** Remembers the last position, so frames during playback cost only the new bytes. */
  cursor: ByteCursor;
}

export function indexReplay(replay: StreamReplay, text: string): ReplayIndex {
  const offsets: number[] = [];
  for (const call of replay.calls) offsets.push(call.start, call.body_start);
  return { replay, text, map: mapByteOffsets(text, offsets), cursor: new ByteCursor(text) };
}

/**
 * String index of a byte offset, walking forward from a remembered position (playback moves
 * forward, so each frame costs only the bytes fed since the last one); moving back restarts.
 */
export class ByteCursor {
  private byte = 0;
  private index = 0;
  private readonly text: string;

  constructor(text: string) {
    this.text = text;
  }

  at(target: number): number {
    if (target < this.byte) {
      this.byte = 0;
      this.index = 0;
    }
    const text = this.text;
    while (this.byte < target && this.index < text.length) {
      const unit = text.charCodeAt(this.index);
      if (unit < 0x80) this.byte += 1;
      else if (unit < 0x800) this.byte += 2;
      else if (unit >= 0xd800 && unit <= 0xdbff && this.index + 1 < text.length) {
        const next = text.charCodeAt(this.index + 1);
        if (next >= 0xdc00 && next <= 0xdfff) {
          this.byte += 4;
          this.index += 2;
          continue;
        }
        this.byte += 3;
      } else this.byte += 3;
      this.index += 1;
    }
    return this.index;
  }
}

/** Bytes fed after `deltas` deltas (the last delta may be shorter, and ends on a character). */
export function fedAfter(replay: StreamReplay, deltas: number): number {
  return Math.min(replay.total_bytes, Math.max(0, deltas) * replay.delta_bytes);
}

function tail(text: string, max: number): string {
  return text.length > max ? `…${text.slice(text.length - max)}` : text;
}

/** Everything visible once `fed` bytes of the reply have been streamed. */
export function frameAt(index: ReplayIndex, fed: number): ReplayFrame {
  const { replay, text, map, cursor } = index;
  const fedIndex = cursor.at(fed);
  const done = fed >= replay.total_bytes;
  const started = replay.calls.filter((call) => call.started_at <= fed);
  const completed = started.filter((call) => call.completed_at !== null && call.completed_at <= fed).length;
  const calls = started.slice(-MAX_LISTED_CALLS).map((call): ReplayCallView => {
    const complete = call.completed_at !== null && call.completed_at <= fed;
    if (complete) return { block: call.block, state: "complete", partial: "", requests: call.requests };
    const bodyIndex = Math.min(map.at(call.body_start).index, fedIndex);
    return {
      block: call.block,
      state: done ? "cut" : "streaming",
      partial: tail(text.slice(bodyIndex, fedIndex), ARGUMENT_TAIL),
      requests: [],
    };
  });
  return {
    fed,
    total: replay.total_bytes,
    percent: replay.total_bytes === 0 ? 100 : Math.round((fed / replay.total_bytes) * 1000) / 10,
    deltas: Math.ceil(fed / Math.max(1, replay.delta_bytes)),
    textTail: tail(text.slice(0, fedIndex), TEXT_TAIL),
    calls,
    started: started.length,
    completed,
    diagnostics: replay.diagnostics.filter((d) => d.at <= fed),
    done,
  };
}
