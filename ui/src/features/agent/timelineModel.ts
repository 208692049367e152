/** The bars of a recorded conversation's timeline, in milliseconds since it started. */
import type { Conversation } from "./conversationModel";

export interface Bar {
  kind: "wait" | "stream" | "call";
  from: number;
  to: number;
  label: string;
}

export interface TimelineRow {
  turn: number;
  bars: Bar[];
}

export interface Timeline {
  rows: TimelineRow[];
  /** The latest moment any bar reaches (at least 1). */
  end: number;
}

export function buildTimeline(conversation: Conversation): Timeline {
  let end = 1;
  const rows = conversation.turns.map((turn): TimelineRow => {
    const bars: Bar[] = [];
    const sent = turn.requestAtMs;
    const total = turn.timing?.total_ms ?? null;
    const finished = turn.replyAtMs ?? (sent !== null && total !== null ? sent + total : null);
    if (sent !== null && finished !== null) {
      const firstToken = turn.timing?.first_token_ms ?? null;
      const streamFrom = firstToken === null ? sent : Math.min(finished, sent + firstToken);
      if (streamFrom > sent) bars.push({ kind: "wait", from: sent, to: streamFrom, label: "request → first token" });
      bars.push({ kind: "stream", from: streamFrom, to: finished, label: "first token → end of reply" });
    }
    for (const outcome of turn.results) {
      if (outcome.atMs === null) continue;
      const duration = outcome.result.duration_ms ?? 0;
      bars.push({ kind: "call", from: Math.max(0, outcome.atMs - duration), to: outcome.atMs, label: outcome.result.tool_name });
    }
    for (const bar of bars) end = Math.max(end, bar.to);
    return { turn: turn.turn, bars };
  });
  return { rows, end };
}
