/**
 * Re-reads data when the tool sources change (an MCP server connected, failed or changed its
 * tool list; an HTTP definition file was edited). Bursts of `sources-changed` events (a server
 * going connecting → ready) are coalesced into one call after `delayMs` of quiet.
 */
import { useEffect, useRef } from "react";

import { onSourcesChanged } from "./ipc";

export function useSourcesChanged(onChange: () => void, enabled = true, delayMs = 80): void {
  const callback = useRef(onChange);
  useEffect(() => {
    callback.current = onChange;
  }, [onChange]);

  useEffect(() => {
    if (!enabled) return;
    let timer: number | undefined;
    const stop = onSourcesChanged(() => {
      window.clearTimeout(timer);
      timer = window.setTimeout(() => {
        callback.current();
      }, delayMs);
    });
    return () => {
      window.clearTimeout(timer);
      stop();
    };
  }, [enabled, delayMs]);
}
