/**
 * Parser pane: paste a model reply, see the tool calls it makes (parsed as you type, debounced),
 * where they and every diagnostic sit in the text, whether the registry accepts them, send one to
 * the Executor, or run them all (results stream in beside their requests, confirmations are
 * asked in a dialog) and copy the formatted results block back into the conversation.
 */
import "./parser.css";

import { useCallback, useDeferredValue, useEffect, useMemo, useRef, useState } from "react";

import { Timed } from "../../lib/renderProfile";
import { useWorkbench } from "../../lib/workbench";
import { AnnotatedView } from "./AnnotatedView";
import { annotationOf, buildAnnotations } from "./annotations";
import { ConfirmDialog } from "./ConfirmDialog";
import { DiagnosticList } from "./DiagnosticList";
import { matchResults } from "./matchResults";
import { ErrorNotice, ParseSummary } from "./ParseSummary";
import { AUTO_FORMAT, ReplyEditor } from "./ReplyEditor";
import type { ReplyInputHandle } from "./ReplyInput";
import { ReplyText } from "./replyText";
import { RequestList } from "./RequestList";
import { REGISTRY, RequestToolsPicker, requestToolsChoice, sameTools } from "./RequestToolsPicker";
import { RunPanel } from "./RunPanel";
import type { Selection } from "./selection";
import { useParser } from "./useParser";
import { usePaneShortcuts } from "./usePaneShortcuts";
import { FormatProblems } from "./FormatProblems";
import { useProtocols } from "./useProtocols";
import { StreamReplayView } from "./StreamReplayView";
import { useRun } from "./useRun";

