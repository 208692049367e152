/**
 * A modal dialog over the whole app: Esc cancels, Enter confirms (except on the Cancel button,
 * which cancels), Tab stays inside. Focus starts on `initialFocus` (a selector inside the
 * dialog, default the Cancel button) and returns where it was when the dialog closes.
 */
import { useEffect, useId, useRef, type KeyboardEvent, type ReactNode } from "react";
import { createPortal } from "react-dom";

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

  useEffect(() => {
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const first = initialFocus ? dialog.current?.querySelector<HTMLElement>(initialFocus) : null;
    (first ?? cancel.current)?.focus();
    return () => {
      previous?.focus();
    };
  }, [initialFocus]);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      onCancel();
    } else if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      // A focused button does its own thing on Enter (Cancel cancels).
      if (event.target instanceof HTMLButtonElement) return;
      event.preventDefault();
      event.stopPropagation();
      onConfirm();
    } else if (event.key === "Tab") {
      const focusable = dialog.current?.querySelectorAll<HTMLElement>("button, [tabindex='0']");
      if (!focusable || focusable.length === 0) return;
      const first = focusable[0];
      const last = focusable[focusable.length - 1];
      if (event.shiftKey && document.activeElement === first) {
        event.preventDefault();
        last?.focus();
      } else if (!event.shiftKey && document.activeElement === last) {
        event.preventDefault();
        first?.focus();
      }
    }
  };

  return createPortal(
    <div className="src-backdrop">
      <div
        ref={dialog}
        className="src-dialog"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby={`${id}-title`}
        data-testid={testId}
        onKeyDown={onKeyDown}
      >
        <h3 id={`${id}-title`}>{title}</h3>
        {children}
        <div className="src-dialog-buttons">
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
