/**
 * A proxied call taken out of the Live pane as a fixture: the request and the response exactly
 * as they were forwarded (a pair a test of the agent or of the server can replay), and the
 * recorded answer as a fault plan's mock, so the same answer can be given to the agent again
 * whatever the server says next (`toolscope proxy fault --mock`, docs/proxy.md).
 */
import type { Value } from "../../lib/ipc";
import { isObject, type MessageView } from "./sessionModel";
import { shellWord } from "./snippets";

/** The pair as one JSON document; `null` when neither line could be read as JSON. */
export function callFixture(server: string, tool: string, request: MessageView | undefined, response: MessageView | undefined): string | null {
  const msg = (m: MessageView | undefined): Value | null => m?.msg ?? null;
  if (msg(request) === null && msg(response) === null) return null;
  return JSON.stringify({ server, tool, request: msg(request), response: msg(response) }, null, 2);
}

/**
 * The command that makes the proxy answer this tool's calls with this response's result; `null`
 * when the response has no result (an error is injected with `--error`, not a mock).
 */
export function mockCommand(server: string, tool: string, response: MessageView | undefined): string | null {
  const msg = response?.msg;
  if (!isObject(msg) || !isObject(msg.result)) return null;
  return ["toolscope", "proxy", "fault", "--name", server, "--tool", tool, "--mock", JSON.stringify(msg.result)].map(shellWord).join(" ");
}