export function ParserPane({ active }: { active: boolean }) {
  const { loadIntoExecutor, parserDraft } = useWorkbench();
  const editor = useRef<ReplyInputHandle>(null);
  // Kept unjoined: typing passes the document along, and the string is built when needed.
  const [text, setText] = useState(ReplyText.empty);
  const [format, setFormat] = useState(AUTO_FORMAT);
  const [toolsSource, setToolsSource] = useState(REGISTRY);
  const [pastedTools, setPastedTools] = useState("");
  const [strict, setStrict] = useState(false);
  const [selection, setSelection] = useState<Selection | null>(null);
  const parser = useParser();
  const { run, start, cancel, answer } = useRun();
  const { protocols, problems: formatProblems, error: protocolsError } = useProtocols(active);
  const formatArg = format === AUTO_FORMAT ? null : format;
  const tools = useMemo(() => requestToolsChoice(toolsSource, pastedTools), [toolsSource, pastedTools]);
  const { snapshot, schedule, parseNow, loadRequests } = parser;
  const running = run.status === "running";

  // The spans view follows a new answer in a render of its own, after the frame showing the
  // summary and the lists: marking thousands of spans is most of an answer's rendering.
  const spansSnapshot = useDeferredValue(snapshot);
  const spans = useMemo(() => (spansSnapshot ? buildAnnotations(spansSnapshot.reply) : null), [spansSnapshot]);
  // A span's line:column for the lists, read from the answer without building all annotations:
  // a string, so the lists' memoised items stay as they were when nothing about them changed.
  const locationOf = useCallback(
    (id: string) => {
      const annotation = snapshot ? annotationOf(snapshot.reply, id) : undefined;
      return annotation ? `${String(annotation.position.line)}:${String(annotation.position.column)}` : undefined;
    },
    [snapshot],
  );

  const matched = useMemo(() => matchResults(snapshot, run), [snapshot, run]);

  const onTextChange = useCallback(
    (value: ReplyText, whole: boolean) => {
      setText(value);
      // A paste or a drop is a whole reply: waiting for more typing would only delay it.
      if (whole) parseNow(value.toString(), formatArg, tools, strict);
      else schedule(() => value.toString(), formatArg, tools, strict);
    },
    [schedule, parseNow, formatArg, tools, strict],
  );

  // A paste that replaces the whole reply is parsed while the editor takes it in; the parse
  // `onTextChange` then asks for is the same one, already on its way.
  const onWholeText = useCallback(
    (value: string) => {
      parseNow(value, formatArg, tools, strict);
    },
    [parseNow, formatArg, tools, strict],
  );

  // A reply opened from another pane (a recorded turn) replaces the text, in its format. The
  // format is taken while rendering; the editor, outside React, takes the text in an effect.
  const [shownDraft, setShownDraft] = useState(0);
  if (parserDraft && parserDraft.nonce !== shownDraft) {
    const known = parserDraft.format === AUTO_FORMAT || protocols.some((p) => p.id === parserDraft.format);
    // The formats arrive after a first opening: wait for them rather than fall back to auto.
    if (known || protocols.length > 0 || protocolsError) {
      setShownDraft(parserDraft.nonce);
      setFormat(known ? parserDraft.format : AUTO_FORMAT);
    }
  }
  const loadedDraft = useRef(0);
  useEffect(() => {
    if (parserDraft?.nonce !== shownDraft || loadedDraft.current === shownDraft) return;
    loadedDraft.current = shownDraft;
    editor.current?.load(parserDraft.text);
    parseNow(parserDraft.text, formatArg, tools, strict);
  }, [parserDraft, shownDraft, formatArg, parseNow, tools, strict]);

  const onFormatChange = (next: string) => {
    setFormat(next);
    parseNow(text.toString(), next === AUTO_FORMAT ? null : next, tools, strict);
  };

  const onToolsSourceChange = (next: string) => {
    setToolsSource(next);
    parseNow(text.toString(), formatArg, requestToolsChoice(next, pastedTools), strict);
  };

  const onStrictChange = (next: boolean) => {
    setStrict(next);
    parseNow(text.toString(), formatArg, tools, next);
  };

  const onPastedToolsChange = (next: string) => {
    setPastedTools(next);
    schedule(() => text.toString(), formatArg, requestToolsChoice(toolsSource, next), strict);
  };

  const runAll = () => {
    if (running || text.length === 0) return;
    const value = text.toString();
    if (
      snapshot?.text !== value ||
      snapshot.format !== formatArg ||
      !sameTools(snapshot.tools, tools) ||
      snapshot.strict !== strict
    ) {
      parseNow(value, formatArg, tools, strict);
    }
    void start(value, formatArg, tools);
  };

  const selectFromList = useCallback(
    (id: string) => {
      setSelection({ id, source: "list" });
      const annotation = snapshot ? annotationOf(snapshot.reply, id) : undefined;
      const input = editor.current;
      // Select the span in the editor too, when the editor still holds the parsed text.
      if (!annotation || !input || !snapshot || !input.getText().equals(snapshot.text)) return;
      input.select(annotation.start, annotation.end);
    },
    [snapshot],
  );

  const selectFromText = useCallback((id: string) => {
    setSelection({ id, source: "text" });
  }, []);

  const send = useCallback(
    (index: number) => {
      const request = snapshot?.reply.report.requests[index];
      if (!request) return;
      // A call to a request tool runs as its imported set's method: the Executor takes that.
      const check = snapshot.reply.checks[index];
      loadIntoExecutor(check?.routing_name ?? request.tool_name, request.args);
    },
    [snapshot, loadIntoExecutor],
  );

  const confirmation = run.confirmations[0];
  usePaneShortcuts(active, {
    runAll,
    escape: () => {
      if (confirmation) {
        answer(confirmation.confirmationId, false);
        return true;
      }
      if (running) {
        cancel();
        return true;
      }
      return false;
    },
  });

  const report = snapshot?.reply.report;
  const requestCount = snapshot?.reply.outline.count ?? 0;
  const moreRequests = useMemo(() => ({ total: requestCount, load: loadRequests }), [requestCount, loadRequests]);
  return (
    <Timed id="parser">
      <section className="pane parser-pane" aria-labelledby="parser-title" data-active={active}>
        <div className="pane-head">
          <div>
            <h2 id="parser-title">Parser</h2>
            <p className="muted">
              Paste a model reply: its tool calls are parsed as you type, checked against the registry or the request&apos;s
              own tools, and can be run (Ctrl+Enter).
            </p>
          </div>
        </div>
        {protocolsError ? <ErrorNotice title="Could not list the formats" error={protocolsError} /> : null}
        <FormatProblems problems={formatProblems} />
        <div className="parser-top">
          <ReplyEditor
            editorRef={editor}
            length={text.length}
            onTextChange={onTextChange}
            onWholeText={onWholeText}
            format={format}
            protocols={protocols}
            onFormatChange={onFormatChange}
            onParse={() => {
              parseNow(text.toString(), formatArg, tools, strict);
            }}
            onRunAll={runAll}
            onCancel={cancel}
            running={running}
            cancelling={run.cancelling}
          />
          <div className="parser-annotated-col">
            <span className="parser-label">Spans</span>
            {spansSnapshot && spans ? (
              <Timed id="spans">
                <AnnotatedView
                  text={spansSnapshot.text}
                  byteLength={spansSnapshot.reply.byte_length}
                  annotations={spans}
                  selection={selection}
                  onSelect={selectFromText}
                />
              </Timed>
            ) : snapshot ? (
              <p className="parser-annotated-empty muted" role="status">
                Marking the spans…
              </p>
            ) : (
              <p className="parser-annotated-empty muted">The parsed reply shows here with its calls and problems marked.</p>
            )}
          </div>
        </div>
        <RequestToolsPicker
          value={toolsSource}
          onValueChange={onToolsSourceChange}
          pasted={pastedTools}
          onPastedChange={onPastedToolsChange}
          strict={strict}
          onStrictChange={onStrictChange}
          info={snapshot?.reply.request_tools ?? null}
        />
        <ParseSummary
          reply={snapshot?.reply ?? null}
          stale={snapshot !== null && !text.equals(snapshot.text)}
          pending={parser.pending}
          error={parser.error}
        />
        <RunPanel run={run} unmatched={matched.unmatched} />
        <StreamReplayView text={text} format={formatArg} />
        {report ? (
          <Timed id="lists">
            <DiagnosticList
              diagnostics={report.diagnostics}
              locationOf={locationOf}
              selection={selection}
              onSelect={selectFromList}
            />
            <RequestList
              requests={report.requests}
              checks={snapshot.reply.checks}
              more={moreRequests}
              locationOf={locationOf}
              results={matched.byRequest}
              running={running && snapshot.text === run.text && snapshot.format === run.format}
              selection={selection}
              onSelect={selectFromList}
              onSend={send}
            />
          </Timed>
        ) : null}
        {confirmation ? (
          <ConfirmDialog
            key={confirmation.confirmationId}
            request={confirmation.request}
            waiting={run.confirmations.length - 1}
            onAnswer={(approve) => {
              answer(confirmation.confirmationId, approve);
            }}
          />
        ) : null}
      </section>
    </Timed>
  );
}
