/**
 * The configured MCP servers: read at start, again on every `sources-changed` event and after
 * each action. Actions run one per server at a time; a failed action's message is kept per
 * server until the next action on it.
 */
import { useCallback, useState } from "react";

import { errorMessage, ipc, type McpServerConfig, type SourceState } from "../../lib/ipc";
import { useSourceQuery } from "./useSourceQuery";

export type ServerAction = "reconnect" | "approve" | "remove" | "enable" | "disable" | "sign in" | "sign out";

export interface McpServers {
  servers: SourceState[] | null;
  loadError: string | null;
  /** Server name → the action running on it. */
  busy: ReadonlyMap<string, ServerAction>;
  /** Server name → why its last action failed. */
  errors: ReadonlyMap<string, string>;
  reload: () => void;
  act: (server: SourceState, action: ServerAction) => Promise<void>;
  /** Gives up a sign-in waiting for the browser; the running "sign in" action then ends. */
  cancelSignIn: (server: SourceState) => void;
  /** Adds (`previousName` null) or updates a server; throws the backend's error. */
  save: (config: McpServerConfig, previousName: string | null) => Promise<SourceState>;
}

function without<K, V>(map: ReadonlyMap<K, V>, key: K): Map<K, V> {
  const next = new Map(map);
  next.delete(key);
  return next;
}

function runAction(server: SourceState, action: ServerAction): Promise<unknown> {
  const name = server.config.name;
  switch (action) {
    case "reconnect":
      return ipc.mcpReconnect(name);
    case "approve":
      return ipc.mcpApprove(name);
    case "sign in":
      return ipc.mcpSignIn(name);
    case "sign out":
      return ipc.mcpSignOut(name);
    case "remove":
      return ipc.mcpRemove(name);
    case "enable":
    case "disable":
      return ipc.mcpUpdate(name, { ...server.config, enabled: action === "enable" });
  }
}

export function useMcpServers(): McpServers {
  const { data: servers, loadError, reload } = useSourceQuery(ipc.mcpServers);
  const [busy, setBusy] = useState<ReadonlyMap<string, ServerAction>>(new Map());
  const [errors, setErrors] = useState<ReadonlyMap<string, string>>(new Map());

  const act = useCallback(
    async (server: SourceState, action: ServerAction) => {
      const name = server.config.name;
      setBusy((previous) => new Map(previous).set(name, action));
      setErrors((previous) => without(previous, name));
      try {
        await runAction(server, action);
      } catch (reason: unknown) {
        setErrors((previous) => new Map(previous).set(name, `Could not ${action}: ${errorMessage(reason)}`));
      } finally {
        setBusy((previous) => without(previous, name));
        reload();
      }
    },
    [reload],
  );

  const save = useCallback(
    async (config: McpServerConfig, previousName: string | null) => {
      const saved = previousName === null ? await ipc.mcpAdd(config) : await ipc.mcpUpdate(previousName, config);
      reload();
      return saved;
    },
    [reload],
  );

  const cancelSignIn = useCallback((server: SourceState) => {
    const name = server.config.name;
    ipc.mcpCancelSignIn(name).catch((reason: unknown) => {
      setErrors((previous) => new Map(previous).set(name, `Could not cancel the sign-in: ${errorMessage(reason)}`));
    });
  }, []);

  return { servers, loadError, busy, errors, reload, act, save, cancelSignIn };
}
