/**
 * The settings the Executor shows and edits: the run timeout (ToolCallConfig.timeout_ms, enforced
 * by the backend) and the preferred argument editor (layout.executor_mode). Saving re-reads the
 * stored settings first so changes made by other panes are kept, and a timeout saved elsewhere
 * (the Settings view) is read again.
 */
import { useCallback, useEffect, useRef, useState } from "react";

import { onAppEvent } from "../../lib/appEvents";
import { errorMessage, ipc, type Settings } from "../../lib/ipc";
import type { ArgsMode } from "./argsModel";

/** The backend's default when the config says nothing (DESIGN.md). */
export const DEFAULT_TIMEOUT_MS = 30000;

export interface ExecutorSettings {
  /** Null until loaded. */
  timeoutMs: number | null;
  /** The stored editor mode, null until loaded or when none is stored. */
  preferredMode: ArgsMode | null;
  error: string | null;
  saveTimeout: (ms: number) => Promise<boolean>;
  saveMode: (mode: ArgsMode) => void;
}

function modeOf(settings: Settings): ArgsMode | null {
  const mode = settings.layout?.executor_mode;
  return mode === "form" || mode === "json" ? mode : null;
}

export function useExecutorSettings(): ExecutorSettings {
  const [timeoutMs, setTimeoutMs] = useState<number | null>(null);
  const [preferredMode, setPreferredMode] = useState<ArgsMode | null>(null);
  const [error, setError] = useState<string | null>(null);
  const mounted = useRef(true);
  // Saves run one after another so a slow one never overwrites a newer one.
  const queue = useRef<Promise<unknown>>(Promise.resolve());

  useEffect(() => {
    mounted.current = true;
    ipc.getSettings().then(
      (settings) => {
        if (!mounted.current) return;
        setTimeoutMs(settings.config?.timeout_ms ?? DEFAULT_TIMEOUT_MS);
        setPreferredMode(modeOf(settings));
      },
      (reason: unknown) => {
        if (mounted.current) setError(`settings not loaded: ${errorMessage(reason)}`);
      },
    );
    return () => {
      mounted.current = false;
    };
  }, []);

  useEffect(
    () =>
      onAppEvent("settings-changed", () => {
        ipc.getSettings().then(
          (settings) => {
            if (mounted.current) setTimeoutMs(settings.config?.timeout_ms ?? DEFAULT_TIMEOUT_MS);
          },
          () => undefined,
        );
      }),
    [],
  );

  const update = useCallback((change: (settings: Settings) => Settings): Promise<Settings> => {
    const next = queue.current.then(async () => ipc.saveSettings(change(await ipc.getSettings())));
    queue.current = next.catch(() => undefined);
    return next;
  }, []);

  const saveTimeout = useCallback(
    async (ms: number) => {
      try {
        const stored = await update((s) => ({ ...s, config: { ...s.config, timeout_ms: ms } }));
        if (mounted.current) {
          setTimeoutMs(stored.config?.timeout_ms ?? ms);
          setError(null);
        }
        return true;
      } catch (reason: unknown) {
        if (mounted.current) setError(`timeout not saved: ${errorMessage(reason)}`);
        return false;
      }
    },
    [update],
  );

  const saveMode = useCallback(
    (mode: ArgsMode) => {
      setPreferredMode(mode);
      update((s) => ({ ...s, layout: { ...s.layout, executor_mode: mode } })).catch((reason: unknown) => {
        if (mounted.current) setError(`editor mode not saved: ${errorMessage(reason)}`);
      });
    },
    [update],
  );

  return { timeoutMs, preferredMode, error, saveTimeout, saveMode };
}
