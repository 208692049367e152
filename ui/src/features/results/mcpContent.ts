/**
 * Recognises a tool result that is MCP's own JSON shape (`{"content": [...],
 * "structuredContent"?: ...}`, what the MCP provider keeps for anything richer than one text
 * block) and reads its blocks into a form that is safe to render: text stays text, images
 * become `data:` URLs only for image MIME types and base64 data, and nothing is ever HTML.
 */
import type { Value } from "../../lib/ipc";

type JsonObject = Record<string, Value>;

export type McpBlock =
  | { kind: "text"; text: string }
  | { kind: "image"; mimeType: string; bytes: number; src: string | null }
  | { kind: "audio"; mimeType: string; bytes: number; src: string | null }
  | { kind: "resource"; uri: string; mimeType: string | null; text: string | null; bytes: number | null; name: string | null }
  | { kind: "other"; type: string; json: string };

export interface McpContent {
  blocks: McpBlock[];
  /** Pretty JSON of `structuredContent`, when present. */
  structured: string | null;
  /** The whole result, pretty-printed. */
  raw: string;
}

/** Longest result text looked at; longer ones are shown raw. */
const LIMIT = 8 * 1024 * 1024;
const KEYS = new Set(["content", "structuredContent", "isError", "_meta"]);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const IMAGE_MIME = /^image\/[A-Za-z0-9.+-]+$/;
const AUDIO_MIME = /^audio\/[A-Za-z0-9.+-]+$/;

/** A `data:` URL for base64 media of an allowed MIME type, else null. */
function dataUrl(mimeType: string, data: string, allowed: RegExp): { src: string | null; bytes: number } {
  const compact = data.replace(/\s/g, "");
  const safe = allowed.test(mimeType) && BASE64.test(compact);
  return { src: safe ? `data:${mimeType};base64,${compact}` : null, bytes: base64Bytes(compact) };
}

function isObject(value: Value | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function str(value: Value | undefined): string | null {
  return typeof value === "string" ? value : null;
}

/** Decoded size of base64 text. */
export function base64Bytes(data: string): number {
  const clean = data.replace(/\s/g, "");
  const padding = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

function block(value: JsonObject): McpBlock {
  const type = str(value.type) ?? "";
  const mimeType = str(value.mimeType) ?? "";
  switch (type) {
    case "text":
      if (typeof value.text === "string") return { kind: "text", text: value.text };
      break;
    case "image": {
      const data = str(value.data);
      if (data === null) break;
      return { kind: "image", mimeType, ...dataUrl(mimeType, data, IMAGE_MIME) };
    }
    case "audio": {
      const data = str(value.data);
      if (data === null) break;
      return { kind: "audio", mimeType, ...dataUrl(mimeType, data, AUDIO_MIME) };
    }
    case "resource": {
      const resource = value.resource;
      if (!isObject(resource) || str(resource.uri) === null) break;
      const blob = str(resource.blob);
      return {
        kind: "resource",
        uri: str(resource.uri) ?? "",
        mimeType: str(resource.mimeType),
        text: str(resource.text),
        bytes: blob === null ? null : base64Bytes(blob),
        name: str(resource.name) ?? str(resource.title),
      };
    }
    case "resource_link": {
      const uri = str(value.uri);
      if (uri === null) break;
      return {
        kind: "resource",
        uri,
        mimeType: str(value.mimeType),
        text: str(value.description),
        bytes: typeof value.size === "number" ? value.size : null,
        name: str(value.title) ?? str(value.name),
      };
    }
  }
  return { kind: "other", type: type === "" ? "unknown" : type, json: JSON.stringify(value, null, 2) };
}

/** The MCP content of a result text, or null when the text is not that shape. */
export function parseMcpContent(text: string): McpContent | null {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{") || trimmed.length > LIMIT || !trimmed.includes('"content"')) return null;
  let value: Value;
  try {
    value = JSON.parse(trimmed) as Value;
  } catch {
    return null;
  }
  if (!isObject(value) || !Array.isArray(value.content)) return null;
  if (Object.keys(value).some((key) => !KEYS.has(key))) return null;
  const content = value.content;
  if (!content.every((item) => isObject(item) && typeof item.type === "string")) return null;
  const blocks = content.filter(isObject).map(block);
  const structured = "structuredContent" in value ? JSON.stringify(value.structuredContent, null, 2) : null;
  return { blocks, structured, raw: JSON.stringify(value, null, 2) };
}
