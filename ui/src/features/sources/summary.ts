/**
 * What the server list shows of a transport. Header values and env values are often secrets
 * (tokens, keys): the list names them but never shows them, and a URL's query values and
 * password are masked. The approval dialog is the one place that shows a command line whole.
 */
import type { McpTransport } from "../../lib/ipc";

const PLAIN = /^[A-Za-z0-9\-_./:=@%+,]+$/;

/** Quoted the way the backend quotes a command line for approval. */
export function shellQuote(text: string): string {
  return PLAIN.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

/** A URL with its password and query values replaced by `***`. */
export function maskUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    // Unparsable (e.g. `${VAR}` in the host): hide everything after a `?`.
    const query = text.indexOf("?");
    return query < 0 ? text : `${text.slice(0, query)}?***`;
  }
  if (url.password !== "") url.password = "***";
  const keys = [...new Set(url.searchParams.keys())];
  if (keys.length === 0) return url.href;
  url.search = "";
  return `${url.href}?${keys.map((key) => `${encodeURIComponent(key)}=***`).join("&")}`;
}

export interface TransportSummary {
  /** The command line without env, or the (masked) URL. */
  main: string;
  /** Names of env variables or headers (values withheld). */
  names: string[];
  namesLabel: "env" | "headers";
  cwd: string | null;
}

export function summarize(transport: McpTransport): TransportSummary {
  if (transport.type === "stdio") {
    return {
      main: [transport.command, ...(transport.args ?? [])].map(shellQuote).join(" "),
      names: Object.keys(transport.env ?? {}),
      namesLabel: "env",
      cwd: transport.cwd ?? null,
    };
  }
  return { main: maskUrl(transport.url), names: Object.keys(transport.headers ?? {}), namesLabel: "headers", cwd: null };
}
