/**
 * Data hooks of the Discovery pane: the tool list, the per-tool enable toggle (a settings
 * read-modify-write), the protocols and the tool-definition prompt, and the Ctrl/Cmd+K shortcut.
 * "Loading" is derived from which request the shown data answers, so no effect sets state
 * synchronously and a refresh keeps the previous data on screen.
 */
import { useCallback, useEffect, useRef, useState } from "react";

import { errorMessage, ipc, IPC_FAILURE, IpcError, type ProtocolInfo, type ToolView } from "../../lib/ipc";
import { buildSearchIndex, sameSearchContent, type SearchIndex } from "./search";

export function toIpcError(reason: unknown): IpcError {
  return reason instanceof IpcError ? reason : new IpcError(IPC_FAILURE, errorMessage(reason));
}

interface Loaded<T> {
  data: T | null;
  error: IpcError | null;
  /** The request this state answers; a newer request means "loading". */
  request: number;
}

export interface ToolList {
  tools: ToolView[] | null;
  error: IpcError | null;
  loading: boolean;
  reload: () => void;
  /** Applies a saved toggle at once, before the refreshed list arrives. */
  setEnabled: (toolId: string, enabled: boolean) => void;
}

/** Every tool, non-agent-callable methods included: filtering happens in the UI. */
export function useToolList(): ToolList {
  const [request, setRequest] = useState(0);
  const [state, setState] = useState<Loaded<ToolView[]>>({ data: null, error: null, request: -1 });

  useEffect(() => {
    let current = true;
    performance.mark("toolscope: list_tools sent");
    ipc.listTools(null, true).then(
      (tools) => {
        performance.mark("toolscope: list_tools answered");
        if (current) setState({ data: tools, error: null, request });
      },
      (reason: unknown) => {
        // A failed refresh keeps the list it had: the error is shown above it.
        if (current) setState((previous) => ({ data: previous.data, error: toIpcError(reason), request }));
      },
    );
    return () => {
      current = false;
    };
  }, [request]);

  const reload = useCallback(() => {
    setRequest((n) => n + 1);
  }, []);

  const setEnabled = useCallback((toolId: string, enabled: boolean) => {
    setState((previous) => ({
      ...previous,
      data: previous.data?.map((tool) => (tool.id === toolId ? { ...tool, enabled } : tool)) ?? null,
    }));
  }, []);

  return { tools: state.data, error: state.error, loading: state.request !== request, reload, setEnabled };
}

export interface ToggleFailure {
  toolId: string;
  toolName: string;
  enabled: boolean;
  error: IpcError;
}

export interface ToolToggles {
  /** Tool id → the value being saved. */
  pending: ReadonlyMap<string, boolean>;
  failure: ToggleFailure | null;
  dismissFailure: () => void;
  toggle: (tool: ToolView, enabled: boolean) => void;
}

/**
 * Saves `settings.config.tool_toggles[toolId]`. Saves run one after another: each reads the
 * settings afresh, so two quick toggles cannot overwrite each other.
 */
export function useToolToggles(onSaved: (toolId: string, enabled: boolean) => void): ToolToggles {
  const [pending, setPending] = useState<ReadonlyMap<string, boolean>>(new Map());
  const [failure, setFailure] = useState<ToggleFailure | null>(null);
  const queue = useRef<Promise<void>>(Promise.resolve());

  const toggle = useCallback(
    (tool: ToolView, enabled: boolean) => {
      setPending((previous) => new Map(previous).set(tool.id, enabled));
      const save = async () => {
        try {
          const settings = await ipc.getSettings();
          const config = settings.config ?? {};
          await ipc.saveSettings({
            ...settings,
            config: { ...config, tool_toggles: { ...config.tool_toggles, [tool.id]: enabled } },
          });
          setFailure((previous) => (previous?.toolId === tool.id ? null : previous));
          onSaved(tool.id, enabled);
        } catch (reason: unknown) {
          setFailure({ toolId: tool.id, toolName: tool.name, enabled, error: toIpcError(reason) });
        } finally {
          setPending((previous) => {
            const next = new Map(previous);
            next.delete(tool.id);
            return next;
          });
        }
      };
      queue.current = queue.current.then(save);
    },
    [onSaved],
  );

  const dismissFailure = useCallback(() => {
    setFailure(null);
  }, []);

  return { pending, failure, dismissFailure, toggle };
}

