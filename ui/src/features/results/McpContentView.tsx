/**
 * A result in MCP's content shape, readable: text blocks as text, images and audio from base64
 * `data:` URLs (the CSP allows `data:` for img-src and media-src only), binary resources
 * described by type and size, resources by URI, MIME type and a text preview, structured
 * content as JSON. The raw JSON is one toggle away. Server text
 * is always rendered as text, never as HTML.
 */
import { useState } from "react";

import { formatBytes } from "./formatBytes";
import type { McpBlock, McpContent } from "./mcpContent";
import "./results.css";

/** Longest resource text shown inline. */
const PREVIEW_CHARS = 2000;

function Block({ block }: { block: McpBlock }) {
  switch (block.kind) {
    case "text":
      return <pre className="mcp-text">{block.text}</pre>;
    case "image":
      return (
        <figure className="mcp-image">
          {block.src !== null ? (
            <img src={block.src} alt={`image from the tool (${block.mimeType}, ${formatBytes(block.bytes)})`} />
          ) : (
            <p className="muted">not shown: not a base64 image</p>
          )}
          <figcaption className="muted">
            image · {block.mimeType || "no MIME type"} · {formatBytes(block.bytes)}
          </figcaption>
        </figure>
      );
    case "audio":
      return (
        <figure className="mcp-media">
          {block.src !== null ? (
            <audio controls preload="none" src={block.src} aria-label={`audio from the tool (${block.mimeType})`} />
          ) : (
            <p className="muted">not playable: not base64 audio</p>
          )}
          <figcaption className="muted">
            audio · {block.mimeType || "no MIME type"} · {formatBytes(block.bytes)}
          </figcaption>
        </figure>
      );
    case "resource": {
      const preview = block.text !== null && block.text.length > PREVIEW_CHARS ? `${block.text.slice(0, PREVIEW_CHARS)}…` : block.text;
      return (
        <div className="mcp-resource">
          <p className="mcp-resource-head">
            <span className="badge">resource</span> <code className="mcp-uri">{block.uri}</code>
            {block.name !== null && <span className="muted"> · {block.name}</span>}
            {block.mimeType !== null && <span className="muted"> · {block.mimeType}</span>}
            {block.bytes !== null && <span className="muted"> · {formatBytes(block.bytes)}</span>}
          </p>
          {preview !== null && <pre className="mcp-text">{preview}</pre>}
        </div>
      );
    }
    case "other":
      return (
        <div className="mcp-other">
          <p className="muted">{block.type} block</p>
          <pre className="mcp-json">{block.json}</pre>
        </div>
      );
  }
}

export function McpContentView({ content, testId }: { content: McpContent; testId?: string }) {
  const [raw, setRaw] = useState(false);
  const count = content.blocks.length;
  return (
    <div className="mcp-content" data-testid={testId} data-format="mcp" data-view={raw ? "raw" : "content"}>
      <div className="mcp-content-bar">
        <span className="muted">
          MCP content · {count} {count === 1 ? "block" : "blocks"}
          {content.structured !== null && " + structured content"}
        </span>
        <button
          type="button"
          className="button button-small"
          aria-pressed={raw}
          data-testid="mcp-raw-toggle"
          onClick={() => {
            setRaw((shown) => !shown);
          }}
        >
          Raw JSON
        </button>
      </div>
      {raw ? (
        <pre className="mcp-json mcp-raw" tabIndex={0}>
          {content.raw}
        </pre>
      ) : (
        <>
          <ol className="mcp-blocks" aria-label="Content blocks">
            {content.blocks.map((block, index) => (
              <li key={index} className="mcp-block" data-kind={block.kind}>
                <Block block={block} />
              </li>
            ))}
          </ol>
          {content.structured !== null && (
            <div className="mcp-structured">
              <p className="muted">Structured content</p>
              <pre className="mcp-json" data-testid="mcp-structured">
                {content.structured}
              </pre>
            </div>
          )}
        </>
      )}
    </div>
  );
}
