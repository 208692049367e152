// Text into a CodeMirror editor (the Parser's reply input) the way a user puts a reply there: a
// real paste. setNativeValue cannot do it (the editor is a contenteditable, with no value), and
// typing a whole reply key by key would take minutes. CodeMirror's paste handler reads
// `event.clipboardData`, so a ClipboardEvent carrying a DataTransfer takes the same path as
// Ctrl+V (a transaction with the user event "input.paste", which the Parser parses at once).
// bench.mjs does the same inside its timed page script.

import { E2EError } from "./harness.mjs";

/**
 * In the page: focuses the `.cm-content` under `selector`, selects everything through the
 * editor's own Ctrl+A (a DOM selection would cover only the lines on screen), then pastes
 * `text`. Returns null, or why it could not.
 */
function pasteInPage(selector, text) {
  const root = document.querySelector(selector);
  const content = root?.matches(".cm-content") ? root : root?.querySelector(".cm-content");
  if (!content) return root ? `${selector} holds no .cm-content (not a CodeMirror editor?)` : `${selector} is not in the DOM`;
  content.focus();
  content.dispatchEvent(new KeyboardEvent("keydown", { key: "a", code: "KeyA", keyCode: 65, ctrlKey: true, bubbles: true, cancelable: true }));
  const data = new DataTransfer();
  data.setData("text/plain", text);
  const paste = new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true });
  content.dispatchEvent(paste);
  // CodeMirror cancels the event once it has inserted the text itself.
  return paste.defaultPrevented ? null : "the editor did not handle the paste event";
}

/** Replaces the text of the CodeMirror editor at `selector` by pasting `text`. */
export async function pasteInto(browser, selector, text) {
  const problem = await browser.execute(pasteInPage, selector, text);
  if (problem) throw new E2EError(`cannot paste into ${selector}: ${problem}`);
}
