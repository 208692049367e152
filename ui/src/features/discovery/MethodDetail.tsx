/**
 * The selected method: routing name, behaviour badges, description, VCP command, parameter and
 * output schemas, and "Load into executor" with the parameters' defaults as starting arguments.
 */
import { memo, useMemo } from "react";

import type { MethodView, ToolView } from "../../lib/ipc";
import { useWorkbench } from "../../lib/workbench";
import { methodBadges } from "./annotations";
import { exampleArgs } from "./schema";
import { SchemaView } from "./SchemaView";

// Memoised: the pane renders on every search keystroke, and the selection does not change then.
export const MethodDetail = memo(function MethodDetail({ tool, method }: { tool: ToolView; method: MethodView }) {
  const { loadIntoExecutor } = useWorkbench();
  const { meta } = method;
  const badges = useMemo(() => methodBadges(meta), [meta]);
  const args = useMemo(() => exampleArgs(meta.parameters), [meta.parameters]);
  const argsText = useMemo(() => JSON.stringify(args), [args]);
  const vcpCommand = meta.protocol_config?.vcp_command;
  const outputSchema = meta.output_schema;

  return (
    <article className="dv-detail" data-testid="method-detail" aria-labelledby="dv-detail-title">
      <header className="dv-detail-head">
        <h3 id="dv-detail-title">
          <code>{method.routing_name}</code>
        </h3>
        <p className="dv-detail-sub">
          method <code>{meta.name}</code> of <strong>{tool.name}</strong> <code className="dv-muted">{tool.id}</code> ·{" "}
          {tool.source}
          {!tool.enabled && <span className="dv-badge dv-badge-muted">tool disabled</span>}
        </p>
        <ul className="dv-badges" aria-label="Annotations">
          {badges.map((badge) => (
            <li key={badge.label} className={`dv-badge dv-badge-${badge.tone}`} title={badge.hint}>
              {badge.label}
            </li>
          ))}
        </ul>
      </header>

      {meta.description !== "" ? (
        <p className="dv-detail-description">{meta.description}</p>
      ) : (
        <p className="dv-muted">No description: a model sees only the name.</p>
      )}

      {vcpCommand && (
        <p className="dv-detail-line" data-testid="vcp-command">
          VCP command <code>{vcpCommand}</code>
        </p>
      )}

      <div className="dv-detail-actions">
        <button
          type="button"
          className="button dv-primary"
          data-testid="load-into-executor"
          onClick={() => {
            loadIntoExecutor(method.routing_name, args);
          }}
        >
          Load into executor
        </button>
        <code className="dv-args" title="Starting arguments: the defaults of the top-level parameters">
          {argsText}
        </code>
      </div>

      <section className="dv-detail-section" aria-label="Parameters">
        <h4>Parameters</h4>
        <SchemaView schema={meta.parameters} role="parameters" label={`Parameters of ${method.routing_name}`} testId="parameter-schema" />
      </section>

      {outputSchema !== undefined && outputSchema !== null && (
        <section className="dv-detail-section" aria-label="Output">
          <h4>Output</h4>
          <SchemaView schema={outputSchema} role="output" label={`Output of ${method.routing_name}`} testId="output-schema" />
        </section>
      )}
    </article>
  );
});
