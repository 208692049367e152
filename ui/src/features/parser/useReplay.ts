/**
 * Playback state of "replay as stream": fetches the engine's timeline once, then moves the
 * position forward on animation frames at the chosen speed. Pause, step and scrub only change
 * the position.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from "react";

import { ipc, type StreamReplay } from "../../lib/ipc";
import { fedAfter, frameAt, indexReplay, type ReplayIndex } from "./replayModel";
import { asShownError, type ShownError } from "./useParser";

/** Deltas per second; `Infinity` jumps to the end. */
export const SPEEDS = [
  { label: "30 deltas/s", value: 30 },
  { label: "240 deltas/s", value: 240 },
  { label: "2,000 deltas/s", value: 2_000 },
  { label: "20,000 deltas/s", value: 20_000 },
] as const;

export function useReplay() {
  const [index, setIndex] = useState<ReplayIndex | null>(null);
  const [source, setSource] = useState<{ text: string; format: string | null } | null>(null);
  const [deltas, setDeltas] = useState(0);
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState<number>(SPEEDS[1].value);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<ShownError | null>(null);
  const latest = useRef(0);
  /** The position the animation advances (state follows it; the ref is read between frames). */
  const position = useRef(0);

  const moveTo = useCallback((to: number) => {
    position.current = to;
    setDeltas(to);
  }, []);

  const load = useCallback(async (text: string, format: string | null, deltaBytes: number) => {
    const ticket = ++latest.current;
    setLoading(true);
    setError(null);
    try {
      const replay: StreamReplay = await ipc.replayStream(text, format, deltaBytes);
      if (ticket !== latest.current) return;
      setIndex(indexReplay(replay, text));
      setSource({ text, format });
      moveTo(0);
      setPlaying(true);
    } catch (reason: unknown) {
      if (ticket === latest.current) setError(asShownError(reason));
    } finally {
      if (ticket === latest.current) setLoading(false);
    }
  }, [moveTo]);

  const total = index?.replay.deltas ?? 0;

  // Advance on animation frames while playing: elapsed time × speed, never past the end.
  useEffect(() => {
    if (!playing || !index) return;
    let frame = 0;
    // The clock starts at the first frame's own timestamp: frame timestamps and
    // `performance.now()` need not share an origin (in jsdom they differ by seconds), and a
    // negative elapsed time would move the position backwards.
    let last: number | null = null;
    let carry = 0;
    const tick = (now: number) => {
      carry += (Math.max(0, now - (last ?? now)) / 1000) * speed;
      last = now;
      const step = Math.floor(carry);
      carry -= step;
      const next = Math.min(total, position.current + step);
      if (next !== position.current) moveTo(next);
      if (next >= total) setPlaying(false);
      else frame = requestAnimationFrame(tick);
    };
    frame = requestAnimationFrame(tick);
    return () => {
      cancelAnimationFrame(frame);
    };
  }, [playing, index, speed, total, moveTo]);

  const frame = useMemo(() => {
    if (!index) return null;
    return frameAt(index, fedAfter(index.replay, deltas));
  }, [index, deltas]);

  const seek = useCallback(
    (to: number) => {
      setPlaying(false);
      moveTo(Math.max(0, Math.min(total, to)));
    },
    [total, moveTo],
  );

  const toggle = useCallback(() => {
    if (!index) return;
    if (position.current >= total) moveTo(0);
    setPlaying((p) => !p);
  }, [index, total, moveTo]);

  return { index, source, frame, deltas, total, playing, speed, setSpeed, loading, error, load, seek, toggle };
}
