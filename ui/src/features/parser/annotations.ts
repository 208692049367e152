/**
 * Request and diagnostic spans as annotations over the parsed text, and the pure layout work of
 * the annotated view: nesting possibly overlapping spans into `<mark>` trees, and choosing the
 * excerpts to show when a reply is too large to render whole.
 */
import type { ParsedReply, Severity, TextRange } from "../../lib/ipc";
import { nameAt, rangeAt } from "./requestOutline";
import type { TextPosition } from "./textIndex";

export type AnnotationKind = "request" | Severity;

export interface Annotation {
  /** `r{index}` for a request, `d{index}` for a diagnostic. */
  id: string;
  kind: AnnotationKind;
  /** Index in the report's requests or diagnostics. */
  index: number;
  /** UTF-16 range `[start, end)` in the parsed text. */
  start: number;
  end: number;
  /** Where the span starts. */
  position: TextPosition;
  /** One line describing it (the mark's title). */
  label: string;
}

export const requestAnnotationId = (index: number) => `r${String(index)}`;
export const diagnosticAnnotationId = (index: number) => `d${String(index)}`;

/** Where a span sits, as the app computed it (see `ParsedReply.outline`). */
function placed(range: TextRange | undefined): { start: number; end: number; position: TextPosition } {
  if (!range) return { start: 0, end: 0, position: { index: 0, line: 1, column: 1 } };
  return { start: range.from, end: range.to, position: { index: range.from, line: range.line, column: range.column } };
}

function requestAnnotation(reply: ParsedReply, index: number): Annotation {
  const { outline } = reply;
  return {
    id: requestAnnotationId(index),
    kind: "request",
    index,
    ...placed(rangeAt(outline, index)),
    label: `Request ${String(index + 1)}: ${nameAt(outline, index)}`,
  };
}

function diagnosticAnnotation(reply: ParsedReply, index: number): Annotation | undefined {
  const diagnostic = reply.report.diagnostics[index];
  if (!diagnostic) return undefined;
  return {
    id: diagnosticAnnotationId(index),
    kind: diagnostic.severity,
    index,
    ...placed(reply.diagnostic_ranges[index]),
    label: `${diagnostic.severity} ${diagnostic.code}: ${diagnostic.message}`,
  };
}

/** The annotation `id` (`r{index}` or `d{index}`) of `reply`, without building them all. */
export function annotationOf(reply: ParsedReply, id: string): Annotation | undefined {
  const index = Number(id.slice(1));
  if (!Number.isInteger(index) || index < 0) return undefined;
  if (id.startsWith("r")) return index < reply.outline.count ? requestAnnotation(reply, index) : undefined;
  if (id.startsWith("d")) return diagnosticAnnotation(reply, index);
  return undefined;
}

/**
 * Every request and diagnostic of `reply` at the string positions the app computed for its
 * spans, sorted so that an annotation comes before every annotation it contains (start
 * ascending, end descending, requests before diagnostics on equal spans).
 */
export function buildAnnotations(reply: ParsedReply): Annotation[] {
  const out: Annotation[] = [];
  for (let index = 0; index < reply.outline.count; index++) out.push(requestAnnotation(reply, index));
  reply.report.diagnostics.forEach((_, index) => {
    const annotation = diagnosticAnnotation(reply, index);
    if (annotation) out.push(annotation);
  });
  return out.sort(compareAnnotations);
}

function compareAnnotations(a: Annotation, b: Annotation): number {
  if (a.start !== b.start) return a.start - b.start;
  if (a.end !== b.end) return b.end - a.end;
  const rank = (x: Annotation) => (x.kind === "request" ? 0 : 1);
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  return a.index - b.index;
}

/** A run of plain text, or a mark around nested pieces. */
export type Piece =
  | { type: "text"; key: string; text: string }
  | { type: "mark"; key: string; annotation: Annotation; children: Piece[] };

interface Segment {
  from: number;
  to: number;
  /** Covering annotations, outermost first. */
  annotations: Annotation[];
}

/**
 * The pieces of `text.slice(from, to)` with every annotation (sorted as by
 * {@link buildAnnotations}) clipped to the range. Nested spans become nested marks; a span that
 * only partly overlaps another is split at the boundary. Empty spans become empty marks.
 */
