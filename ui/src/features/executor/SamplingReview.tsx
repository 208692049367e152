/**
 * What an MCP server's sampling request would send to a model, shown before the person approves
 * it (`sampling/createMessage`): the endpoint that would answer, the system prompt, each message
 * whole, the token limit, and the parts of the request Toolscope does not follow.
 */
import type { SamplingReview as Review } from "../../lib/ipc";

/** `summaryId` names the line saying which model would answer (the dialog's description). */
export function SamplingReview({ review, summaryId }: { review: Review; summaryId: string }) {
  const { request, endpoint } = review;
  return (
    <div className="ex-sampling" data-testid="sampling-review">
      <p id={summaryId}>
        Model <code data-testid="sampling-model">{endpoint.model}</code> at <code>{endpoint.base_url}</code>{" "}
        (profile <code>{endpoint.profile}</code>), up to {request.max_tokens} tokens
        {request.temperature !== null && <>, temperature {request.temperature}</>}.
      </p>
      {request.system_prompt !== null && (
        <section>
          <h4>System prompt</h4>
          <pre className="ex-sampling-text">{request.system_prompt}</pre>
        </section>
      )}
      <section>
        <h4>{request.messages.length === 1 ? "Message" : `${String(request.messages.length)} messages`}</h4>
        <ol className="ex-sampling-messages">
          {request.messages.map((message, index) => (
            <li key={index} data-testid="sampling-message">
              <span className="muted">{message.role}</span>
              <pre className="ex-sampling-text">{message.text}</pre>
            </li>
          ))}
        </ol>
      </section>
      <NotFollowed review={review} />
    </div>
  );
}

function NotFollowed({ review: { request } }: { review: Review }) {
  const notes: string[] = [];
  if (request.model_hints.length > 0) {
    notes.push(`The server prefers ${request.model_hints.join(", ")}; the chosen profile's model answers.`);
  }
  if (request.include_context !== null) {
    notes.push(`It asks to include context (${request.include_context}); none is added.`);
  }
  if (request.stop_sequences.length > 0) {
    notes.push(`Stop sequences ${request.stop_sequences.map((s) => JSON.stringify(s)).join(", ")} are not sent.`);
  }
  if (notes.length === 0) return null;
  return (
    <ul className="muted ex-sampling-notes">
      {notes.map((note) => (
        <li key={note}>{note}</li>
      ))}
    </ul>
  );
}
