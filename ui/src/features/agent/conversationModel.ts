/**
 * A conversation as the Agent pane draws it: one entry per turn with the text as it grew, the
 * reasoning, the native calls with their streamed arguments, what the streaming parser found
 * (prompted tools), the parse, decisions, results, retries and feedback, and how it ended.
 * Built the same way from the live events ({@link applyAgentEvent}) and from a recorded file's
 * lines (`fromRecords` in records.ts), so a recorded conversation reads like a live one.
 */
import type {
  AgentEvent,
  AgentSettings,
  Decision,
  Diagnostic,
  ModelErrorKind,
  ModelInfo,
  ParsedToolRequest,
  ParseReport,
  ReplyEvent,
  StopReason,
  StreamEvent,
  ToolExecutionResult,
  TurnTiming,
  Usage,
} from "../../lib/ipc";

export interface NativeCall {
  index: number;
  id: string;
  name: string;
  /** The arguments' JSON text as it arrived so far. */
  arguments: string;
}

/** A call block the streaming parser saw open (byte offsets into the turn's text). */
export interface StreamBlock {
  block: number;
  start: number;
  /** End of the body received so far. */
  end: number;
  requests: ParsedToolRequest[];
}

export interface Retry {
  attempt: number;
  of: number;
  waitMs: number;
  reason: string;
}

export interface CallOutcome {
  result: ToolExecutionResult;
  suggestion: string | null;
  /** Milliseconds since the conversation started (recorded conversations only). */
  atMs: number | null;
}

export interface DecisionEntry {
  requestId: string;
  toolName: string;
  decision: Decision;
}

export interface Turn {
  turn: number;
  text: string;
  reasoning: string;
  nativeCalls: NativeCall[];
  blocks: StreamBlock[];
  diagnostics: Diagnostic[];
  retries: Retry[];
  finishReason: string | null;
  usage: Usage | null;
  report: ParseReport | null;
  timing: TurnTiming | null;
  decisions: DecisionEntry[];
  results: CallOutcome[];
  feedback: string[];
  failure: { kind: ModelErrorKind; message: string } | null;
  /** When the request was sent and the reply ended, since the conversation started (recorded only). */
  requestAtMs: number | null;
  replyAtMs: number | null;
}

export interface Ended {
  reason: StopReason;
  turns: number;
  toolCalls: number;
  usage: Usage;
}

export interface ConversationStart {
  id: string;
  startedAtMs: number;
  task: string;
  model: ModelInfo;
  /** `null` for a conversation the model proxy recorded: the agent was someone else's. */
  settings: AgentSettings | null;
  tools: string[];
  /** The upstream a proxied conversation went to; `null` for the agent loop's own. */
  proxiedTo: string | null;
}

export interface Conversation {
  start: ConversationStart | null;
  turns: Turn[];
  ended: Ended | null;
}

export const EMPTY_CONVERSATION: Conversation = { start: null, turns: [], ended: null };

export function newTurn(turn: number): Turn {
  return {
    turn,
    text: "",
    reasoning: "",
    nativeCalls: [],
    blocks: [],
    diagnostics: [],
    retries: [],
    finishReason: null,
    usage: null,
    report: null,
    timing: null,
    decisions: [],
    results: [],
    feedback: [],
    failure: null,
    requestAtMs: null,
    replyAtMs: null,
  };
}

/** `state` with turn `turn` (created when missing) replaced by `update(turn)`. */
export function withTurn(state: Conversation, turn: number, update: (current: Turn) => Turn): Conversation {
  const index = state.turns.findIndex((t) => t.turn === turn);
  if (index < 0) return { ...state, turns: [...state.turns, update(newTurn(turn))] };
  const turns = [...state.turns];
  const current = turns[index];
  if (current) turns[index] = update(current);
  return { ...state, turns };
}

