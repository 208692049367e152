/**
 * Render timing for the app bench: with a profiling build (`PROFILE_RENDERS=1 npm run build`,
 * which swaps in React's profiling renderer) every commit of a wrapped subtree is recorded in
 * `window.__renderProfile`; in a normal build React never calls `onRender`, so this costs nothing.
 */
import { Profiler, type ProfilerOnRenderCallback, type ReactNode } from "react";

export interface RenderSample {
  id: string;
  phase: string;
  actualMs: number;
  commitAt: number;
}

declare global {
  interface Window {
    __renderProfile?: RenderSample[];
  }
}

const record: ProfilerOnRenderCallback = (id, phase, actualDuration, _base, _start, commitTime) => {
  (window.__renderProfile ??= []).push({ id, phase, actualMs: actualDuration, commitAt: commitTime });
};

export function Timed({ id, children }: { id: string; children: ReactNode }) {
  return (
    <Profiler id={id} onRender={record}>
      {children}
    </Profiler>
  );
}
