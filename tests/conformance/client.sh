#!/usr/bin/env bash
# The MCP conformance suite's client command (tests/conformance/run.sh passes it as --command):
# connects Toolscope's CLI to the suite's test server and, in ONE process, lists the server's
# tools and calls the one the scenario is about.
#   bash tests/conformance/client.sh SERVER_URL
# The suite appends SERVER_URL as the last argument and sets MCP_CONFORMANCE_SCENARIO, and for
# some scenarios MCP_CONFORMANCE_CONTEXT (JSON, e.g. a pre-registered client's id and secret).
# TOOLSCOPE_BIN overrides the CLI binary (default target/debug/toolscope).
set -euo pipefail
cd "$(dirname "$0")/../.."

url=${!#}
scenario=${MCP_CONFORMANCE_SCENARIO:?set by the conformance suite}
toolscope=${TOOLSCOPE_BIN:-$PWD/target/debug/toolscope}

# The CLI's data (history, profiles, formats) stays in a throwaway home, never the person's.
home=$(mktemp -d "${TMPDIR:-/tmp}/toolscope-conformance.XXXXXX")
trap 'rm -rf "$home"' EXIT
export TOOLSCOPE_HOME=$home
# OAuth scenarios: the suite's authorization server approves at once and redirects to the
# client's redirect_uri; curl following that redirect stands in for the person's browser.
export BROWSER="curl -sL -o /dev/null"

# The tool each scenario's server offers, as the CLI routes it: `{server}_{method}` where the
# method is the MCP tool name with anything outside [A-Za-z0-9-] turned into `-`
# (src-tauri/engine/src/naming.rs). Arguments as a JSON object.
case $scenario in
  initialize) tool= ;; # the server has no tools: connect and list
  tools_call) tool=conf_add-numbers args='{"a":5,"b":3}' ;;                 # add_numbers
  elicitation-sep1034-client-defaults)                                      # elicits a form
    tool=conf_test-client-elicitation-defaults args='{}' ;;
  sse-retry) tool=conf_test-reconnection args='{}' ;;                       # test_reconnection
  auth/*) tool=conf_test-tool args='{}' ;;                                  # test-tool
  *) echo "client.sh: no tool known for scenario '$scenario'" >&2; exit 2 ;;
esac

# The server entry: `url` makes it a streamable HTTP server. For the OAuth scenarios an `oauth`
# object carries what a person would configure: a pre-registered client's id and secret (from
# the suite's context), or the Client ID Metadata Document URL the suite expects as client_id.
# It is only written for auth/* scenarios, so the others see a plain entry.
config=$home/mcp.json
node - "$config" "$url" <<'JS'
const fs = require("fs");
const [config, url] = process.argv.slice(2);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}");
const entry = { url };
if (scenario.startsWith("auth/")) {
  const oauth = {};
  if (context.client_id) oauth.clientId = context.client_id;
  if (context.client_secret) oauth.clientSecret = context.client_secret;
  if (scenario === "auth/basic-cimd") {
    oauth.clientMetadataUrl = "https://conformance-test.local/client-metadata.json";
  }
  if (Object.keys(oauth).length) entry.oauth = oauth;
}
fs.writeFileSync(config, JSON.stringify({ mcpServers: { conf: entry } }, null, 2));
JS

common=(--no-history --mcp-config "$config")
if [[ -z $tool ]]; then
  cli_args=(list --source mcp "${common[@]}")
else
  # `call` connects the server (initialize, tools/list) and calls the tool in the same process,
  # so a session, a token or a step-up is never lost between listing and calling. `--yes`: the
  # suite's tools are not annotated read-only, so the CLI would refuse to call them unattended;
  # it also accepts the elicitation scenario's form with the requested schema's defaults.
  cli_args=(call "$tool" --args "$args" --yes "${common[@]}")
fi
# In the background and waited for, so the suite's SIGTERM on its timeout ends the CLI too
# instead of waiting for it.
"$toolscope" "${cli_args[@]}" </dev/null &
cli=$!
trap 'kill "$cli" 2>/dev/null; exit 143' TERM INT
wait "$cli"
