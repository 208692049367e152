/**
 * What a conversation can be given: the wire formats (`list_protocols`, for prompted tools) and
 * the agent-callable methods of the enabled tools (`list_tools`), refreshed when the pane is
 * shown again and when a tool source changes.
 */
import { useEffect, useState } from "react";

import { errorMessage, ipc, type ProtocolInfo } from "../../lib/ipc";
import { useSourcesChanged } from "../../lib/useSourcesChanged";

export interface OfferedMethod {
  routingName: string;
  toolName: string;
  description: string;
}

export interface Catalog {
  protocols: ProtocolInfo[];
  methods: OfferedMethod[];
  error: string | null;
}

export function useCatalog(active: boolean): Catalog {
  const [protocols, setProtocols] = useState<ProtocolInfo[]>([]);
  const [methods, setMethods] = useState<OfferedMethod[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [changes, setChanges] = useState(0);
  useSourcesChanged(() => {
    setChanges((n) => n + 1);
  });

  useEffect(() => {
    if (!active) return;
    let live = true;
    Promise.all([ipc.listProtocols(), ipc.listTools(null, false)]).then(
      ([formats, tools]) => {
        if (!live) return;
        setProtocols(formats);
        setMethods(
          tools
            .filter((tool) => tool.enabled)
            .flatMap((tool) =>
              tool.methods
                .filter((m) => m.meta.agent_callable)
                .map((m) => ({ routingName: m.routing_name, toolName: tool.name, description: m.meta.description })),
            ),
        );
        setError(null);
      },
      (reason: unknown) => {
        if (live) setError(errorMessage(reason));
      },
    );
    return () => {
      live = false;
    };
  }, [active, changes]);

  return { protocols, methods, error };
}
