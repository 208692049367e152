/**
 * The parsed reply, read-only, with every request span and diagnostic span marked (`<mark>`,
 * coloured by kind and severity). Clicking a mark selects its item in the lists. A reply over
 * {@link FULL_VIEW_LIMIT} bytes is shown only as excerpts around the spans, so a multi-megabyte
 * paste never turns into megabytes of DOM. The text is rendered as text nodes, never as HTML.
 */
import { Fragment, memo, useDeferredValue, useEffect, useMemo, useRef, useState, type ReactNode } from "react";

import { annotateRange, excerptAt, excerptWindows, type Annotation, type Excerpt, type Piece } from "./annotations";
import { formatBytes, formatCount, plural } from "./format";
import type { Selection } from "./selection";

/** Replies up to this many UTF-8 bytes are rendered whole. */
export const FULL_VIEW_LIMIT = 200 * 1024;
/** Excerpts rendered at first (and added by "show more"). */
const EXCERPT_PAGE = 100;
/** Excerpts rendered with a new parse before the rest of the page (a box shows a few). */
const FIRST_EXCERPTS = 8;
const NO_EXCERPTS: readonly Excerpt[] = [];

interface Props {
  text: string;
  byteLength: number;
  /** Sorted as by `buildAnnotations`. */
  annotations: readonly Annotation[];
  selection: Selection | null;
  onSelect: (id: string) => void;
}

export const AnnotatedView = memo(function AnnotatedView({ text, byteLength, annotations, selection, onSelect }: Props) {
  const box = useRef<HTMLDivElement>(null);
  const huge = byteLength > FULL_VIEW_LIMIT;

  // Scroll the box (not the page) to a span picked in the lists.
  useEffect(() => {
    if (selection?.source !== "list") return;
    const container = box.current;
    const mark = container?.querySelector(`[data-ann="${selection.id}"]`);
    if (!container || !mark) return;
    const offset = mark.getBoundingClientRect().top - container.getBoundingClientRect().top;
    container.scrollTop += offset - container.clientHeight / 3;
  }, [selection]);

  return (
    <div className="parser-annotated-wrap">
      <div
        ref={box}
        className="parser-annotated"
        data-testid="parser-annotated"
        data-mode={huge ? "excerpts" : "full"}
        aria-label="Parsed reply with request and diagnostic spans marked"
        role="region"
        tabIndex={0}
      >
        {huge ? (
          <Excerpts text={text} annotations={annotations} selection={selection} onSelect={onSelect} />
        ) : (
          <FullText text={text} annotations={annotations} selectedId={selection?.id ?? null} onSelect={onSelect} />
        )}
      </div>
      {huge ? (
        <p className="muted parser-annotated-note">
          The reply is {formatBytes(byteLength)}: only the text around its spans is shown here.
        </p>
      ) : null}
    </div>
  );
});

function FullText({
  text,
  annotations,
  selectedId,
  onSelect,
}: {
  text: string;
  annotations: readonly Annotation[];
  selectedId: string | null;
  onSelect: (id: string) => void;
}) {
  const pieces = useMemo(() => annotateRange(text, 0, text.length, annotations), [text, annotations]);
  return <pre className="parser-annotated-text">{renderPieces(pieces, selectedId, onSelect)}</pre>;
}

function Excerpts({
  text,
  annotations,
  selection,
  onSelect,
}: {
  text: string;
  annotations: readonly Annotation[];
  selection: Selection | null;
  onSelect: (id: string) => void;
}) {
  const [limit, setLimit] = useState(EXCERPT_PAGE);
  const windows = useMemo(() => excerptWindows(text, annotations), [text, annotations]);
  // As in the request list (usePagedList): new excerpts render the few the box shows first, and
  // the rest of the page in a deferred render.
  const settled = useDeferredValue(windows, NO_EXCERPTS);
  const count = settled === windows ? limit : Math.min(limit, FIRST_EXCERPTS);
  // The longest span: how far before a window an annotation reaching into it can start.
  const longest = useMemo(() => annotations.reduce((most, a) => Math.max(most, a.end - a.start), 0), [annotations]);
  const selected = useMemo(
    () => (selection ? annotations.find((a) => a.id === selection.id) : undefined),
    [annotations, selection],
  );
  // The excerpt of the selected span is shown even when it lies beyond the limit.
  const extra = selected ? excerptAt(windows, selected.start) : -1;
  const shown = useMemo(() => {
    const indices = windows.slice(0, count).map((_, i) => i);
    if (extra >= count) indices.push(extra);
    const picked = indices.flatMap((i) => {
      const window = windows[i];
      return window ? [{ index: i, window }] : [];
    });
    return picked.map(({ index, window }, k) => {
      const inside = annotationsIn(annotations, window, longest);
      const skipped = window.from - (picked[k - 1]?.window.to ?? 0);
      return { index, window, skipped, pieces: annotateRange(text, window.from, window.to, inside) };
    });
  }, [windows, count, extra, annotations, text, longest]);

  if (windows.length === 0) return <p className="muted">No spans to show.</p>;
  return (
    <>
      {shown.map(({ index, window, skipped, pieces }) => {
        return (
          <Fragment key={index}>
            {skipped > 0 ? <div className="parser-excerpt-gap">⋯ {plural(skipped, "character")} not shown ⋯</div> : null}
            <pre className="parser-annotated-text parser-excerpt" data-from={window.from}>
              {renderPieces(pieces, selection?.id ?? null, onSelect)}
            </pre>
          </Fragment>
        );
      })}
      {limit < windows.length ? (
        <div className="parser-excerpt-gap">
          <button
            type="button"
            className="button"
            onClick={() => {
              setLimit((n) => n + EXCERPT_PAGE);
            }}
          >
            Show more excerpts ({formatCount(windows.length - limit)} more)
          </button>
        </div>
      ) : null}
    </>
  );
}

/**
 * The annotations (sorted by start, as by `buildAnnotations`) that touch `window`: only those
 * starting at most `longest` before it can, found by a binary search instead of a scan of every
 * annotation for every window (100 windows × 5,000 spans in a 5 MB reply).
 */
function annotationsIn(annotations: readonly Annotation[], window: Excerpt, longest: number): Annotation[] {
  let low = 0;
  let high = annotations.length;
  const from = window.from - longest;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((annotations[middle]?.start ?? 0) < from) low = middle + 1;
    else high = middle;
  }
  const inside: Annotation[] = [];
  for (let i = low; i < annotations.length; i += 1) {
    const a = annotations[i];
    if (!a || a.start > window.to) break;
    const touches = a.start === a.end ? a.start >= window.from : a.start < window.to && a.end > window.from;
    if (touches) inside.push(a);
  }
  return inside;
}

function renderPieces(pieces: readonly Piece[], selectedId: string | null, onSelect: (id: string) => void): ReactNode[] {
  return pieces.map((piece) => {
    if (piece.type === "text") return <Fragment key={piece.key}>{piece.text}</Fragment>;
    const { annotation } = piece;
    const classes = ["parser-mark", `parser-mark-${annotation.kind}`];
    if (annotation.start === annotation.end) classes.push("parser-mark-empty");
    if (annotation.id === selectedId) classes.push("is-selected");
    return (
      <mark
        key={piece.key}
        className={classes.join(" ")}
        data-ann={annotation.id}
        data-kind={annotation.kind}
        title={annotation.label}
        onClick={(event) => {
          event.stopPropagation();
          onSelect(annotation.id);
        }}
      >
        {renderPieces(piece.children, selectedId, onSelect)}
      </mark>
    );
  });
}
