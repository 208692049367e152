/** The JSON editor's own commands: undo/redo history and Enter with indentation. */
import { json } from "@codemirror/lang-json";
import { EditorState, Transaction } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { afterEach, describe, expect, it } from "vitest";

import { basicEditing, insertNewlineAndIndent, redo, undo } from "./editorCommands";

const views: EditorView[] = [];

function makeView(doc: string, cursor = doc.length) {
  const view = new EditorView({
    state: EditorState.create({ doc, selection: { anchor: cursor }, extensions: [json(), basicEditing()] }),
    parent: document.body.appendChild(document.createElement("div")),
  });
  views.push(view);
  return view;
}

afterEach(() => {
  for (const view of views.splice(0)) view.destroy();
});

describe("history", () => {
  it("undoes and redoes typing, grouping quick keystrokes", () => {
    const view = makeView("{}", 1);
    for (const [index, ch] of ["a", "b"].entries()) {
      view.dispatch({ changes: { from: 1 + index, insert: ch }, userEvent: "input.type" });
    }
    expect(view.state.doc.toString()).toBe("{ab}");
    expect(undo(view)).toBe(true);
    expect(view.state.doc.toString()).toBe("{}");
    expect(redo(view)).toBe(true);
    expect(view.state.doc.toString()).toBe("{ab}");
    expect(redo(view)).toBe(false);
  });

  it("undoes a replacement from outside (a loaded draft) as one step", () => {
    const view = makeView('{"a": 1}');
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: '{"b": 2}' }, userEvent: "set" });
    undo(view);
    expect(view.state.doc.toString()).toBe('{"a": 1}');
    expect(undo(view)).toBe(false);
  });

  it("leaves out changes marked as not for the history", () => {
    const view = makeView("{}");
    view.dispatch({ changes: { from: 1, insert: "x" }, annotations: Transaction.addToHistory.of(false) });
    expect(undo(view)).toBe(false);
  });
});

describe("Enter", () => {
  it("opens an empty object onto its own indented line", () => {
    const view = makeView("{}", 1);
    insertNewlineAndIndent(view);
    expect(view.state.doc.toString()).toBe("{\n  \n}");
    expect(view.state.selection.main.head).toBe(4);
  });

  it("keeps the indentation of the structure it is in", () => {
    const view = makeView('{\n  "a": 1,', 11);
    insertNewlineAndIndent(view);
    expect(view.state.doc.toString()).toBe('{\n  "a": 1,\n  ');
  });
});