export interface Protocols {
  protocols: ProtocolInfo[] | null;
  /** The protocol the settings last used, when it is one of `protocols`. */
  lastProtocol: string | null;
  error: IpcError | null;
  /** Reading the settings failed: the preview still works, starting from the first protocol. */
  settingsError: IpcError | null;
  loading: boolean;
  retry: () => void;
}

export function useProtocols(): Protocols {
  const [request, setRequest] = useState(0);
  const [state, setState] = useState<{
    protocols: ProtocolInfo[] | null;
    lastProtocol: string | null;
    error: IpcError | null;
    settingsError: IpcError | null;
    request: number;
  }>({ protocols: null, lastProtocol: null, error: null, settingsError: null, request: -1 });

  useEffect(() => {
    let current = true;
    void Promise.allSettled([ipc.listProtocols(), ipc.getSettings()]).then(([protocols, settings]) => {
      if (!current) return;
      const last = settings.status === "fulfilled" ? (settings.value.last_protocol ?? null) : null;
      setState({
        protocols: protocols.status === "fulfilled" ? protocols.value : null,
        lastProtocol: protocols.status === "fulfilled" && protocols.value.some((p) => p.id === last) ? last : null,
        error: protocols.status === "rejected" ? toIpcError(protocols.reason) : null,
        settingsError: settings.status === "rejected" ? toIpcError(settings.reason) : null,
        request,
      });
    });
    return () => {
      current = false;
    };
  }, [request]);

  const retry = useCallback(() => {
    setRequest((n) => n + 1);
  }, []);

  return { ...state, loading: state.request !== request, retry };
}

export interface PromptText {
  text: string | null;
  /** The protocol `text` was generated for. */
  protocol: string | null;
  error: IpcError | null;
  loading: boolean;
  retry: () => void;
}

/**
 * The prompt `protocol` shows a model. Fetched again when `revision` changes (a toggle was
 * saved) and whenever the pane is shown, since another pane may have changed the settings.
 */
export function usePromptText(protocol: string | null, revision: number, active: boolean): PromptText {
  const [attempt, setAttempt] = useState(0);
  const [state, setState] = useState<{ text: string | null; error: IpcError | null; protocol: string | null; key: string }>({
    text: null,
    error: null,
    protocol: null,
    key: "",
  });
  const key = `${protocol ?? ""}\u0000${String(revision)}\u0000${String(attempt)}`;

  useEffect(() => {
    if (protocol === null || !active) return;
    let current = true;
    ipc.toolPrompt(protocol).then(
      (text) => {
        if (current) setState({ text, error: null, protocol, key });
      },
      (reason: unknown) => {
        if (current) setState({ text: null, error: toIpcError(reason), protocol, key });
      },
    );
    return () => {
      current = false;
    };
  }, [protocol, key, active]);

  const retry = useCallback(() => {
    setAttempt((n) => n + 1);
  }, []);

  return {
    text: state.text,
    protocol: state.protocol,
    error: state.error,
    loading: protocol !== null && state.key !== key,
    retry,
  };
}

/** Calls `onShortcut` for Ctrl+K / Cmd+K while `enabled` (the pane is shown). */
export function useFocusShortcut(enabled: boolean, onShortcut: () => void): void {
  useEffect(() => {
    if (!enabled) return;
    const onKeyDown = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey && event.key.toLowerCase() === "k") {
        event.preventDefault();
        onShortcut();
      }
    };
    window.addEventListener("keydown", onKeyDown);
    return () => {
      window.removeEventListener("keydown", onKeyDown);
    };
  }, [enabled, onShortcut]);
}

/** The search index of `tools`, rebuilt only when their searchable text changes. */
export function useSearchIndex(tools: ToolView[] | null): SearchIndex | null {
  const [indexed, setIndexed] = useState<{ tools: ToolView[] | null; index: SearchIndex | null }>(() => ({
    tools,
    index: tools === null ? null : buildSearchIndex(tools),
  }));
  if (indexed.tools === tools) return indexed.index;
  // Derived state, updated during render (React's documented pattern) so no frame shows a stale index.
  const reuse = tools !== null && indexed.tools !== null && sameSearchContent(indexed.tools, tools);
  const index = tools === null ? null : reuse ? indexed.index : buildSearchIndex(tools);
  setIndexed({ tools, index });
  return index;
}
