/**
 * One Executor run at a time: `execute_call` with a fresh run id and an event channel. The
 * channel's `confirmation_needed` becomes `confirmation` (answered with `answer`), `cancel`
 * cancels by run id, and the outcome is kept with the call that produced it.
 */
import { useCallback, useEffect, useRef, useState } from "react";

import {
  errorMessage,
  ipc,
  IpcError,
  newRunId,
  runChannel,
  type CallProgress,
  type ConfirmationRequest,
  type ManualCall,
  type RunEvent,
  type ToolExecutionResult,
} from "../../lib/ipc";

export interface PendingConfirmation {
  confirmationId: string;
  request: ConfirmationRequest;
}

export interface RunOutcome {
  call: ManualCall;
  result: ToolExecutionResult;
}

export interface RunFailure {
  call: ManualCall;
  message: string;
  kind: string;
}

export interface Running {
  runId: string;
  call: ManualCall;
  startedAt: number;
}

export interface RunControl {
  /** The run in flight, once it shows as running ({@link RUNNING_SHOWN_AFTER_MS}). */
  running: Running | null;
  outcome: RunOutcome | null;
  failure: RunFailure | null;
  confirmation: PendingConfirmation | null;
  /** The running call's latest progress report (MCP tools that report progress). */
  progress: CallProgress | null;
  /** A problem answering or cancelling (the run itself goes on). */
  controlError: string | null;
  run: (call: ManualCall) => void;
  cancel: () => void;
  answer: (approve: boolean) => void;
}

/**
 * A run shows as running (Cancel, progress, a disabled Run, a busy history) once it has lasted
 * this long, or at once when it asks for a confirmation or reports progress. Most runs answer
 * sooner, and their result is the feedback: a change on screen at the click makes WebKitGTK
 * render a frame first, which held the answer back by about 4 ms (the app bench's runs part).
 * A second click meanwhile is still ignored: the run is current from the click.
 */
export const RUNNING_SHOWN_AFTER_MS = 100;

/** Runs `task` once the next frame has been painted (a task queued from the frame's callback). */
function afterPaint(task: () => void): void {
  requestAnimationFrame(() => {
    setTimeout(task, 0);
  });
}

export function useRun(onFinished: () => void): RunControl {
  const [running, setRunning] = useState<Running | null>(null);
  const [outcome, setOutcome] = useState<RunOutcome | null>(null);
  const [failure, setFailure] = useState<RunFailure | null>(null);
  const [confirmation, setConfirmation] = useState<PendingConfirmation | null>(null);
  const [controlError, setControlError] = useState<string | null>(null);
  const [progress, setProgress] = useState<CallProgress | null>(null);
  const runningRef = useRef<Running | null>(null);
  const mounted = useRef(true);
  const finished = useRef(onFinished);

  useEffect(() => {
    finished.current = onFinished;
  }, [onFinished]);

  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  const run = useCallback((call: ManualCall) => {
    if (runningRef.current) return;
    const current: Running = { runId: newRunId(), call, startedAt: Date.now() };
    runningRef.current = current;
    setFailure(null);
    setControlError(null);
    setProgress(null);
    const isCurrent = () => mounted.current && runningRef.current === current;
    let revealTimer: number | null = null;
    const reveal = () => {
      if (revealTimer !== null) window.clearTimeout(revealTimer);
      revealTimer = null;
      if (isCurrent()) setRunning(current);
    };
    revealTimer = window.setTimeout(reveal, RUNNING_SHOWN_AFTER_MS);
    const channel = runChannel((event: RunEvent) => {
      if (!isCurrent()) return;
      switch (event.event) {
        case "confirmation_needed":
          reveal();
          setConfirmation({ confirmationId: event.confirmation_id, request: event.request });
          break;
        case "progress":
          reveal();
          setProgress(event.progress);
          break;
        case "result_ready":
          setConfirmation(null);
          setOutcome({ call, result: event.result });
          break;
      }
    });
    ipc.executeCall(call, current.runId, channel).then(
      (result) => {
        // The channel's result_ready usually delivered this result already: keep that object,
        // so the pane does not render the same result twice.
        if (isCurrent()) {
          setOutcome((shown) =>
            shown?.call === call && shown.result.request_id === result.request_id ? shown : { call, result },
          );
        }
      },
      (reason: unknown) => {
        if (!isCurrent()) return;
        setFailure({ call, message: errorMessage(reason), kind: reason instanceof IpcError ? reason.kind : "ipc" });
      },
    ).finally(() => {
      if (revealTimer !== null) window.clearTimeout(revealTimer);
      if (runningRef.current === current) runningRef.current = null;
      if (!mounted.current) return;
      setRunning((r) => (r === current ? null : r));
      setConfirmation(null);
      setProgress(null);
      // The history's refresh (a round trip and a render of its list) waits until the frame
      // that shows the result has been painted, so it never delays that frame.
      afterPaint(() => {
        if (mounted.current) finished.current();
      });
    });
  }, []);

  const cancel = useCallback(() => {
    const current = runningRef.current;
    if (!current) return;
    ipc.cancelRun(current.runId).catch((reason: unknown) => {
      if (mounted.current) setControlError(`could not cancel: ${errorMessage(reason)}`);
    });
  }, []);

  const answer = useCallback(
    (approve: boolean) => {
      if (!confirmation) return;
      setConfirmation(null);
      ipc.answerConfirmation(confirmation.confirmationId, approve).then(
        (waiting) => {
          if (!waiting && mounted.current) setControlError("the run was no longer waiting for this answer");
        },
        (reason: unknown) => {
          if (mounted.current) setControlError(`answer not delivered: ${errorMessage(reason)}`);
        },
      );
    },
    [confirmation],
  );

  return { running, outcome, failure, confirmation, progress, controlError, run, cancel, answer };
}
