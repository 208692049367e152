/**
 * One turn of a conversation, live or recorded: retries, the text (with what the parser found
 * marked), reasoning (folded), the calls, diagnostics, decisions, results with suggestions, the
 * feedback the loop sent, a failed request, and the turn's usage and timing.
 */
import { memo, type ReactNode } from "react";

import type { Turn } from "./conversationModel";
import { Decisions, NativeCalls, ParsedCalls, Results } from "./CallResults";
import { retryText, timingParts, usageText } from "./describe";
import { ReplyText } from "./ReplyText";

interface Props {
  turn: Turn;
  prompted: boolean;
  /** Still streaming. */
  live: boolean;
  /** Per-turn actions (export, ...). */
  actions?: ReactNode;
}

export const TurnView = memo(function TurnView({ turn, prompted, live, actions }: Props) {
  const diagnostics = turn.report?.diagnostics ?? turn.diagnostics;
  const facts = [
    ...(turn.finishReason !== null ? [`finished: ${turn.finishReason}`] : []),
    ...(turn.usage ? [usageText(turn.usage)] : []),
    ...(turn.timing ? timingParts(turn.timing) : []),
  ];
  return (
    <article className="ag-turn" aria-labelledby={`agent-turn-${String(turn.turn)}`} data-testid="agent-turn" data-turn={turn.turn}>
      <header className="ag-turn-head">
        <h4 id={`agent-turn-${String(turn.turn)}`}>Turn {turn.turn}</h4>
        {live && turn.timing === null && turn.failure === null && <span className="badge">streaming…</span>}
        {facts.length > 0 && (
          <span className="muted ag-small" data-testid="agent-turn-facts">
            {facts.join(" · ")}
          </span>
        )}
        {actions}
      </header>
      {turn.retries.map((retry) => (
        <p key={retry.attempt} className="ag-warning" data-testid="agent-retry">
          {retryText(retry)}
        </p>
      ))}
      {turn.reasoning !== "" && (
        <details className="ag-reasoning">
          <summary>Reasoning ({turn.reasoning.length} characters)</summary>
          <pre className="ag-text">{turn.reasoning}</pre>
        </details>
      )}
      <ReplyText turn={turn} prompted={prompted} />
      {prompted ? <ParsedCalls requests={turn.report?.requests ?? null} blocks={turn.blocks} /> : <NativeCalls calls={turn.nativeCalls} />}
      {diagnostics.length > 0 && (
        <ul className="ag-diagnostics" aria-label="Diagnostics">
          {diagnostics.map((d, index) => (
            <li key={index} className={`ag-diagnostic ag-diagnostic-${d.severity}`} data-testid="agent-diagnostic">
              <strong>{d.severity}</strong> <code>{d.code}</code>: {d.message}
            </li>
          ))}
        </ul>
      )}
      <Decisions decisions={turn.decisions} />
      <Results results={turn.results} />
      {turn.feedback.map((text, index) => (
        <div key={index} className="ag-feedback" data-testid="agent-feedback">
          <span className="muted ag-small">Feedback sent to the model</span>
          <pre className="ag-code">{text}</pre>
        </div>
      ))}
      {turn.failure && (
        <p className="ag-error" role="alert">
          Model request failed ({turn.failure.kind.replaceAll("_", " ")}): {turn.failure.message}
        </p>
      )}
    </article>
  );
});
