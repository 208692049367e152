/**
 * The full cycle on a reply (`ipc.runReply`): results stream in over the run's channel as they
 * end, confirmation requests queue up until the user answers them, `cancel` stops the run by id,
 * and the outcome (with the formatted results block) arrives when the run ends.
 */
import { useCallback, useRef, useState } from "react";

import {
  ipc,
  newRunId,
  runChannel,
  type ConfirmationRequest,
  type CycleOutcome,
  type RequestToolsChoice,
  type RunEvent,
  type ToolExecutionResult,
} from "../../lib/ipc";
import { asShownError, type ShownError } from "./useParser";

export interface PendingConfirmation {
  confirmationId: string;
  request: ConfirmationRequest;
}

export interface RunState {
  status: "idle" | "running" | "done" | "failed";
  runId: string | null;
  /** The text and format that were run (the results' indices refer to them). */
  text: string;
  format: string | null;
  /** The request's tools the run was checked and routed against (`null`: the registry). */
  tools: RequestToolsChoice | null;
  /** Results streamed so far, by request index in the run. */
  streamed: ReadonlyMap<number, ToolExecutionResult>;
  outcome: CycleOutcome | null;
  error: ShownError | null;
  cancelling: boolean;
  /** Confirmations waiting for an answer, oldest first. */
  confirmations: readonly PendingConfirmation[];
}

const IDLE: RunState = {
  status: "idle",
  runId: null,
  text: "",
  format: null,
  tools: null,
  streamed: new Map(),
  outcome: null,
  error: null,
  cancelling: false,
  confirmations: [],
};

export function useRun() {
  const [state, setState] = useState<RunState>(IDLE);
  const running = useRef<string | null>(null);

  /** Applies `change` only while `runId` is still the run shown. */
  const update = useCallback((runId: string, change: (state: RunState) => RunState) => {
    setState((previous) => (previous.runId === runId ? change(previous) : previous));
  }, []);

  const onEvent = useCallback(
    (runId: string, event: RunEvent) => {
      switch (event.event) {
        case "result_ready":
          update(runId, (previous) => {
            const streamed = new Map(previous.streamed);
            streamed.set(event.index, event.result);
            return { ...previous, streamed };
          });
          break;
        case "confirmation_needed":
          update(runId, (previous) => ({
            ...previous,
            confirmations: [
              ...previous.confirmations,
              { confirmationId: event.confirmation_id, request: event.request },
            ],
          }));
          break;
      }
    },
    [update],
  );

  /** Starts a run unless one is going; resolves when it ends. */
  const start = useCallback(
    async (text: string, format: string | null, tools: RequestToolsChoice | null = null) => {
      if (running.current !== null) return;
      const runId = newRunId();
      running.current = runId;
      setState({ ...IDLE, status: "running", runId, text, format, tools });
      const channel = runChannel((event) => {
        onEvent(runId, event);
      });
      try {
        const outcome = await ipc.runReply(text, format, tools, runId, channel);
        update(runId, (previous) => ({
          ...previous,
          status: "done",
          outcome,
          cancelling: false,
          confirmations: [],
        }));
      } catch (reason: unknown) {
        update(runId, (previous) => ({
          ...previous,
          status: "failed",
          error: asShownError(reason),
          cancelling: false,
          confirmations: [],
        }));
      } finally {
        if (running.current === runId) running.current = null;
      }
    },
    [onEvent, update],
  );

  const cancel = useCallback(() => {
    const runId = running.current;
    if (runId === null) return;
    update(runId, (previous) => ({ ...previous, cancelling: true }));
    ipc.cancelRun(runId).catch((reason: unknown) => {
      update(runId, (previous) => ({ ...previous, cancelling: false, error: asShownError(reason) }));
    });
  }, [update]);

  /** Answers the confirmation `confirmationId` and takes it off the queue. */
  const answer = useCallback(
    (confirmationId: string, approve: boolean) => {
      const runId = running.current;
      if (runId === null) return;
      update(runId, (previous) => ({
        ...previous,
        confirmations: previous.confirmations.filter((c) => c.confirmationId !== confirmationId),
      }));
      ipc.answerConfirmation(confirmationId, approve).catch((reason: unknown) => {
        update(runId, (previous) => ({ ...previous, error: asShownError(reason) }));
      });
    },
    [update],
  );

  return { run: state, start, cancel, answer };
}
