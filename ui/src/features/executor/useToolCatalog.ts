/**
 * The methods the Executor can complete and describe, by routing name, from
 * `ipc.listTools(null, true)` (non-callable ones included: the backend classifies them).
 * Reloaded (quietly) whenever the pane becomes active, so tools registered meanwhile show up,
 * and on `sources-changed` (MCP servers and HTTP tool files come and go while the app runs).
 */
import { useCallback, useEffect, useState } from "react";

import { errorMessage, ipc, type MethodMetadata, type ToolSource, type ToolView } from "../../lib/ipc";
import { useSourcesChanged } from "../../lib/useSourcesChanged";

export interface CatalogMethod {
  routingName: string;
  meta: MethodMetadata;
  toolId: string;
  toolName: string;
  source: ToolSource;
  /** Whether the tool is enabled in the tool-calling config. */
  enabled: boolean;
}

export interface ToolCatalog {
  methods: ReadonlyMap<string, CatalogMethod>;
  loading: boolean;
  error: string | null;
  reload: () => void;
}

function toCatalog(tools: readonly ToolView[]): Map<string, CatalogMethod> {
  const methods = new Map<string, CatalogMethod>();
  for (const tool of tools) {
    for (const method of tool.methods) {
      methods.set(method.routing_name, {
        routingName: method.routing_name,
        meta: method.meta,
        toolId: tool.id,
        toolName: tool.name,
        source: tool.source,
        enabled: tool.enabled,
      });
    }
  }
  return methods;
}

const NONE: ReadonlyMap<string, CatalogMethod> = new Map();

export function useToolCatalog(active: boolean): ToolCatalog {
  const [loaded, setLoaded] = useState<{ methods: ReadonlyMap<string, CatalogMethod> | null; error: string | null }>({
    methods: null,
    error: null,
  });
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    if (!active) return;
    let current = true;
    ipc.listTools(null, true).then(
      (tools) => {
        if (current) setLoaded({ methods: toCatalog(tools), error: null });
      },
      (reason: unknown) => {
        if (current) setLoaded((previous) => ({ methods: previous.methods, error: errorMessage(reason) }));
      },
    );
    return () => {
      current = false;
    };
  }, [active, generation]);

  const reload = useCallback(() => {
    setGeneration((g) => g + 1);
  }, []);
  useSourcesChanged(reload);

  return {
    methods: loaded.methods ?? NONE,
    loading: loaded.methods === null && loaded.error === null,
    error: loaded.error,
    reload,
  };
}
