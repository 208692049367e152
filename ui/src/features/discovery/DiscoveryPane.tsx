import { useEffect, useState } from "react";

import { ipc, IpcError, type ToolView } from "../../lib/ipc";

type LoadState =
  | { status: "loading" }
  | { status: "error"; error: IpcError }
  | { status: "ready"; tools: ToolView[] };

function asIpcError(reason: unknown): IpcError {
  return reason instanceof IpcError
    ? reason
    : new IpcError("ipc", reason instanceof Error ? reason.message : "unexpected failure");
}

/** Lists the built-in tools and their methods, as the backend's `list_tools` reports them. */
// Accepts `active` like every pane; this list has no pane-wide keyboard shortcuts yet.
export function DiscoveryPane(_props: { active?: boolean }) {
  const [state, setState] = useState<LoadState>({ status: "loading" });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let current = true;
    ipc.listTools(null, true).then(
      (tools) => {
        if (current) setState({ status: "ready", tools });
      },
      (reason: unknown) => {
        if (current) setState({ status: "error", error: asIpcError(reason) });
      },
    );
    return () => {
      current = false;
    };
  }, [attempt]);

  const reload = () => {
    setState({ status: "loading" });
    setAttempt((n) => n + 1);
  };

  return (
    <section className="pane" aria-labelledby="discovery-title">
      <div className="pane-head">
        <div>
          <h2 id="discovery-title">Built-in tools</h2>
          <p className="muted">
            What the engine registers out of the box. A model sees only the agent-callable methods.
          </p>
        </div>
        <button type="button" className="button" onClick={reload} disabled={state.status === "loading"}>
          Reload
        </button>
      </div>
      <DiscoveryBody state={state} />
    </section>
  );
}

function DiscoveryBody({ state }: { state: LoadState }) {
  switch (state.status) {
    case "loading":
      return (
        <p className="status" role="status" aria-live="polite">
          Loading built-in tools…
        </p>
      );
    case "error":
      return (
        <div className="status status-error" role="alert">
          <p>
            <strong>Could not load the built-in tools</strong> <code className="kind">{state.error.kind}</code>
          </p>
          <p>{state.error.message}</p>
        </div>
      );
    case "ready":
      return <ToolList tools={state.tools} />;
  }
}

function ToolList({ tools }: { tools: ToolView[] }) {
  if (tools.length === 0) {
    return (
      <p className="status" role="status">
        No built-in tools are registered yet.
      </p>
    );
  }
  const methodCount = tools.reduce((sum, tool) => sum + tool.methods.length, 0);
  return (
    <>
      <p className="muted summary">
        {tools.length} {tools.length === 1 ? "tool" : "tools"}, {methodCount}{" "}
        {methodCount === 1 ? "method" : "methods"}
      </p>
      <ul className="tool-list" aria-label="Built-in tools">
        {tools.map((tool) => (
          <li key={tool.id} className="tool">
            <div className="tool-head">
              <h3>{tool.name}</h3>
              <code className="tool-id">{tool.id}</code>
              <span className="badge">{tool.source}</span>
            </div>
            {tool.description !== "" && <p className="tool-description">{tool.description}</p>}
            {tool.methods.length === 0 ? (
              <p className="muted">This tool has no methods.</p>
            ) : (
              <ul className="method-list" aria-label={`Methods of ${tool.name}`}>
                {tool.methods.map((method) => (
                  <li key={method.routing_name} className="method">
                    <div className="method-head">
                      <code className="method-name">{method.routing_name}</code>
                      {method.meta.agent_callable ? (
                        <span className="badge badge-ok">agent-callable</span>
                      ) : (
                        <span className="badge badge-muted">not agent-callable</span>
                      )}
                    </div>
                    {method.meta.description !== "" && <p className="method-description">{method.meta.description}</p>}
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
    </>
  );
}
