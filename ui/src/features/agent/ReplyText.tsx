/**
 * A turn's text as it grows. In prompted mode the spans the streaming parser reported (call
 * blocks, complete or still open, and diagnostics) are marked; once the turn is parsed the
 * parse's own spans replace them. Spans are UTF-8 byte offsets, mapped to string indices.
 * Rendered as text nodes, never as HTML.
 */
import { Fragment, memo, useMemo, type ReactNode } from "react";

import type { Diagnostic, Span } from "../../lib/ipc";
import { annotateRange, type Annotation, type AnnotationKind, type Piece } from "../parser/annotations";
import { mapByteOffsets } from "../parser/textIndex";
import type { Turn } from "./conversationModel";

interface Marked {
  kind: AnnotationKind;
  span: Span;
  label: string;
}

/** The spans to mark in `turn`'s text. */
export function markedSpans(turn: Turn): Marked[] {
  const diagnostic = (d: Diagnostic): Marked => ({ kind: d.severity, span: d.span, label: `${d.severity} ${d.code}: ${d.message}` });
  if (turn.report) {
    return [
      ...turn.report.requests.map((r, i): Marked => ({ kind: "request", span: r.span, label: `Call ${String(i + 1)}: ${r.tool_name}` })),
      ...turn.report.diagnostics.map(diagnostic),
    ];
  }
  return [
    ...turn.blocks.map((b): Marked => ({
      kind: "request",
      span: { start: b.start, end: b.end },
      label: b.requests.length > 0 ? `Call: ${b.requests.map((r) => r.tool_name).join(", ")}` : "Call block (arriving)",
    })),
    ...turn.diagnostics.map(diagnostic),
  ];
}

function toAnnotations(text: string, marked: readonly Marked[]): Annotation[] {
  const map = mapByteOffsets(text, marked.flatMap((m) => [m.span.start, m.span.end]));
  return marked
    .map((m, index): Annotation => {
      const position = map.at(m.span.start);
      return {
        id: `${m.kind === "request" ? "r" : "d"}${String(index)}`,
        kind: m.kind,
        index,
        start: position.index,
        end: Math.max(position.index, map.at(m.span.end).index),
        position,
        label: m.label,
      };
    })
    // As buildAnnotations sorts: outer spans first, calls before diagnostics on equal spans.
    .sort((a, b) => a.start - b.start || b.end - a.end || rank(a) - rank(b) || a.index - b.index);
}

const rank = (a: Annotation) => (a.kind === "request" ? 0 : 1);

export const ReplyText = memo(function ReplyText({ turn, prompted }: { turn: Turn; prompted: boolean }) {
  const annotations = useMemo(() => (prompted ? toAnnotations(turn.text, markedSpans(turn)) : []), [turn, prompted]);
  const pieces = useMemo(() => annotateRange(turn.text, 0, turn.text.length, annotations), [turn.text, annotations]);
  if (turn.text === "") return null;
  return (
    <pre className="ag-text" data-testid="agent-turn-text" tabIndex={0} aria-label={`Turn ${String(turn.turn)} reply text`}>
      {render(pieces)}
    </pre>
  );
});

function render(pieces: readonly Piece[]): ReactNode[] {
  return pieces.map((piece) => {
    if (piece.type === "text") return <Fragment key={piece.key}>{piece.text}</Fragment>;
    const { annotation } = piece;
    return (
      <mark
        key={piece.key}
        className={`ag-mark ag-mark-${annotation.kind}${annotation.start === annotation.end ? " ag-mark-empty" : ""}`}
        data-kind={annotation.kind}
        title={annotation.label}
      >
        {render(piece.children)}
      </mark>
    );
  });
}
