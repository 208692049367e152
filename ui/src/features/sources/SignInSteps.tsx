/**
 * Every step of a server's last sign-in (and the token refreshes since): the request each
 * step sent and what came back, secrets masked, and where it stopped and why. This is where a
 * person finds out why a server refuses them. Read when shown, and again on every
 * `sources-changed` event (a sign-in moves the server's status along as it goes).
 */
import { useCallback } from "react";

import { ipc, type SignInStep, type StepOutcome } from "../../lib/ipc";
import { useSourceQuery } from "./useSourceQuery";

const OUTCOME: Record<StepOutcome, { label: string; tone: string }> = {
  done: { label: "done", tone: "badge-ok" },
  skipped: { label: "not here", tone: "badge-muted" },
  failed: { label: "stopped", tone: "src-badge-danger" },
  info: { label: "note", tone: "src-badge-info" },
};

function Step({ step }: { step: SignInStep }) {
  const { label, tone } = OUTCOME[step.outcome];
  const exchange = step.request !== null || step.response !== null;
  return (
    <li className="src-step" data-testid="sign-in-step" data-outcome={step.outcome}>
      <div className="src-step-head">
        <span className={`badge ${tone}`}>{label}</span>
        <span className="src-step-title">{step.title}</span>
        <span className="muted src-step-time">+{step.elapsed_ms} ms</span>
      </div>
      {step.note !== null && <p className="src-step-note">{step.note}</p>}
      {exchange && (
        <details className="src-step-exchange" open={step.outcome === "failed"}>
          <summary>Request and response</summary>
          {step.request !== null && <pre className="src-code-box" aria-label="Request">{step.request}</pre>}
          {step.response !== null && <pre className="src-code-box" aria-label="Response">{step.response}</pre>}
        </details>
      )}
    </li>
  );
}

export function SignInSteps({ name }: { name: string }) {
  const read = useCallback(() => ipc.mcpSignInSteps(name), [name]);
  const { data: steps, loadError: error, reload: refresh } = useSourceQuery(read);

  return (
    <div className="src-log src-steps" data-testid="sign-in-steps">
      <div className="src-log-head">
        <span className="muted">Sign-in steps (secrets masked)</span>
        <button type="button" className="button src-small" onClick={refresh}>
          Refresh
        </button>
      </div>
      {error !== null && (
        <p className="src-error" role="alert">
          Could not read the sign-in steps: {error}
        </p>
      )}
      {steps === null ? (
        error === null && <p className="muted">Reading…</p>
      ) : steps.length === 0 ? (
        <p className="muted" data-testid="sign-in-steps-empty">
          No sign-in on this run. The steps appear here once the server asks for authorization.
        </p>
      ) : (
        <ol className="src-step-list" aria-label={`Sign-in steps of ${name}`}>
          {steps.map((step, index) => (
            <Step key={index} step={step} />
          ))}
        </ol>
      )}
    </div>
  );
}
