/**
 * The Sources pane: where tools come from besides the built-ins. MCP servers (stdio command
 * lines and streamable-HTTP URLs) with their status, output and approval, the HTTP tool
 * definition files with an editor, the WASM tool directories with their grants, and imported
 * tool definitions with their mocks. Everything refreshes on the app's `sources-changed` event.
 */
import { HttpToolsSection } from "./HttpToolsSection";
import { ImportedSection } from "./ImportedSection";
import { McpSection } from "./McpSection";
import { WasmToolsSection } from "./WasmToolsSection";
import "./sources.css";

export function SourcesPane({ active }: { active: boolean }) {
  return (
    <section className="pane src-pane" data-active={active} aria-labelledby="sources-title">
      <div className="pane-head">
        <div>
          <h2 id="sources-title">Sources</h2>
          <p className="muted">MCP servers, HTTP tool definitions, WASM tools and your imported tools. Their tools show in Discovery as they come and go.</p>
        </div>
      </div>
      <McpSection />
      <HttpToolsSection />
      <WasmToolsSection />
      <ImportedSection />
    </section>
  );
}
