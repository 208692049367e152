/**
 * Keyboard behaviour every modal dialog of the app shares: Esc dismisses it (and goes no
 * further, so the pane behind does not also react), Tab and Shift+Tab cycle inside the dialog, and
 * focus moves into it when it opens and back to where it was when it closes.
 */
import { useEffect, type KeyboardEvent } from "react";

/** On Tab at the last (Shift+Tab at the first) focusable element, wraps around inside `container`. */
export function keepTabInside(event: KeyboardEvent<HTMLElement>, container: HTMLElement | null): void {
  if (event.key !== "Tab") return;
  // Form controls too: a dialog may be a form (an MCP server's request for input).
  const focusable = [
    ...(container?.querySelectorAll<HTMLElement>("button, input, select, textarea, [tabindex='0']") ?? []),
  ];
  const first = focusable[0];
  const last = focusable[focusable.length - 1];
  if (!first || !last) return;
  if (event.shiftKey && document.activeElement === first) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && document.activeElement === last) {
    event.preventDefault();
    first.focus();
  }
}

/** On Esc, calls `dismiss` and stops the key there; true when it did. */
export function dismissOnEscape(event: KeyboardEvent<HTMLElement>, dismiss: () => void): boolean {
  if (event.key !== "Escape") return false;
  event.preventDefault();
  event.stopPropagation();
  dismiss();
  return true;
}

/** A dialog's keys when it has no others of its own: Esc dismisses, Tab stays inside `container`. */
export function dialogKeys(event: KeyboardEvent<HTMLElement>, container: HTMLElement | null, dismiss: () => void): void {
  if (!dismissOnEscape(event, dismiss)) keepTabInside(event, container);
}

/**
 * Focuses what `initial` returns when the dialog opens (again whenever `key` changes) and gives
 * the focus back to the element that had it, if it is still there, when the dialog closes.
 */
export function useFocusWhileOpen(initial: () => HTMLElement | null | undefined, key?: unknown): void {
  useEffect(() => {
    const previous = document.activeElement;
    initial()?.focus();
    return () => {
      if (previous instanceof HTMLElement && previous.isConnected) previous.focus();
    };
    // `initial` reads refs at effect time; re-running on each render would steal focus.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
}
