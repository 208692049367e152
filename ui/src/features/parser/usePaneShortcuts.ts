/**
 * Keyboard shortcuts of the Parser pane, live only while it is the active pane:
 * Ctrl+Enter / Cmd+Enter runs all requests, Esc denies an open confirmation or else cancels the
 * run in flight.
 */
import { useEffect, useEffectEvent } from "react";

export interface PaneShortcuts {
  runAll: () => void;
  /** Esc: returns true when it did something. */
  escape: () => boolean;
}

export function usePaneShortcuts(active: boolean, shortcuts: PaneShortcuts) {
  const onKeyDown = useEffectEvent((event: KeyboardEvent) => {
    if (event.defaultPrevented || event.isComposing) return;
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      shortcuts.runAll();
    } else if (event.key === "Escape") {
      if (shortcuts.escape()) event.preventDefault();
    }
  });

  useEffect(() => {
    if (!active) return;
    const listener = (event: KeyboardEvent) => {
      onKeyDown(event);
    };
    window.addEventListener("keydown", listener);
    return () => {
      window.removeEventListener("keydown", listener);
    };
  }, [active]);
}
