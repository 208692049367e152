/**
 * A modal dialog over the whole app: Esc cancels, Enter confirms (except on the Cancel button,
 * which cancels), Tab stays inside. Focus starts on `initialFocus` (a selector inside the
 * dialog, default the Cancel button) and returns where it was when the dialog closes.
 */
import { useId, useRef, type KeyboardEvent, type ReactNode } from "react";
import { createPortal } from "react-dom";

import { dismissOnEscape, keepTabInside, useFocusWhileOpen } from "../../lib/dialogKeys";

interface Props {
  title: ReactNode;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  testId: string;
  /** Selector of the element focused first; the Cancel button when absent. */
  initialFocus?: string;
}

export function Dialog({ title, children, confirmLabel, onConfirm, onCancel, testId, initialFocus }: Props) {
  const id = useId();
  const dialog = useRef<HTMLDivElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);

  useFocusWhileOpen(
    () => (initialFocus ? dialog.current?.querySelector<HTMLElement>(initialFocus) : null) ?? cancel.current,
    initialFocus,
  );

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (dismissOnEscape(event, onCancel)) return;
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      // A focused button does its own thing on Enter (Cancel cancels).
      if (event.target instanceof HTMLButtonElement) return;
      event.preventDefault();
      event.stopPropagation();
      onConfirm();
    } else {
      keepTabInside(event, dialog.current);
    }
  };

  return createPortal(
    <div className="src-backdrop modal-backdrop">
      <div
        ref={dialog}
        className="src-dialog modal"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby={`${id}-title`}
        data-testid={testId}
        onKeyDown={onKeyDown}
      >
        <h3 id={`${id}-title`}>{title}</h3>
        {children}
        <div className="modal-buttons">
          <button ref={cancel} type="button" className="button" data-testid={`${testId}-cancel`} onClick={onCancel}>
            Cancel <kbd>Esc</kbd>
          </button>
          <button type="button" className="button src-danger-button" data-testid={`${testId}-confirm`} onClick={onConfirm}>
            {confirmLabel} <kbd>Enter</kbd>
          </button>
        </div>
      </div>
    </div>,
    document.body,
  );
}
