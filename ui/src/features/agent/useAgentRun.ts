/**
 * One live conversation at a time: `agent_start` with a fresh run id and a channel whose events
 * build the {@link Conversation}; `confirmation_needed` becomes `confirmation`, answered with a
 * {@link Decision} (`agent_confirm`); `stop` cancels by run id.
 */
import { useCallback, useEffect, useReducer, useRef, useState } from "react";

import {
  agentChannel,
  errorMessage,
  ipc,
  newRunId,
  type AgentRunEvent,
  type AgentRunSummary,
  type AgentSettings,
  type ConfirmationRequest,
  type Decision,
} from "../../lib/ipc";
import {
  applyAgentEvent,
  applyDecision,
  EMPTY_CONVERSATION,
  type Conversation,
  type DecisionEntry,
} from "./conversationModel";

export interface PendingConfirmation {
  confirmationId: string;
  turn: number;
  request: ConfirmationRequest;
}

export interface StartRequest {
  profile: string;
  task: string;
  settings: AgentSettings;
  tools: string[] | null;
}

type Action =
  | { type: "reset" }
  | { type: "event"; event: AgentRunEvent }
  | { type: "decided"; turn: number; entry: DecisionEntry };

interface LiveState {
  conversationId: string | null;
  conversation: Conversation;
}

const INITIAL: LiveState = { conversationId: null, conversation: EMPTY_CONVERSATION };

function reducer(state: LiveState, action: Action): LiveState {
  switch (action.type) {
    case "reset":
      return INITIAL;
    case "decided":
      return { ...state, conversation: applyDecision(state.conversation, action.turn, action.entry) };
    case "event": {
      const { event } = action;
      if (event.kind === "started") return { ...state, conversationId: event.conversation_id };
      if (event.kind === "agent") return { ...state, conversation: applyAgentEvent(state.conversation, event.event) };
      return state;
    }
  }
}

export interface AgentRun {
  running: boolean;
  task: string | null;
  conversationId: string | null;
  conversation: Conversation;
  summary: AgentRunSummary | null;
  failure: string | null;
  confirmation: PendingConfirmation | null;
  controlError: string | null;
  start: (request: StartRequest) => void;
  stop: () => void;
  answer: (decision: Decision) => void;
}

export function useAgentRun(onFinished: () => void): AgentRun {
  const [state, dispatch] = useReducer(reducer, INITIAL);
  const [runId, setRunId] = useState<string | null>(null);
  const [task, setTask] = useState<string | null>(null);
  const [summary, setSummary] = useState<AgentRunSummary | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [confirmation, setConfirmation] = useState<PendingConfirmation | null>(null);
  const [controlError, setControlError] = useState<string | null>(null);
  const current = useRef<string | null>(null);
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

  const start = useCallback((request: StartRequest) => {
    if (current.current !== null) return;
    const id = newRunId();
    current.current = id;
    const isCurrent = () => mounted.current && current.current === id;
    dispatch({ type: "reset" });
    setRunId(id);
    setTask(request.task);
    setSummary(null);
    setFailure(null);
    setConfirmation(null);
    setControlError(null);
    const channel = agentChannel((event) => {
      if (!isCurrent()) return;
      if (event.kind === "confirmation_needed") {
        setConfirmation({ confirmationId: event.confirmation_id, turn: event.turn, request: event.request });
        return;
      }
      dispatch({ type: "event", event });
    });
    ipc
      .agentStart(request.profile, request.task, request.settings, request.tools, id, channel)
      .then(
        (outcome) => {
          if (isCurrent()) setSummary(outcome);
        },
        (reason: unknown) => {
          if (isCurrent()) setFailure(errorMessage(reason));
        },
      )
      .finally(() => {
        if (current.current === id) current.current = null;
        if (!mounted.current) return;
        setRunId((r) => (r === id ? null : r));
        setConfirmation(null);
        finished.current();
      });
  }, []);

  const stop = useCallback(() => {
    const id = current.current;
    if (id === null) return;
    ipc.cancelRun(id).catch((reason: unknown) => {
      if (mounted.current) setControlError(`could not stop: ${errorMessage(reason)}`);
    });
  }, []);

  const answer = useCallback(
    (decision: Decision) => {
      if (!confirmation) return;
      setConfirmation(null);
      dispatch({
        type: "decided",
        turn: confirmation.turn,
        entry: { requestId: confirmation.request.request_id, toolName: confirmation.request.routing_name, decision },
      });
      ipc.agentConfirm(confirmation.confirmationId, decision).then(
        (waiting) => {
          if (!waiting && mounted.current) setControlError("the conversation was no longer waiting for this answer");
        },
        (reason: unknown) => {
          if (mounted.current) setControlError(`answer not delivered: ${errorMessage(reason)}`);
        },
      );
    },
    [confirmation],
  );

  return {
    running: runId !== null,
    task,
    conversationId: state.conversationId,
    conversation: state.conversation,
    summary,
    failure,
    confirmation,
    controlError,
    start,
    stop,
    answer,
  };
}
