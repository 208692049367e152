/** A recorded conversation's lines (`conversation_load`) folded into the live view's {@link Conversation}. */
import type { TimedRecord } from "../../lib/ipc";
import { applyAgentEvent, applyDecision, EMPTY_CONVERSATION, finishReply, withTurn, type Conversation } from "./conversationModel";

export function fromRecords(records: readonly TimedRecord[]): Conversation {
  let state: Conversation = EMPTY_CONVERSATION;
  for (const record of records) {
    const at = record.t_ms;
    switch (record.type) {
      case "started":
        state = {
          ...state,
          start: {
            id: record.id,
            startedAtMs: record.started_at_ms,
            task: record.task,
            model: record.model,
            settings: record.settings,
            tools: record.tools,
            proxiedTo: null,
          },
        };
        break;
      case "proxied":
        state = {
          ...state,
          start: {
            id: record.id,
            startedAtMs: record.started_at_ms,
            task: record.first_message,
            model: record.model,
            settings: null,
            tools: record.tools,
            proxiedTo: record.upstream,
          },
        };
        break;
      case "request":
        state = withTurn(state, record.turn, (t) => ({ ...t, requestAtMs: t.requestAtMs ?? at }));
        break;
      case "chunk":
        break;
      case "retry":
        state = applyAgentEvent(state, { ...record, type: "retry" });
        break;
      case "reply":
        state = withTurn(state, record.turn, (t) => ({ ...finishReply(t, record.reply, record.timing, null), replyAtMs: at }));
        break;
      case "parsed":
        state = withTurn(state, record.turn, (t) => ({ ...t, report: record.report }));
        break;
      case "decided":
        state = applyDecision(state, record.turn, {
          requestId: record.request_id,
          toolName: record.tool_name,
          decision: record.decision,
        });
        break;
      case "result":
        state = withTurn(state, record.turn, (t) => ({
          ...t,
          results: [...t.results, { result: record.result, suggestion: record.suggestion ?? null, atMs: at }],
        }));
        break;
      case "feedback":
        state = withTurn(state, record.turn, (t) => ({ ...t, feedback: [...t.feedback, record.text] }));
        break;
      case "model_failed":
        state = withTurn(state, record.turn, (t) => ({ ...t, failure: { kind: record.kind, message: record.message } }));
        break;
      case "ended":
        state = {
          ...state,
          ended: { reason: record.reason, turns: record.turns, toolCalls: record.tool_calls, usage: record.usage },
        };
        break;
    }
  }
  return state;
}
