/**
 * The JSON editor's schema awareness, from codemirror-json-schema: lint against the method's
 * parameter schema, completion of property names and enum values, hover documentation. Kept in
 * one module so the schema can be swapped on a live editor (`setEditorSchema`).
 */
import { jsonLanguage } from "@codemirror/lang-json";
import { linter } from "@codemirror/lint";
import type { Extension } from "@codemirror/state";
import { hoverTooltip, type EditorView } from "@codemirror/view";
import type { RJSFSchema } from "@rjsf/utils";
import {
  handleRefresh,
  jsonCompletion,
  jsonSchemaHover,
  jsonSchemaLinter,
  stateExtensions,
  updateSchema,
} from "codemirror-json-schema";

export function schemaSupport(schema: RJSFSchema | undefined): Extension {
  return [
    linter(jsonSchemaLinter(), { needsRefresh: handleRefresh, delay: 300 }),
    jsonLanguage.data.of({ autocomplete: jsonCompletion() }),
    hoverTooltip(jsonSchemaHover()),
    stateExtensions(schema),
  ];
}

export function setEditorSchema(view: EditorView, schema: RJSFSchema | undefined): void {
  updateSchema(view, schema);
}
