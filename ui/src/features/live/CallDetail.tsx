/**
 * One call opened: its validation (the issues against the schema the agent was given), progress,
 * cancellation, then the request and the response exactly as they were forwarded (from the
 * `message` records, by seq), the result's MCP content readable; opened in the Executor, or
 * copied out as a fixture or as a fault mock (callExport.ts).
 */
import { CopyButton } from "../../lib/CopyButton";
import { formatDuration } from "../../lib/format";
import { useWorkbench } from "../../lib/workbench";
import { McpContentView } from "../results/McpContentView";
import { parseMcpContent } from "../results/mcpContent";
import { callFixture, mockCommand } from "./callExport";
import { callArguments, routingName } from "./executorLink";
import { isObject, type CallEntry, type MessageView } from "./sessionModel";

function pretty(message: MessageView): string {
  return message.msg === null ? (message.text ?? "") : JSON.stringify(message.msg, null, 2);
}

function Message({ title, message, testId }: { title: string; message: MessageView; testId: string }) {
  return (
    <div className="lv-message">
      <h4>
        {title} <span className="muted lv-small">· seq {message.seq} · +{formatDuration(message.ms)} · {message.bytes} bytes</span>
        {message.byProxy && (
          <span className="badge lv-badge-warn" title="Not from the server: the Toolscope proxy answered the agent itself">
            answered by the proxy
          </span>
        )}
      </h4>
      <pre className="lv-code" data-testid={testId}>
        {pretty(message)}
      </pre>
    </div>
  );
}

function ResultContent({ response }: { response: MessageView }) {
  const msg = response.msg;
  if (!isObject(msg)) return null;
  const result = msg.result;
  if (result === undefined) return null;
  const content = parseMcpContent(JSON.stringify(result));
  return content === null ? null : <McpContentView content={content} testId="call-content" />;
}

interface Props {
  /** The proxied server's name: the app's source of that name runs the call again. */
  server: string;
  call: CallEntry;
  messages: ReadonlyMap<number, MessageView>;
}

export function CallDetail({ server, call, messages }: Props) {
  const { loadIntoExecutor } = useWorkbench();
  const request = messages.get(call.seq);
  const target = routingName(server, call.tool);
  const response = call.responseSeq === null ? undefined : messages.get(call.responseSeq);
  const invalid = call.invalid;
  const fixture = callFixture(server, call.tool, request, response);
  const mock = mockCommand(server, call.tool, response);
  return (
    <section className="lv-detail" aria-label={`Call ${call.tool}`} data-testid="call-detail">
      <h3>
        <code>{call.tool}</code> <span className="muted lv-small">id {call.id}</span>
      </h3>
      <p className="lv-buttons">
        <button
          type="button"
          className="button button-small"
          onClick={() => {
            loadIntoExecutor(target, callArguments(request));
          }}
          title={`Runs ${target}: add the server in Sources under the name "${server}" to run it there`}
          data-testid="call-open-executor"
        >
          Open in Executor
        </button>
        {fixture !== null && <CopyButton text={fixture} label="Copy as fixture" testId="call-copy-fixture" />}
        {mock !== null && <CopyButton text={mock} label="Copy as fault mock" testId="call-copy-mock" />}
      </p>
      <p className="muted lv-small">
        {call.outcome === "pending" ? "Waiting for the answer." : `Answered in ${formatDuration(call.latencyMs)} (${call.outcome.replace("_", " ")}).`}
      </p>
      {invalid !== null && (
        <div className="lv-invalid" data-testid="call-issues">
          <p>
            {invalid.unknownTool
              ? "This tool was not in the last tools/list the agent received."
              : "The arguments do not match the tool's inputSchema the agent was given."}{" "}
            {invalid.enforced ? "The proxy refused the call (--enforce): the server never saw it." : "The call was forwarded anyway."}
          </p>
          {invalid.issues.length > 0 && (
            <ul>
              {invalid.issues.map((issue, i) => (
                <li key={i}>
                  <code>{issue.path || "/"}</code>: {issue.message}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {call.progress.length > 0 && (
        <ul className="lv-progress" aria-label="Progress">
          {call.progress.map((p) => (
            <li key={p.seq} className="muted lv-small">
              +{formatDuration(p.ms)} progress {p.progress}
              {p.total !== null && ` of ${p.total}`}
              {p.message !== null && `: ${p.message}`}
            </li>
          ))}
        </ul>
      )}
      {call.cancelled !== null && (
        <p className="lv-warn-text lv-small">
          Cancelled by {call.cancelled.dir === "agent_to_server" ? "the agent" : "the server"} at +{formatDuration(call.cancelled.ms)}
          {call.cancelled.reason !== null && `: ${call.cancelled.reason}`}
        </p>
      )}
      {call.error !== null && <p className="lv-error-text">{call.error}</p>}
      {response && <ResultContent response={response} />}
      {request ? <Message title="Request" message={request} testId="call-request" /> : <p className="muted">The request's line could not be read.</p>}
      {response && <Message title="Response" message={response} testId="call-response" />}
    </section>
  );
}