export function annotateRange(text: string, from: number, to: number, annotations: readonly Annotation[]): Piece[] {
  const rank = new Map<Annotation, number>();
  const starting = new Map<number, Annotation[]>();
  const boundaries = new Set<number>([from, to]);
  annotations.forEach((annotation, order) => {
    const point = annotation.start === annotation.end;
    const start = Math.max(annotation.start, from);
    const end = Math.min(annotation.end, to);
    if (point ? annotation.start < from || annotation.start > to : start >= end) return;
    rank.set(annotation, order);
    boundaries.add(start);
    boundaries.add(end);
    const list = starting.get(start);
    if (list) list.push(annotation);
    else starting.set(start, [annotation]);
  });
  const byRank = (a: Annotation, b: Annotation) => (rank.get(a) ?? 0) - (rank.get(b) ?? 0);
  const points = [...boundaries].sort((a, b) => a - b);
  const segments: Segment[] = [];
  let active: Annotation[] = [];
  points.forEach((at, i) => {
    active = active.filter((annotation) => Math.min(annotation.end, to) > at);
    const empty: Annotation[] = [];
    for (const annotation of starting.get(at) ?? []) {
      if (annotation.start === annotation.end) empty.push(annotation);
      else active.push(annotation);
    }
    active.sort(byRank);
    // An empty span contains nothing: it is the innermost mark where it sits.
    for (const annotation of empty) segments.push({ from: at, to: at, annotations: [...active, annotation] });
    const next = points[i + 1];
    if (next !== undefined && next > at) segments.push({ from: at, to: next, annotations: [...active] });
  });
  return group(text, segments, 0);
}

function group(text: string, segments: Segment[], depth: number): Piece[] {
  const pieces: Piece[] = [];
  let i = 0;
  while (i < segments.length) {
    const first = segments[i];
    if (!first) break;
    const annotation = first.annotations[depth];
    let j = i + 1;
    if (!annotation) {
      // Consecutive unmarked segments at this depth are one run of text.
      while (j < segments.length && segments[j]?.annotations[depth] === undefined) j += 1;
      const last = segments[j - 1] ?? first;
      const slice = text.slice(first.from, last.to);
      if (slice) pieces.push({ type: "text", key: `t${String(first.from)}`, text: slice });
      i = j;
      continue;
    }
    while (j < segments.length && segments[j]?.annotations[depth] === annotation) j += 1;
    pieces.push({
      type: "mark",
      key: `${annotation.id}@${String(first.from)}`,
      annotation,
      children: group(text, segments.slice(i, j), depth + 1),
    });
    i = j;
  }
  return pieces;
}

/** A window of the text shown when the whole reply is too large to render. */
export interface Excerpt {
  from: number;
  to: number;
}

export interface ExcerptOptions {
  /** Characters of context around each span. */
  context: number;
  /** A span longer than twice this shows only its first and last `edge` characters. */
  edge: number;
}

const DEFAULT_EXCERPTS: ExcerptOptions = { context: 160, edge: 1200 };

/** Moves `at` off the middle of a surrogate pair (towards `direction`). */
function snap(text: string, at: number, direction: -1 | 1): number {
  if (at <= 0 || at >= text.length) return Math.max(0, Math.min(at, text.length));
  const before = text.charCodeAt(at - 1);
  const here = text.charCodeAt(at);
  const split = before >= 0xd800 && before <= 0xdbff && here >= 0xdc00 && here <= 0xdfff;
  return split ? at + (direction < 0 ? -1 : 1) : at;
}

/**
 * Sorted, non-overlapping windows around every annotation: its start and end with some
 * context (extended to a nearby line break), long spans cut to their two ends.
 */
export function excerptWindows(
  text: string,
  annotations: readonly Annotation[],
  options: ExcerptOptions = DEFAULT_EXCERPTS,
): Excerpt[] {
  const { context, edge } = options;
  const raw: Excerpt[] = [];
  const widen = (from: number, to: number) => {
    let start = Math.max(0, from - context);
    let end = Math.min(text.length, to + context);
    const lineStart = start > 0 ? text.lastIndexOf("\n", start - 1) : -1;
    if (lineStart >= 0 && start - lineStart <= context / 2) start = lineStart + 1;
    const lineEnd = end < text.length ? text.indexOf("\n", end) : -1;
    if (lineEnd >= 0 && lineEnd - end <= context / 2) end = lineEnd;
    raw.push({ from: snap(text, start, -1), to: snap(text, end, 1) });
  };
  for (const annotation of annotations) {
    if (annotation.end - annotation.start <= 2 * edge) {
      widen(annotation.start, annotation.end);
    } else {
      widen(annotation.start, annotation.start + edge);
      widen(annotation.end - edge, annotation.end);
    }
  }
  raw.sort((a, b) => a.from - b.from);
  const merged: Excerpt[] = [];
  for (const window of raw) {
    const last = merged[merged.length - 1];
    if (last && window.from <= last.to) last.to = Math.max(last.to, window.to);
    else merged.push({ ...window });
  }
  return merged;
}

/** Index of the excerpt containing `at` (binary search), or -1. */
export function excerptAt(excerpts: readonly Excerpt[], at: number): number {
  let low = 0;
  let high = excerpts.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const excerpt = excerpts[middle];
    if (!excerpt) return -1;
    if (at < excerpt.from) high = middle - 1;
    else if (at > excerpt.to) low = middle + 1;
    else return middle;
  }
  return -1;
}
