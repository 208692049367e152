/**
 * Where a proxied call goes when it is opened in the Executor: the app's own source of the same
 * name, by the routing rule of src-tauri/engine/src/naming.rs (`{source}_{tool}`, the tool's
 * name with anything outside [A-Za-z0-9-] as `-`). When no source has that name, the Executor
 * says so and offers the closest names.
 */
import type { Value } from "../../lib/ipc";
import { isObject, type MessageView } from "./sessionModel";

const MAX_METHOD_NAME = 64;

export function routingName(server: string, tool: string): string {
  const source = server.trim().replace(/[^A-Za-z0-9._-]/g, "-");
  const method = tool.replace(/[^A-Za-z0-9-]/g, "-").slice(0, MAX_METHOD_NAME);
  return `${source}_${method}`;
}

/** The arguments of a recorded `tools/call` request, or `{}` when it had none. */
export function callArguments(request: MessageView | undefined): Record<string, Value> {
  const msg = request?.msg;
  if (!isObject(msg) || !isObject(msg.params)) return {};
  const args = msg.params.arguments;
  return isObject(args) ? args : {};
}
