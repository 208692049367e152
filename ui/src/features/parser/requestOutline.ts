/**
 * Reading a parse's request outline (`ParsedReply.outline`): every request's name, span and
 * place in the text, packed as numbers by the app so a reply with thousands of calls answers
 * in a few bytes each. The pane counts, marks and matches requests through it; the requests
 * themselves (arguments, ids, checks) arrive a page at a time (`useParser.loadRequests`).
 */
import type { RequestOutline, TextRange } from "../../lib/ipc";

/** Numbers per request in `RequestOutline.places` (src-tauri/commands/parsed_requests.rs). */
export const PLACE_FIELDS = 7;

/** How many of them would run (their check found nothing wrong). */
export function validCount(outline: RequestOutline): number {
  return outline.count - outline.invalid.length;
}

/** The tool name of request `index`. */
export function nameAt(outline: RequestOutline, index: number): string {
  return outline.names[outline.places[index * PLACE_FIELDS] ?? -1] ?? "";
}

/** The UTF-8 byte span of request `index`, as its `span`. */
export function spanAt(outline: RequestOutline, index: number): { start: number; end: number } {
  const at = index * PLACE_FIELDS;
  return { start: outline.places[at + 1] ?? 0, end: outline.places[at + 2] ?? 0 };
}

/** Where request `index` sits in the text as the pane indexes it. */
export function rangeAt(outline: RequestOutline, index: number): TextRange {
  const at = index * PLACE_FIELDS;
  const p = outline.places;
  return { from: p[at + 3] ?? 0, to: p[at + 4] ?? 0, line: p[at + 5] ?? 1, column: p[at + 6] ?? 1 };
}
