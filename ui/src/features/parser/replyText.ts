/**
 * The reply editor's text at one moment, made into a string only when something needs one.
 * Joining a 5 MB CodeMirror document costs tens of milliseconds, far over a keystroke's budget:
 * typing only passes this object around (its length is free), and the string is built once per
 * document when the debounced parse, a run or a comparison asks for it.
 */
import { Text } from "@codemirror/state";

export class ReplyText {
  static readonly empty = new ReplyText(Text.empty);

  readonly doc: Text;
  private flat: string | null;

  /** `known` is the document as a string when the caller already has it (saves the join). */
  constructor(doc: Text, known: string | null = null) {
    this.doc = doc;
    this.flat = known;
  }

  /** In UTF-16 code units, like a string's. */
  get length(): number {
    return this.doc.length;
  }

  toString(): string {
    this.flat ??= this.doc.toString();
    return this.flat;
  }

  /** Whether this is exactly `text`; builds no string when the lengths already differ. */
  equals(text: string): boolean {
    return this.doc.length === text.length && this.toString() === text;
  }
}