export function applyReplyEvent(turn: Turn, event: ReplyEvent): Turn {
  switch (event.type) {
    case "text":
      return { ...turn, text: turn.text + event.text };
    case "reasoning":
      return { ...turn, reasoning: turn.reasoning + event.text };
    case "call_started":
      return {
        ...turn,
        nativeCalls: [...turn.nativeCalls, { index: event.index, id: event.id, name: event.name, arguments: "" }],
      };
    case "call_arguments":
      return {
        ...turn,
        nativeCalls: turn.nativeCalls.map((call) =>
          call.index === event.index ? { ...call, arguments: call.arguments + event.fragment } : call,
        ),
      };
    case "call_signature":
      // Opaque to people (Gemini's thought signature): kept in the record, not shown.
      return turn;
    case "finished":
      return { ...turn, finishReason: event.reason };
    case "usage":
      return { ...turn, usage: event.usage };
  }
}

export function applyStreamEvent(turn: Turn, event: StreamEvent): Turn {
  switch (event.type) {
    case "call_started":
      return { ...turn, blocks: [...turn.blocks, { block: event.block, start: event.start, end: event.start, requests: [] }] };
    case "arguments_delta":
      return {
        ...turn,
        blocks: turn.blocks.map((b) => (b.block === event.block ? { ...b, end: Math.max(b.end, event.span.end) } : b)),
      };
    case "call": {
      const known = turn.blocks.some((b) => b.block === event.block);
      const span = event.request.span;
      const blocks = known
        ? turn.blocks
        : [...turn.blocks, { block: event.block, start: span.start, end: span.end, requests: [] }];
      return {
        ...turn,
        blocks: blocks.map((b) =>
          b.block === event.block ? { ...b, end: Math.max(b.end, span.end), requests: [...b.requests, event.request] } : b,
        ),
      };
    }
    case "diagnostic":
      return { ...turn, diagnostics: [...turn.diagnostics, event.diagnostic] };
    case "content":
    case "reasoning":
      return turn;
  }
}

/** The state after one live event. */
export function applyAgentEvent(state: Conversation, event: AgentEvent): Conversation {
  switch (event.type) {
    case "turn_started":
      return withTurn(state, event.turn, (t) => t);
    case "retry":
      return withTurn(state, event.turn, (t) => ({
        ...t,
        retries: [...t.retries, { attempt: event.attempt, of: event.of, waitMs: event.wait_ms, reason: event.reason }],
      }));
    case "reply":
      return withTurn(state, event.turn, (t) => applyReplyEvent(t, event.event));
    case "parse":
      return withTurn(state, event.turn, (t) => applyStreamEvent(t, event.event));
    case "turn_parsed":
      return withTurn(state, event.turn, (t) => finishReply(t, event.reply, event.timing, event.report));
    case "feedback":
      return withTurn(state, event.turn, (t) => ({ ...t, feedback: [...t.feedback, event.text] }));
    case "call_finished":
      return withTurn(state, event.turn, (t) => ({
        ...t,
        results: [...t.results, { result: event.result, suggestion: event.suggestion, atMs: null }],
      }));
    case "model_failed":
      return withTurn(state, event.turn, (t) => ({ ...t, failure: { kind: event.kind, message: event.message } }));
    case "stopped":
      return {
        ...state,
        ended: { reason: event.reason, turns: event.turns, toolCalls: event.tool_calls, usage: event.usage },
      };
  }
}

/** Records a person's answer to a confirmation in the turn it belongs to. */
export function applyDecision(state: Conversation, turn: number, entry: DecisionEntry): Conversation {
  return withTurn(state, turn, (t) => ({ ...t, decisions: [...t.decisions, entry] }));
}

export function finishReply(
  turn: Turn,
  reply: { text: string; reasoning: string; calls: { id: string; name: string; arguments: string }[]; finish_reason: string | null; usage: Usage | null },
  timing: TurnTiming,
  report: ParseReport | null,
): Turn {
  return {
    ...turn,
    text: reply.text,
    reasoning: reply.reasoning,
    nativeCalls: reply.calls.map((call, index) => ({ index, id: call.id, name: call.name, arguments: call.arguments })),
    finishReason: reply.finish_reason ?? turn.finishReason,
    usage: reply.usage ?? turn.usage,
    timing,
    report: report ?? turn.report,
  };
}
