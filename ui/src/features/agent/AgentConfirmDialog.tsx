/**
 * A call the loop wants to run and asks about first (`confirmation_needed`): the executor's
 * dialog look, with the method, why it asks, and the arguments in an editable JSON editor.
 * Run (Enter; with edited arguments when they changed), Deny (Esc; with an optional reason for
 * the model), or Stop the conversation. Focus starts on Run; Tab stays inside the dialog.
 */
import { useId, useRef, useState, type KeyboardEvent } from "react";
import { createPortal } from "react-dom";

import { dismissOnEscape, keepTabInside, useFocusWhileOpen } from "../../lib/dialogKeys";
import type { ConfirmReason, Decision } from "../../lib/ipc";
import { JsonMode } from "../executor/JsonMode";
import { formatArgs, parseArgsText } from "../executor/jsonText";
import type { PendingConfirmation } from "./useAgentRun";
import "../executor/executor.css";

const REASONS: Record<ConfirmReason, string> = {
  destructive: "This method is destructive, or does not state that it is not.",
  configured: "Manual mode: every call is confirmed.",
};

interface Props {
  confirmation: PendingConfirmation;
  onAnswer: (decision: Decision) => void;
}

export function AgentConfirmDialog({ confirmation, onAnswer }: Props) {
  const id = useId();
  const dialog = useRef<HTMLDivElement>(null);
  const runButton = useRef<HTMLButtonElement>(null);
  const { request } = confirmation;
  const original = formatArgs(request.args);
  const [text, setText] = useState(original);
  const [reason, setReason] = useState("");
  const parsed = parseArgsText(text);

  useFocusWhileOpen(() => runButton.current, confirmation.confirmationId);

  const run = () => {
    if (!parsed.ok) return;
    const edited = JSON.stringify(parsed.args) !== JSON.stringify(request.args);
    onAnswer(edited ? { decision: "run", edited: parsed.args } : { decision: "run" });
  };
  const deny = () => {
    const why = reason.trim();
    onAnswer(why === "" ? { decision: "deny" } : { decision: "deny", reason: why });
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (dismissOnEscape(event, deny)) return;
    if (event.key === "Enter" && !event.shiftKey && !event.altKey) {
      const target = event.target as HTMLElement;
      const inEditor = target.closest(".ag-confirm-editor") !== null;
      const modifier = event.ctrlKey || event.metaKey;
      if (target.tagName === "BUTTON" && !modifier) return;
      if (inEditor && !modifier) return;
      event.preventDefault();
      event.stopPropagation();
      if (target.dataset.field === "deny-reason" && !modifier) deny();
      else run();
      return;
    }
    keepTabInside(event, dialog.current);
  };

  return createPortal(
    <div className="ex-backdrop modal-backdrop ag-backdrop">
      <div
        ref={dialog}
        className="ex-dialog modal ag-dialog"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby={`${id}-title`}
        aria-describedby={`${id}-reason`}
        data-testid="agent-confirm"
        onKeyDown={onKeyDown}
      >
        <h3 id={`${id}-title`}>
          Turn {confirmation.turn}: run <code data-testid="agent-confirm-name">{request.routing_name}</code>?
        </h3>
        <p id={`${id}-reason`} data-testid="agent-confirm-reason">
          {REASONS[request.reason]}
        </p>
        <p className="muted">Arguments (edit them to run the call with other values)</p>
        <div className="ag-confirm-editor" data-testid="agent-confirm-args">
          <JsonMode text={text} problem={parsed.ok ? null : parsed.problem} schema={undefined} onChange={setText} />
        </div>
        {text !== original && parsed.ok && <p className="muted ag-small">The call will run with your edited arguments.</p>}
        <label className="ag-small" htmlFor={`${id}-why`}>
          Reason for denying (sent to the model, optional)
        </label>
        <input
          id={`${id}-why`}
          className="ag-input ag-wide"
          data-field="deny-reason"
          value={reason}
          onChange={(e) => { setReason(e.target.value); }}
          data-testid="agent-confirm-deny-reason"
        />
        <div className="modal-buttons">
          <button type="button" className="button" onClick={() => { onAnswer({ decision: "stop" }); }} data-testid="agent-confirm-stop">
            Stop conversation
          </button>
          <button type="button" className="button" onClick={deny} data-testid="agent-confirm-deny">
            Deny <kbd>Esc</kbd>
          </button>
          <button
            ref={runButton}
            type="button"
            className="button ex-danger-button"
            onClick={run}
            disabled={!parsed.ok}
            data-testid="agent-confirm-run"
          >
            Run <kbd>Enter</kbd>
          </button>
        </div>
      </div>
    </div>,
    document.body,
  );
}
