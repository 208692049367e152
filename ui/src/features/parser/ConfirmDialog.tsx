/**
 * Asks the user to approve one call of a run (`confirmation_needed`): a modal dialog showing the
 * routing name, why approval is needed and the arguments. Deny has the focus first; Tab stays
 * inside; Esc denies. The previously focused element gets the focus back when it closes.
 * It is rendered over the whole window (a portal), so a run waiting for an answer is seen even
 * after the user switched to another pane.
 */
import { useRef, type KeyboardEvent } from "react";
import { createPortal } from "react-dom";

import { dialogKeys, useFocusWhileOpen } from "../../lib/dialogKeys";
import type { Annotations, ConfirmationRequest, ConfirmReason } from "../../lib/ipc";
import { prettyJson } from "./format";

const REASONS: Record<ConfirmReason, string> = {
  destructive: "This method may change or delete data (it is destructive, or does not say it is not).",
  configured: "The configuration asks to confirm every call.",
};

function hints(annotations: Annotations): string[] {
  const out: string[] = [];
  if (annotations.read_only === true) out.push("read-only");
  if (annotations.destructive === true) out.push("destructive");
  if (annotations.idempotent === true) out.push("idempotent");
  if (annotations.open_world === true) out.push("open world");
  return out;
}

export function ConfirmDialog({
  request,
  waiting,
  onAnswer,
}: {
  request: ConfirmationRequest;
  /** Further confirmations queued behind this one. */
  waiting: number;
  onAnswer: (approve: boolean) => void;
}) {
  const dialog = useRef<HTMLDivElement>(null);
  const deny = useRef<HTMLButtonElement>(null);

  useFocusWhileOpen(() => deny.current);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    dialogKeys(event, dialog.current, () => {
      onAnswer(false);
    });
  };

  const badges = hints(request.annotations);
  return createPortal(
    <div className="parser-dialog-backdrop">
      <div
        ref={dialog}
        className="parser-dialog"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby="parser-confirm-title"
        aria-describedby="parser-confirm-reason"
        data-testid="confirm-dialog"
        onKeyDown={onKeyDown}
      >
        <h3 id="parser-confirm-title">
          Run <code>{request.routing_name}</code>?
        </h3>
        <p id="parser-confirm-reason" data-testid="confirm-reason" data-reason={request.reason}>
          {REASONS[request.reason]}
        </p>
        {badges.length > 0 ? (
          <p className="parser-dialog-hints">
            {badges.map((badge) => (
              <span key={badge} className="badge">
                {badge}
              </span>
            ))}
          </p>
        ) : null}
        <p className="muted">
          Request <code>{request.request_id}</code> with arguments:
        </p>
        <pre className="parser-dialog-args" tabIndex={0} data-testid="confirm-args">
          {prettyJson(request.args)}
        </pre>
        {waiting > 0 ? <p className="muted">{waiting} more waiting for an answer.</p> : null}
        <div className="parser-dialog-actions">
          <button
            ref={deny}
            type="button"
            className="button"
            data-testid="confirm-deny"
            onClick={() => {
              onAnswer(false);
            }}
          >
            Deny
          </button>
          <button
            type="button"
            className="button parser-button-primary"
            data-testid="confirm-approve"
            onClick={() => {
              onAnswer(true);
            }}
          >
            Approve
          </button>
        </div>
      </div>
    </div>,
    document.body,
  );
}
