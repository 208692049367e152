/**
 * The text a person pastes to put Toolscope between their agent and its servers or model
 * (docs/proxy.md). The app only writes these snippets; it never starts a proxy itself.
 */

/** What `toolscope proxy mcp --name` accepts: 1-64 letters, digits, `.`, `_`, `-`, not starting with `.`. */
export function nameProblem(name: string): string | null {
  if (/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$/.test(name)) return null;
  return "Use 1-64 letters, digits, '.', '_' or '-' (not starting with '.').";
}

/**
 * A command line split into words as a POSIX shell would for the simple cases: spaces separate,
 * single and double quotes group, a backslash escapes the next character outside single quotes.
 */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < line.length; i += 1) {
    const c = line.charAt(i);
    if (quote !== null) {
      if (c === quote) quote = null;
      else if (c === "\\" && quote === '"' && i + 1 < line.length) {
        i += 1;
        word += line.charAt(i);
      } else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === "\\" && i + 1 < line.length) {
      i += 1;
      word += line.charAt(i);
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** A word as the shell needs it: quoted when it holds anything but plain characters. */
export function shellWord(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The agent's `mcpServers` entry that starts the server through the proxy. */
export function mcpServersEntry(name: string, command: string[]): string {
  const args = JSON.stringify(["proxy", "mcp", "--name", name, "--", ...command]);
  return `{ "mcpServers": { ${JSON.stringify(name)}: {\n    "command": "toolscope",\n    "args": ${args}\n} } }`;
}

/** The proxy serving the agent over streamable HTTP on loopback. */
export function listenCommand(name: string, command: string[]): string {
  return ["toolscope", "proxy", "mcp", "--name", name, "--listen", "127.0.0.1:0", "--", ...command].map(shellWord).join(" ");
}

/** The model proxy in front of an OpenAI- or Anthropic-compatible endpoint. */
export function llmCommand(upstream: string): string {
  return ["toolscope", "proxy", "llm", "--upstream", upstream].map(shellWord).join(" ");
}
