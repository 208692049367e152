/**
 * Faults for a proxied server, set from the Live pane while its proxy runs
 * (`proxy_faults_read`, `proxy_fault_set`): the running proxy reads the plan again within a
 * fraction of a second. Each tool's call can be delayed, answered with an error, or answered
 * with a mock: typed here, or one of the app's imported tools' own mocks.
 */
import { useCallback, useEffect, useState } from "react";

import { errorMessage, ipc, type FaultChange, type ProxyFaults } from "../../lib/ipc";
import { FaultForm } from "./FaultForm";
import { describeFault } from "./faultModel";

interface Props {
  name: string;
  /** The tools of the last listing the agent received, to choose from. */
  tools: readonly string[];
}

export function FaultControl({ name, tools }: Props) {
  const [faults, setFaults] = useState<ProxyFaults | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let current = true;
    ipc.proxyFaultsRead(name).then(
      (read) => {
        if (current) setFaults(read);
      },
      (reason: unknown) => {
        if (current) setError(errorMessage(reason));
      },
    );
    return () => {
      current = false;
    };
  }, [name]);

  const change = useCallback(
    async (tool: string, next: FaultChange): Promise<boolean> => {
      try {
        setFaults(await ipc.proxyFaultSet(name, tool, next));
        setError(null);
        return true;
      } catch (reason) {
        setError(errorMessage(reason));
        return false;
      }
    },
    [name],
  );

  const entries = Object.entries(faults?.plan.tools ?? {});
  return (
    <details className="lv-faults" data-testid="faults">
      <summary>
        Faults {entries.length > 0 && <span className="badge lv-badge-warn">{entries.length} set</span>}
      </summary>
      <p className="muted lv-small">
        A running <code>toolscope proxy mcp --name {name}</code> applies a change within a fraction of a second; faults stay, for later
        sessions too, until cleared.
      </p>
      {entries.length === 0 ? (
        <p className="muted lv-small">No faults: every call reaches the server.</p>
      ) : (
        <ul className="lv-fault-list">
          {entries.map(([tool, fault]) => (
            <li key={tool} data-testid="fault-entry">
              <code>{tool}</code>: {describeFault(fault)}{" "}
              <button
                type="button"
                className="button button-small"
                onClick={() => {
                  void change(tool, { kind: "clear" });
                }}
                aria-label={`Clear the fault of ${tool}`}
              >
                Clear
              </button>
            </li>
          ))}
        </ul>
      )}
      <FaultForm tools={tools} onSet={change} />
      {error !== null && (
        <p className="lv-error-text" role="alert">
          {error}
        </p>
      )}
    </details>
  );
}
