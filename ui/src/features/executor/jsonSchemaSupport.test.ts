/**
 * The real codemirror-json-schema wiring: lint against the schema, and a schema swapped on a
 * live editor. (The package is inlined for vitest in vite.config.ts: its ESM build uses
 * extension-less imports that Node's loader cannot resolve.)
 */
import { json } from "@codemirror/lang-json";
import { diagnosticCount, forceLinting } from "@codemirror/lint";
import { EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import type { RJSFSchema } from "@rjsf/utils";
import { describe, expect, it } from "vitest";

import { schemaSupport, setEditorSchema } from "./jsonSchemaSupport";

async function settle(view: EditorView) {
  forceLinting(view);
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe("jsonSchemaSupport", () => {
  it("lints the document against the schema and follows a schema change", async () => {
    const strict: RJSFSchema = { type: "object", properties: { path: { type: "string" } } };
    const loose: RJSFSchema = { type: "object", properties: { path: { type: "number" } } };
    const view = new EditorView({
      state: EditorState.create({ doc: '{"path": 1}', extensions: [json(), schemaSupport(strict)] }),
      parent: document.body.appendChild(document.createElement("div")),
    });
    await settle(view);
    expect(diagnosticCount(view.state)).toBeGreaterThan(0);
    setEditorSchema(view, loose);
    await settle(view);
    expect(diagnosticCount(view.state)).toBe(0);
    view.destroy();
  });
});
