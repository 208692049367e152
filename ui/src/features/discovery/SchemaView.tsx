/**
 * A JSON Schema shown readably: one table row per property (nested objects, array items,
 * typed extra keys and oneOf/anyOf/allOf variants indented under their parent), with the raw
 * JSON a click away.
 */
import { useMemo } from "react";

import type { Value } from "../../lib/ipc";
import { hasNoParameters, isObject, rootNotes, schemaRows, typeLabel, type SchemaRow } from "./schema";

const KIND_HINT: Record<SchemaRow["kind"], string> = {
  property: "",
  items: "each item of the array",
  additional: "any other key",
  variant: "one of the alternatives",
};

export interface SchemaViewProps {
  schema: Value;
  /** Parameters are an object of named arguments; an output may be any type. */
  role: "parameters" | "output";
  label: string;
  testId: string;
}

export function SchemaView({ schema, role, label, testId }: SchemaViewProps) {
  const rows = useMemo(() => schemaRows(schema), [schema]);
  const notes = useMemo(() => rootNotes(schema), [schema]);
  const raw = useMemo(() => JSON.stringify(schema, null, 2), [schema]);

  return (
    <div className="dv-schema" data-testid={testId}>
      {notes.map((note) => (
        <p key={note} className="dv-schema-note">
          {note}
        </p>
      ))}
      {role === "parameters" && hasNoParameters(schema) && <p className="dv-schema-note">No parameters.</p>}
      {role === "output" && rows.length === 0 && isObject(schema) && (
        <p className="dv-schema-note">
          Returns <code>{typeLabel(schema)}</code>
        </p>
      )}
      {rows.length > 0 && (
        <table className="dv-schema-table" aria-label={label}>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <SchemaTableRow key={row.path} row={row} />
            ))}
          </tbody>
        </table>
      )}
      <details className="dv-raw">
        <summary>Raw JSON</summary>
        <pre>{raw}</pre>
      </details>
    </div>
  );
}

function SchemaTableRow({ row }: { row: SchemaRow }) {
  return (
    <tr data-testid={`schema-row-${row.path}`} data-depth={row.depth}>
      <th scope="row" className="dv-schema-name">
        {/* Depth varies per schema, so the indent is computed; style is set through the
            CSSOM, which the app's CSP allows. */}
        <span className="dv-indent" style={{ paddingInlineStart: `${String(row.depth * 1.1)}rem` }}>
          {row.depth > 0 && (
            <span className="dv-branch" aria-hidden="true">
              └{" "}
            </span>
          )}
          <code className={row.kind === "property" ? undefined : "dv-synthetic-name"} title={KIND_HINT[row.kind] || undefined}>
            {row.name}
          </code>
          {row.required && (
            <span className="dv-required" title="required">
              required
            </span>
          )}
        </span>
      </th>
      <td className="dv-schema-type">
        <code>{row.type}</code>
      </td>
      <td className="dv-schema-details">
        {row.description !== null && <p className="dv-schema-description">{row.description}</p>}
        {(row.defaultValue !== null || row.enumValues.length > 0 || row.constraints.length > 0) && (
          <p className="dv-schema-facts">
            {row.defaultValue !== null && (
              <span className="dv-fact">
                default <code>{row.defaultValue}</code>
              </span>
            )}
            {row.enumValues.length > 0 && (
              <span className="dv-fact">
                one of{" "}
                {row.enumValues.map((value) => (
                  <code key={value} className="dv-enum">
                    {value}
                  </code>
                ))}
              </span>
            )}
            {row.constraints.map((constraint) => (
              <span key={constraint} className="dv-fact">
                {constraint}
              </span>
            ))}
          </p>
        )}
      </td>
    </tr>
  );
}
