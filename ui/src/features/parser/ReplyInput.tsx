/**
 * The reply text itself: a CodeMirror 6 editor, because a textarea lays out all of a 5 MB reply
 * on every change (measured in WebKitGTK: 15 s to show it, 12 s per typed character) while
 * CodeMirror renders only what is on screen. Uncontrolled: the pane reads the text through
 * `onChange` and the handle, and never writes it back.
 */
import { history, historyKeymap, insertNewline, standardKeymap } from "@codemirror/commands";
import { EditorState, type Transaction } from "@codemirror/state";
import { drawSelection, EditorView, keymap, placeholder, type ViewUpdate } from "@codemirror/view";
import { useEffect, useImperativeHandle, useRef, type Ref } from "react";

import { ReplyText } from "./replyText";

export interface ReplyInputHandle {
  /** The text now; made into a string only when read as one. */
  getText: () => ReplyText;
  /** Selects [from, to) (UTF-16 offsets) and scrolls the editor, not the page, to it. */
  select: (from: number, to: number) => void;
  focus: () => void;
  /** Replaces the whole text (a reply opened from another pane), undoable like an edit. */
  load: (text: string) => void;
}

interface Props {
  ref: Ref<ReplyInputHandle>;
  /** Id of the element naming the editor. */
  labelledBy: string;
  /** `whole` is true when the change pasted or dropped text rather than typed it. */
  onChange: (text: ReplyText, whole: boolean) => void;
  /**
   * A pasted or dropped text that is about to become the whole document, before the editor
   * takes it in (splitting a 5 MB reply into lines and laying it out takes tens of
   * milliseconds): a parse can start meanwhile. `onChange` follows as usual.
   */
  onWholeText?: (text: string) => void;
}

const brought = (tr: Transaction) => tr.isUserEvent("input.paste") || tr.isUserEvent("input.drop");

/**
 * Where `pos` is on screen (its top), read from the DOM: scroll handlers run inside an update,
 * where the view's own geometry methods refuse to measure. The position is rendered by then
 * (the view brings a scroll target into its viewport first).
 */
function topOf(editor: EditorView, pos: number): number {
  const { node, offset } = editor.domAtPos(pos);
  const length = node.textContent?.length ?? 0;
  if (node.nodeType === Node.TEXT_NODE && length > 0) {
    // One character's box: a collapsed range may have no box at all.
    const character = document.createRange();
    const start = Math.min(offset, length - 1);
    character.setStart(node, start);
    character.setEnd(node, start + 1);
    return character.getBoundingClientRect().top;
  }
  const element = node instanceof Element ? node : node.parentElement;
  return element?.getBoundingClientRect().top ?? 0;
}

/** Whether the update's only change made the new document out of inserted text alone. */
function replacedEverything(update: ViewUpdate): boolean {
  let all = true;
  update.changes.iterChanges((_fromA, _toA, fromB, toB) => {
    if (fromB !== 0 || toB !== update.state.doc.length) all = false;
  });
  return all;
}

/** Whether inserting text at the selection of `state` replaces the whole document. */
function replacesAll(state: EditorState): boolean {
  const { ranges, main } = state.selection;
  return ranges.length === 1 && main.from === 0 && main.to === state.doc.length;
}

export function ReplyInput({ ref, labelledBy, onChange, onWholeText }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const text = useRef(ReplyText.empty);
  const report = useRef(onChange);
  const reportWhole = useRef(onWholeText);
  const initialLabel = useRef(labelledBy);
  // Where select() asked to scroll: that one scroll moves only the editor.
  const scrollTo = useRef<number | null>(null);

  useEffect(() => {
    report.current = onChange;
    reportWhole.current = onWholeText;
  }, [onChange, onWholeText]);

  useEffect(() => {
    const parent = host.current;
    if (!parent) return;
    // The last pasted or dropped string: when it became the whole document, it is the text as a
    // string already, so the parse right after a 5 MB paste does not join the document again.
    let lastInput: string | null = null;
    const editor = new EditorView({
      parent,
      state: EditorState.create({
        extensions: [
          history(),
          drawSelection(),
          // A reply is prose: Enter is a plain line break (no copied indentation), and Tab is
          // left to the browser so the keyboard can leave the editor. Ctrl+Enter and Esc are not
          // bound here: they reach the pane's shortcuts (run all, cancel).
          keymap.of([{ key: "Enter", run: insertNewline, shift: insertNewline }, ...standardKeymap, ...historyKeymap]),
          placeholder("Paste a model reply with tool calls…"),
          EditorView.lineWrapping,
          EditorView.contentAttributes.of({
            "aria-labelledby": initialLabel.current,
            "aria-multiline": "true",
            spellcheck: "false",
            autocorrect: "off",
            autocapitalize: "off",
          }),
          EditorView.clipboardInputFilter.of((input, state) => {
            lastInput = input;
            // Text with "\r" becomes other text in the document (line breaks are normalised).
            // A drop lands where it is dropped: then the document is not this text, and the
            // parse started here is superseded by the one `onChange` asks for.
            if (input !== "" && !input.includes("\r") && replacesAll(state)) reportWhole.current?.(input);
            return input;
          }),
          EditorView.scrollHandler.of((target, range) => {
            if (scrollTo.current === null || range.from !== scrollTo.current) return false;
            scrollTo.current = null;
            // A third of the way down, like the annotated view; the page itself does not move.
            const scroller = target.scrollDOM;
            scroller.scrollTop += topOf(target, range.from) - scroller.getBoundingClientRect().top - scroller.clientHeight / 3;
            return true;
          }),
          EditorView.updateListener.of((update) => {
            if (!update.docChanged) return;
            const whole = update.transactions.some(brought);
            const known =
              whole && lastInput !== null && lastInput.length === update.state.doc.length && !lastInput.includes("\r") && replacedEverything(update)
                ? lastInput
                : null;
            lastInput = null;
            text.current = new ReplyText(update.state.doc, known);
            report.current(text.current, whole);
          }),
        ],
      }),
    });
    view.current = editor;
    text.current = new ReplyText(editor.state.doc);
    return () => {
      editor.destroy();
      view.current = null;
    };
  }, []);

  useImperativeHandle(
    ref,
    () => ({
      getText: () => text.current,
      select(from, to) {
        const editor = view.current;
        if (!editor) return;
        const end = editor.state.doc.length;
        const anchor = Math.min(from, end);
        scrollTo.current = anchor;
        editor.dispatch({ selection: { anchor, head: Math.min(to, end) }, effects: EditorView.scrollIntoView(anchor) });
      },
      focus() {
        view.current?.focus();
      },
      load(value) {
        const editor = view.current;
        if (!editor) return;
        editor.dispatch({
          changes: { from: 0, to: editor.state.doc.length, insert: value },
          selection: { anchor: 0 },
          userEvent: "input.load",
          scrollIntoView: true,
        });
      },
    }),
    [],
  );

  return <div ref={host} className="parser-input" data-testid="parser-input" />;
}
