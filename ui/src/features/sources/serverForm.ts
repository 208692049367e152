/**
 * The add/edit form of an MCP server as plain text fields, and its conversion to and from a
 * `McpServerConfig`: args one per line, env as `KEY=VALUE` lines, headers as `Name: value`
 * lines. Validation names the field and the line, so the message can sit next to it.
 */
import type { McpServerConfig, OAuthClientConfig } from "../../lib/ipc";

export type TransportType = "stdio" | "http";

export interface ServerFields {
  name: string;
  type: TransportType;
  command: string;
  args: string;
  env: string;
  cwd: string;
  url: string;
  headers: string;
  enabled: boolean;
  /** An HTTP server's sign-in settings: not edited here yet, kept as they are on save. */
  oauth: OAuthClientConfig | null;
}

export type FieldName = "name" | "command" | "args" | "env" | "cwd" | "url" | "headers";
export type FieldErrors = Partial<Record<FieldName, string>>;

export const EMPTY_FIELDS: ServerFields = {
  name: "",
  type: "stdio",
  command: "",
  args: "",
  env: "",
  cwd: "",
  url: "",
  headers: "",
  enabled: true,
  oauth: null,
};

export function fieldsOf(config: McpServerConfig): ServerFields {
  const { transport } = config;
  const base = { ...EMPTY_FIELDS, name: config.name, enabled: config.enabled ?? true };
  if (transport.type === "stdio") {
    return {
      ...base,
      type: "stdio",
      command: transport.command,
      args: (transport.args ?? []).join("\n"),
      env: Object.entries(transport.env ?? {})
        .map(([key, value]) => `${key}=${value}`)
        .join("\n"),
      cwd: transport.cwd ?? "",
    };
  }
  return {
    ...base,
    type: "http",
    url: transport.url,
    headers: Object.entries(transport.headers ?? {})
      .map(([key, value]) => `${key}: ${value}`)
      .join("\n"),
    oauth: transport.oauth ?? null,
  };
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function lines(text: string): { line: number; text: string }[] {
  return text
    .split("\n")
    .map((line, index) => ({ line: index + 1, text: line.replace(/\r$/, "") }))
    .filter((entry) => entry.text.trim() !== "");
}

function pairs(
  text: string,
  separator: string,
  validName: RegExp,
  what: string,
): { values: Record<string, string>; error?: string } {
  const values: Record<string, string> = {};
  for (const { line, text: entry } of lines(text)) {
    const at = entry.indexOf(separator);
    const key = (at < 0 ? entry : entry.slice(0, at)).trim();
    if (at < 0) return { values, error: `line ${String(line)}: expected ${what}` };
    if (!validName.test(key)) return { values, error: `line ${String(line)}: '${key}' is not a valid name` };
    if (key in values) return { values, error: `line ${String(line)}: '${key}' is given twice` };
    values[key] = separator === ":" ? entry.slice(at + 1).trim() : entry.slice(at + 1);
  }
  return { values };
}

export type FormResult = { ok: true; config: McpServerConfig } | { ok: false; errors: FieldErrors };

/** The config the fields describe, or what is wrong with them, by field. */
export function toConfig(fields: ServerFields, takenNames: readonly string[] = []): FormResult {
  const errors: FieldErrors = {};
  const name = fields.name.trim();
  if (name === "") errors.name = "A server needs a name.";
  else if (takenNames.includes(name)) errors.name = `A server named '${name}' exists already.`;

  let config: McpServerConfig | null = null;
  if (fields.type === "stdio") {
    const command = fields.command.trim();
    if (command === "") errors.command = "The program to start is required.";
    const env = pairs(fields.env, "=", ENV_NAME, "KEY=VALUE");
    if (env.error) errors.env = env.error;
    const cwd = fields.cwd.trim();
    config = {
      name,
      enabled: fields.enabled,
      transport: {
        type: "stdio",
        command,
        args: lines(fields.args).map((entry) => entry.text.trim()),
        env: env.values,
        cwd: cwd === "" ? null : cwd,
      },
    };
  } else {
    const url = fields.url.trim();
    if (url === "") errors.url = "The server's URL is required.";
    else if (!isHttpUrl(url)) errors.url = "Expected an http:// or https:// URL.";
    const headers = pairs(fields.headers, ":", HEADER_NAME, "Name: value");
    if (headers.error) errors.headers = headers.error;
    const transport = { type: "http" as const, url, headers: headers.values };
    config = { name, enabled: fields.enabled, transport: fields.oauth ? { ...transport, oauth: fields.oauth } : transport };
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, config };
}

function isHttpUrl(text: string): boolean {
  // `${VAR}` is expanded from the environment when the server starts.
  if (text.includes("${")) return /^https?:\/\/\S+$/i.test(text);
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}
