/**
 * How to start watching an agent: the snippets to paste into its configuration, filled in with
 * the server's name and command line. The app never starts a proxy or listens on a port; the
 * person's agent starts `toolscope proxy`, and its sessions then show up here.
 */
import { useId, useState, type ReactNode } from "react";

import { CopyButton } from "../../lib/CopyButton";
import { listenCommand, llmCommand, mcpServersEntry, nameProblem, splitCommand } from "./snippets";

const DEFAULT_NAME = "files";
const DEFAULT_COMMAND = "npx -y @modelcontextprotocol/server-filesystem /home/me/notes";
const DEFAULT_UPSTREAM = "http://127.0.0.1:8000/v1";

function Snippet({ title, text, testId, children }: { title: string; text: string; testId: string; children: ReactNode }) {
  return (
    <div className="lv-snippet">
      <div className="lv-snippet-head">
        <h4>{title}</h4>
        <CopyButton text={text} label="Copy" testId={`${testId}-copy`} />
      </div>
      <p className="muted lv-small">{children}</p>
      <pre className="lv-code" data-testid={testId}>
        {text}
      </pre>
    </div>
  );
}

export function WatchHelp({ roots }: { roots: string[] }) {
  const id = useId();
  const [name, setName] = useState(DEFAULT_NAME);
  const [command, setCommand] = useState(DEFAULT_COMMAND);
  const [upstream, setUpstream] = useState(DEFAULT_UPSTREAM);
  const problem = nameProblem(name);
  const words = splitCommand(command);
  const usable = problem === null && words.length > 0;
  const shownName = problem === null ? name : "NAME";
  const shownCommand = words.length > 0 ? words : ["COMMAND", "ARGS..."];

  return (
    <div className="lv-help" data-testid="watch-help">
      <p>
        Put Toolscope between your own agent and an MCP server: the agent starts <code>toolscope proxy mcp</code> in place of
        the server, which forwards every message unchanged and records it. Each session appears here as it starts, and each call
        as it happens. Nothing changes in the agent but its configuration.
      </p>
      <div className="lv-fields">
        <label htmlFor={`${id}-name`}>Server name</label>
        <input
          id={`${id}-name`}
          className="lv-input"
          value={name}
          onChange={(e) => {
            setName(e.target.value);
          }}
          aria-invalid={problem !== null}
          data-testid="help-name"
        />
        <label htmlFor={`${id}-command`}>Server command</label>
        <input
          id={`${id}-command`}
          className="lv-input lv-mono"
          value={command}
          onChange={(e) => {
            setCommand(e.target.value);
          }}
          data-testid="help-command"
        />
      </div>
      {problem !== null && (
        <p className="lv-error-text lv-small" role="alert">
          Name: {problem}
        </p>
      )}
      {!usable && problem === null && <p className="muted lv-small">Type the command that starts the server.</p>}
      <Snippet title="Your agent's mcpServers entry (Claude Desktop, Cursor, VS Code …)" text={mcpServersEntry(shownName, shownCommand)} testId="snippet-mcp">
        Replace the server's entry with this one and restart the agent. Give the absolute path of <code>toolscope</code> if the agent
        does not find it on its PATH.
      </Snippet>
      <Snippet title="An agent that only speaks HTTP" text={listenCommand(shownName, shownCommand)} testId="snippet-listen">
        Run this yourself: it serves the server on loopback only and prints the <code>mcpServers</code> entry, with its URL and
        token, to paste into the agent.
      </Snippet>
      <div className="lv-fields">
        <label htmlFor={`${id}-upstream`}>Model base URL</label>
        <input
          id={`${id}-upstream`}
          className="lv-input lv-mono"
          value={upstream}
          onChange={(e) => {
            setUpstream(e.target.value);
          }}
          data-testid="help-upstream"
        />
      </div>
      <Snippet title="The agent's model" text={llmCommand(upstream.trim() === "" ? "URL" : upstream.trim())} testId="snippet-llm">
        Run this and point the agent's base URL at the address it prints. Its conversations appear in the Agent pane, marked proxy.
      </Snippet>
      {roots.length > 0 && (
        <p className="muted lv-small" data-testid="session-roots">
          Sessions are read from {roots.map((root, i) => (
            <span key={root}>
              {i > 0 && " and "}
              <code>{root}</code>
            </span>
          ))}
          . A proxy started with another <code>TOOLSCOPE_HOME</code> records elsewhere.
        </p>
      )}
    </div>
  );
}
