/** How a conversation ended: the stop reason, turns, calls and tokens. */
import type { Ended } from "./conversationModel";
import { stopReasonText, usageText } from "./describe";

export function EndedNote({ ended }: { ended: Ended }) {
  const failed = ended.reason.reason === "model_failed";
  return (
    <div className={`ag-ended${failed ? " ag-ended-failed" : ""}`} data-testid="agent-ended" data-reason={ended.reason.reason}>
      <strong>{stopReasonText(ended.reason)}</strong>
      <span className="muted ag-small">
        {ended.turns} {ended.turns === 1 ? "turn" : "turns"} · {ended.toolCalls} tool {ended.toolCalls === 1 ? "call" : "calls"} · {usageText(ended.usage)}
      </span>
    </div>
  );
}
