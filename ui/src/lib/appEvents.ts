/**
 * Signals between the panes of this window, raised by the thin client ({@link ./ipc}) when a
 * command that changes shared state ends: `run-finished` after any run (the history grew, so the
 * Metrics view refreshes), `settings-changed` after settings were saved (so a pane showing a
 * setting reads it again) and `profiles-changed` after an endpoint profile was saved or removed
 * (the Sources pane offers them for MCP sampling). Panes stay mounted while hidden, so listeners
 * stay registered.
 */
export type AppEvent = "run-finished" | "settings-changed" | "profiles-changed";

const bus = new EventTarget();

export function emitAppEvent(event: AppEvent): void {
  bus.dispatchEvent(new Event(event));
}

/** Calls `listener` on every `event`; returns the function that stops it. */
export function onAppEvent(event: AppEvent, listener: () => void): () => void {
  bus.addEventListener(event, listener);
  return () => {
    bus.removeEventListener(event, listener);
  };
}

/** `pending`, raising `event` once it settles (success or failure: a failed run may still be recorded). */
export function announcing<T>(pending: Promise<T>, event: AppEvent, onlyOnSuccess = false): Promise<T> {
  return pending.then(
    (value) => {
      emitAppEvent(event);
      return value;
    },
    (reason: unknown) => {
      if (!onlyOnSuccess) emitAppEvent(event);
      throw reason;
    },
  );
}
