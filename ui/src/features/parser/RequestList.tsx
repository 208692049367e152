/**
 * The requests of a parse: index, routing name, request id, arguments as JSON, whether the
 * registry would accept them (or the classified error with its `- /path: message` issues and
 * its suggestion), the run's result once it arrives, and "Send to executor".
 */
import { memo, type MouseEvent } from "react";

import type { ParsedToolRequest, ReplyCheck, ToolExecutionResult } from "../../lib/ipc";
import { CopyAs } from "../results/CopyAs";
import { SuggestionHint } from "../results/SuggestionHint";
import { formatCount, issueLines, plural, prettyJson } from "./format";
import { ResultView } from "./ResultView";
import type { Selection } from "./selection";
import { usePagedList, type MoreItems } from "./usePagedList";

interface Props {
  /** The requests received so far: the first ones of `more.total`. */
  requests: readonly ParsedToolRequest[];
  /** One per request received. */
  checks: readonly ReplyCheck[];
  /** How many requests the parse found, and how to ask for more of them. */
  more: MoreItems;
  /** Where the span of an id starts, as `line:column`. */
  locationOf: (id: string) => string | undefined;
  results: ReadonlyMap<number, ToolExecutionResult>;
  running: boolean;
  selection: Selection | null;
  onSelect: (id: string) => void;
  onSend: (index: number) => void;
}

export const RequestList = memo(function RequestList({ requests, checks, more, locationOf, results, running, selection, onSelect, onSend }: Props) {
  const { list, total, shown, held, rendered, showMore, selectedIndex } = usePagedList(requests, selection, "r", more);
  if (total === 0) return null;
  return (
    <section className="parser-section" aria-labelledby="parser-requests-title">
      <div className="parser-section-head">
        <h3 id="parser-requests-title">Requests</h3>
        <span className="muted">{plural(total, "request")}</span>
      </div>
      <ol ref={list} className="parser-list" aria-labelledby="parser-requests-title">
        {requests.slice(0, rendered).map((request, index) => (
          <RequestItem
            key={index}
            index={index}
            request={request}
            check={checks[index]}
            location={locationOf(`r${String(index)}`)}
            result={results.get(index)}
            running={running}
            selected={index === selectedIndex}
            onSelect={onSelect}
            onSend={onSend}
          />
        ))}
      </ol>
      {held < shown ? (
        <p className="muted parser-loading" role="status">
          Loading requests {formatCount(held + 1)}–{formatCount(shown)}…
        </p>
      ) : null}
      {shown < total ? (
        <button type="button" className="button parser-more" onClick={showMore}>
          Show more requests ({formatCount(total - shown)} more)
        </button>
      ) : null}
    </section>
  );
});

const RequestItem = memo(function RequestItem({
  index,
  request,
  check,
  location,
  result,
  running,
  selected,
  onSelect,
  onSend,
}: {
  index: number;
  request: ParsedToolRequest;
  check: ReplyCheck | undefined;
  /** Where its span starts, as `line:column`. */
  location: string | undefined;
  result: ToolExecutionResult | undefined;
  running: boolean;
  selected: boolean;
  onSelect: (id: string) => void;
  onSend: (index: number) => void;
}) {
  const id = `r${String(index)}`;
  const error = check?.error ?? null;
  const valid = check !== undefined && error === null;
  const issues = issueLines(error?.issues);
  const select = () => {
    onSelect(id);
  };
  const send = (event: MouseEvent) => {
    event.stopPropagation();
    onSend(index);
  };
  return (
    <li
      className={`parser-item parser-request${selected ? " is-selected" : ""}`}
      data-testid="parser-request"
      data-item={id}
      data-tool-name={request.tool_name}
      data-valid={String(valid)}
      tabIndex={-1}
      onClick={select}
    >
      <div className="parser-item-head">
        <button
          type="button"
          className="parser-item-select"
          aria-pressed={selected}
          title="Show this request in the text"
          onClick={(event) => {
            event.stopPropagation();
            select();
          }}
        >
          <span className="parser-index">#{index + 1}</span> <code className="parser-tool-name">{request.tool_name}</code>
        </button>
        <span className="muted parser-request-id">
          id <code>{request.request_id}</code>
        </span>
        {location ? (
          <span className="muted parser-location" title="line:column">
            {location}
          </span>
        ) : null}
        {valid ? (
          <span className="badge badge-ok" data-testid="parser-validation">
            valid
          </span>
        ) : (
          <span className="badge parser-badge-error" data-testid="parser-validation">
            {error?.kind ?? "unchecked"}
          </span>
        )}
        <button type="button" className="button parser-send" data-testid="parser-send" onClick={send}>
          Send to executor
        </button>
        <CopyAs
          source={{
            from: "call",
            call: { request_id: request.request_id, tool_name: check?.routing_name ?? request.tool_name, args: request.args },
            result: result ?? null,
          }}
          hasResult={result !== undefined}
          label={`request ${String(index + 1)}`}
        />
      </div>
      {error ? (
        <div className="parser-check-error" data-testid="parser-check-error">
          <p>
            <code>{error.kind}</code> {error.message}
          </p>
          {issues.length > 0 ? <pre className="parser-issues">{issues.join("\n")}</pre> : null}
          <SuggestionHint error={error} testId="parser-check-suggestion" />
        </div>
      ) : null}
      {request.incomplete ? (
        <p className="muted parser-request-note" data-testid="parser-request-incomplete">
          Cut off before the call closed: its arguments may be partial. Strict drops it.
        </p>
      ) : null}
      {request.typed_without_schema ? (
        <p className="muted parser-request-note" data-testid="parser-request-untyped">
          Typed without a schema: values that are JSON literals were read as such, the rest kept as text. Check against
          the request&apos;s tools to type them from their schemas.
        </p>
      ) : null}
      <pre className="parser-args" aria-label={`Arguments of request ${String(index + 1)}`}>
        {prettyJson(request.args)}
      </pre>
      {result ? <ResultView result={result} /> : running ? <p className="muted parser-waiting">Waiting for the result…</p> : null}
    </li>
  );
});
