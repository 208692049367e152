/**
 * JSON mode: a CodeMirror 6 editor over the arguments text. Syntax errors are located by our own
 * scanner (exact in every webview), schema lint / completion / hover come from
 * codemirror-json-schema. The text is owned by the parent: typing reports it, and a different
 * `value` (a loaded draft, a switch from the form) replaces the document.
 * Loaded lazily by the pane, so CodeMirror costs nothing until JSON mode is opened.
 */
import { autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap } from "@codemirror/autocomplete";
import { json } from "@codemirror/lang-json";
import { bracketMatching, indentOnInput, indentUnit, syntaxHighlighting } from "@codemirror/language";
import { lintGutter, linter, lintKeymap, type Diagnostic } from "@codemirror/lint";
import { EditorState, Prec, Transaction } from "@codemirror/state";
import {
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers,
  placeholder,
} from "@codemirror/view";
import type { RJSFSchema } from "@rjsf/utils";
import { classHighlighter } from "@lezer/highlight";
import { useEffect, useRef } from "react";

import { basicEditing } from "./editorCommands";
import { schemaSupport, setEditorSchema } from "./jsonSchemaSupport";
import { locateJsonError } from "./jsonText";

/** Syntax errors with exact positions (WebKit's JSON.parse reports none). */
function syntaxLinter() {
  return linter(
    (view): Diagnostic[] => {
      const text = view.state.doc.toString();
      if (text.trim() === "") return [];
      const found = locateJsonError(text);
      if (!found) return [];
      const from = Math.min(found.offset, text.length);
      return [{ from, to: Math.min(from + 1, text.length), severity: "error", message: found.message, source: "JSON" }];
    },
    { delay: 150 },
  );
}

interface Props {
  value: string;
  onChange: (text: string) => void;
  schema: RJSFSchema | undefined;
  /** Element ids describing the editor (e.g. the inline error). */
  describedBy: string;
}

export default function JsonArgsEditor({ value, onChange, schema, describedBy }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const report = useRef(onChange);
  const initial = useRef({ value, schema, describedBy });
  const appliedSchema = useRef(schema);

  useEffect(() => {
    report.current = onChange;
  }, [onChange]);

  useEffect(() => {
    const parent = host.current;
    if (!parent) return;
    const start = initial.current;
    const editor = new EditorView({
      parent,
      state: EditorState.create({
        doc: start.value,
        extensions: [
          lineNumbers(),
          highlightActiveLineGutter(),
          highlightSpecialChars(),
          highlightActiveLine(),
          indentUnit.of("  "),
          basicEditing(),
          indentOnInput(),
          bracketMatching(),
          closeBrackets(),
          autocompletion(),
          syntaxHighlighting(classHighlighter),
          json(),
          syntaxLinter(),
          schemaSupport(start.schema),
          lintGutter(),
          keymap.of([...closeBracketsKeymap, ...completionKeymap, ...lintKeymap]),
          placeholder('{ "name": "value" }'),
          EditorView.lineWrapping,
          EditorView.contentAttributes.of({
            "aria-label": "Arguments as JSON",
            "aria-multiline": "true",
            "aria-describedby": start.describedBy,
            spellcheck: "false",
          }),
          Prec.low(
            EditorView.updateListener.of((update) => {
              if (update.docChanged) report.current(update.state.doc.toString());
            }),
          ),
        ],
      }),
    });
    view.current = editor;
    return () => {
      editor.destroy();
      view.current = null;
    };
  }, []);

  // A new value from outside (draft, mode switch) replaces the text; the user's own typing is already there.
  useEffect(() => {
    const editor = view.current;
    if (!editor) return;
    const current = editor.state.doc.toString();
    if (current === value) return;
    const head = Math.min(editor.state.selection.main.head, value.length);
    editor.dispatch({
      changes: { from: 0, to: current.length, insert: value },
      selection: { anchor: head },
      annotations: Transaction.userEvent.of("set"),
    });
  }, [value]);

  useEffect(() => {
    const editor = view.current;
    if (!editor || schema === appliedSchema.current) return;
    appliedSchema.current = schema;
    setEditorSchema(editor, schema);
  }, [schema]);

  return <div ref={host} className="ex-json-editor" data-testid="executor-json-editor" />;
}
