/**
 * The few editing commands the JSON editor needs beyond what CodeMirror's core packages give
 * (@codemirror/commands is not installed): undo/redo history and Enter with indentation.
 */
import { getIndentation, IndentContext, indentString } from "@codemirror/language";
import {
  EditorSelection,
  StateEffect,
  StateField,
  Transaction,
  type ChangeSet,
  type EditorState,
  type Extension,
} from "@codemirror/state";
import { keymap, type Command } from "@codemirror/view";

interface Step {
  /** Applied to the current document, restores the previous one. */
  changes: ChangeSet;
  selection: EditorSelection;
  time: number;
  event: string;
}

interface HistoryState {
  done: readonly Step[];
  undone: readonly Step[];
}

const MAX_STEPS = 200;
const GROUP_MS = 600;

const setHistory = StateEffect.define<HistoryState>();

const historyField = StateField.define<HistoryState>({
  create: () => ({ done: [], undone: [] }),
  update(value, tr) {
    for (const effect of tr.effects) if (effect.is(setHistory)) return effect.value;
    if (!tr.docChanged || tr.annotation(Transaction.addToHistory) === false) return value;
    const event = tr.annotation(Transaction.userEvent) ?? "external";
    const inverse = tr.changes.invert(tr.startState.doc);
    const last = value.done[value.done.length - 1];
    const typing = event.startsWith("input.type") || event.startsWith("delete");
    if (last && typing && last.event === event && tr.startState.doc.length > 0 && Date.now() - last.time < GROUP_MS) {
      const merged: Step = { ...last, changes: inverse.compose(last.changes), time: Date.now() };
      return { done: [...value.done.slice(0, -1), merged], undone: [] };
    }
    const step: Step = { changes: inverse, selection: tr.startState.selection, time: Date.now(), event };
    return { done: [...value.done, step].slice(-MAX_STEPS), undone: [] };
  },
});

function move(state: EditorState, dispatch: (tr: Transaction) => void, from: "done" | "undone"): boolean {
  const history = state.field(historyField, false);
  const step = history?.[from][history[from].length - 1];
  if (!history || !step) return false;
  const back: Step = {
    changes: step.changes.invert(state.doc),
    selection: state.selection,
    time: 0,
    event: "history",
  };
  const next: HistoryState =
    from === "done"
      ? { done: history.done.slice(0, -1), undone: [...history.undone, back] }
      : { done: [...history.done, back], undone: history.undone.slice(0, -1) };
  dispatch(
    state.update({
      changes: step.changes,
      selection: step.selection,
      effects: setHistory.of(next),
      annotations: [Transaction.addToHistory.of(false), Transaction.userEvent.of(from === "done" ? "undo" : "redo")],
      scrollIntoView: true,
    }),
  );
  return true;
}

export const undo: Command = (view) =>
  move(view.state, (tr) => {
    view.dispatch(tr);
  }, "done");
export const redo: Command = (view) =>
  move(view.state, (tr) => {
    view.dispatch(tr);
  }, "undone");

/** Enter: a new line indented like the structure around it; between brackets, the closing one moves down. */
export const insertNewlineAndIndent: Command = (view) => {
  const { state } = view;
  const changes = state.changeByRange((range) => {
    const from = range.from;
    const to = range.to;
    const before = state.sliceDoc(from - 1, from);
    const after = state.sliceDoc(to, to + 1);
    const line = state.doc.lineAt(from);
    const current = /^\s*/.exec(line.text)?.[0] ?? "";
    const opens = before === "{" || before === "[";
    const explode = (before === "{" && after === "}") || (before === "[" && after === "]");
    const columns = getIndentation(new IndentContext(state, { simulateBreak: from, simulateDoubleBreak: explode }), from);
    const indent = columns === null ? (opens ? current + indentString(state, 2) : current) : indentString(state, columns);
    if (explode) {
      const insert = `\n${indent}\n${current}`;
      return { changes: { from, to, insert }, range: EditorSelection.cursor(from + 1 + indent.length) };
    }
    const insert = `\n${indent}`;
    return { changes: { from, to, insert }, range: EditorSelection.cursor(from + insert.length) };
  });
  view.dispatch(state.update(changes, { scrollIntoView: true, userEvent: "input" }));
  return true;
};

export function basicEditing(): Extension {
  return [
    historyField,
    keymap.of([
      { key: "Mod-z", run: undo, preventDefault: true },
      { key: "Mod-y", run: redo, preventDefault: true },
      { key: "Mod-Shift-z", run: redo, preventDefault: true },
      { key: "Enter", run: insertNewlineAndIndent },
    ]),
  ];
}
