/**
 * The approval asked by the backend before a destructive call (`confirmation_needed`): a modal
 * dialog over the whole app (so it is seen even from another pane) with the routing name, why it
 * asks and the arguments. Focus starts on Deny; Esc denies; Tab stays inside the dialog.
 */
import { useId, useRef, type KeyboardEvent } from "react";
import { createPortal } from "react-dom";

import { dialogKeys, useFocusWhileOpen } from "../../lib/dialogKeys";

import type { ConfirmReason } from "../../lib/ipc";
import type { PendingConfirmation } from "./useRun";

const REASONS: Record<ConfirmReason, string> = {
  destructive: "This method is destructive, or does not state that it is not.",
  configured: "The tool-calling configuration asks to confirm every call.",
};

interface Props {
  confirmation: PendingConfirmation;
  onAnswer: (approve: boolean) => void;
}

export function ConfirmDialog({ confirmation, onAnswer }: Props) {
  const id = useId();
  const dialog = useRef<HTMLDivElement>(null);
  const deny = useRef<HTMLButtonElement>(null);
  const { request } = confirmation;

  useFocusWhileOpen(() => deny.current, confirmation.confirmationId);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    dialogKeys(event, dialog.current, () => {
      onAnswer(false);
    });
  };

  return createPortal(
    <div className="ex-backdrop modal-backdrop">
      <div
        ref={dialog}
        className="ex-dialog modal"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby={`${id}-title`}
        aria-describedby={`${id}-reason`}
        data-testid="confirm-dialog"
        onKeyDown={onKeyDown}
      >
        <h3 id={`${id}-title`}>
          Run <code data-testid="confirm-tool-name">{request.routing_name}</code>?
        </h3>
        <p id={`${id}-reason`} data-testid="confirm-reason">
          {REASONS[request.reason]}
        </p>
        <p className="muted">Arguments</p>
        <pre className="ex-dialog-args" data-testid="confirm-args" tabIndex={0}>
          {JSON.stringify(request.args, null, 2)}
        </pre>
        <div className="modal-buttons">
          <button
            ref={deny}
            type="button"
            className="button"
            data-testid="confirm-deny"
            onClick={() => {
              onAnswer(false);
            }}
          >
            Deny <kbd>Esc</kbd>
          </button>
          <button
            type="button"
            className="button ex-danger-button"
            data-testid="confirm-approve"
            onClick={() => {
              onAnswer(true);
            }}
          >
            Approve and run
          </button>
        </div>
      </div>
    </div>,
    document.body,
  );
}
