// The Agent pane end to end: the scripted model server (a real HTTP server on 127.0.0.1,
// speaking OpenAI's streamed Chat Completions) as the endpoint, a profile added and tested in
// the app, a two-turn conversation whose destructive call is confirmed in the dialog, the file
// really written; after a restart the recorded conversation is opened and replayed.

import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

import { APP_IDENTIFIER, attributesOf, clickTestId, E2EError, expect, ROOT, screenshot, setNativeValue, textOf, tid, waitFor, waitVisible } from "./harness.mjs";

const SERVER = process.env.TOOLSCOPE_LLM_TESTSERVER ?? path.join(ROOT, "target/debug/toolscope-llm-testserver");
const SCRIPT = path.join(ROOT, "tests/fixtures/llm/scripts/e2e_write_file.json");
const RUN_TIMEOUT = 20_000;

/** Starts the scripted model server; resolves with its base URL and a stop function. */
export async function startModelServer() {
  expect(fs.existsSync(SERVER), `${SERVER} is missing: cargo build -p toolscope-llm-testserver`);
  const child = spawn(SERVER, ["--script", SCRIPT], { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const url = await new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new E2EError(`the model server did not start: ${stderr}`)), 10_000);
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.on("exit", (code) => reject(new E2EError(`the model server exited (${code}): ${stderr}`)));
  });
  // Closing its stdin ends it.
  return { url, stop: () => child.stdin.end(), log: () => stderr };
}

/** Adds a profile for the server, tests it, runs the conversation and confirms the write. */
export async function agentConversation({ browser, showPane, server, xdg }) {
  await showPane("agent");
  await clickTestId(browser, "profile-add");
  await waitVisible(browser, tid("profile-form"), { what: "the profile form" });
  await setNativeValue(browser, tid("profile-name"), "scripted");
  await setNativeValue(browser, tid("profile-wire"), "openai_chat");
  await setNativeValue(browser, tid("profile-base-url"), `${server.url}/v1`);
  await setNativeValue(browser, tid("profile-model"), "toolscope-test");
  await clickTestId(browser, "profile-save");
  await waitVisible(browser, tid("profile-scripted"), { what: "the saved profile in the list" });
  await clickTestId(browser, "profile-test", { selector: `${tid("profile-scripted")} ${tid("profile-test")}` });
  await waitFor(browser, async () => /toolscope-test/.test((await textOf(browser, tid("profile-test-result"))) ?? ""), {
    timeout: RUN_TIMEOUT,
    explain: async () => `test connection shows ${JSON.stringify(await textOf(browser, tid("profile-test-result")))}`,
  });

  await setNativeValue(browser, tid("agent-task"), "Write hello to agent-e2e.txt in the workspace.");
  await clickTestId(browser, "agent-start");
  // workspace_write is destructive: the loop asks before running it.
  await waitVisible(browser, tid("agent-confirm"), { timeout: RUN_TIMEOUT, what: "the confirmation dialog for workspace_write" });
  const asked = await textOf(browser, tid("agent-confirm-name"));
  expect(asked === "workspace_write", `the dialog asks about ${JSON.stringify(asked)}`);
  await screenshot("agent-confirm", { browser, focus: tid("agent-confirm") });
  await clickTestId(browser, "agent-confirm-run");
  await waitVisible(browser, tid("agent-ended"), { timeout: RUN_TIMEOUT, what: "the conversation's end" });
  const [reason] = await attributesOf(browser, tid("agent-ended"), "data-reason");
  expect(reason === "final", `the conversation ended with ${JSON.stringify(reason)}: ${await textOf(browser, tid("agent-live"))}`);
  const results = await textOf(browser, tid("agent-result"));
  expect(/workspace_write/.test(results ?? ""), `the result list shows ${JSON.stringify(results)}`);
  const written = path.join(xdg.XDG_DATA_HOME, APP_IDENTIFIER, "workspace", "agent-e2e.txt");
  expect(fs.existsSync(written) && fs.readFileSync(written, "utf8") === "hello from the agent", `${written} was not written by the confirmed call`);
  const text = await textOf(browser, tid("agent-live"));
  expect(/Done: agent-e2e\.txt now says hello\./.test(text ?? ""), `the final answer is not shown: ${JSON.stringify(text?.slice(0, 400))}`);
  await screenshot("agent-conversation", { browser, focus: tid("agent-live") });
}

/** After a restart: the conversation is listed, opens from its record and replays unchanged. */
export async function agentRecorded({ browser, showPane }) {
  await showPane("agent");
  await waitVisible(browser, tid("conversation-row"), { timeout: 10_000, what: "the recorded conversation after a restart" });
  await clickTestId(browser, "conversation-open");
  await waitVisible(browser, tid("agent-recorded"), { what: "the recorded conversation view" });
  await waitVisible(browser, tid("agent-timeline"), { what: "the conversation's timeline" });
  await clickTestId(browser, "agent-replay-run");
  await waitVisible(browser, tid("agent-replay-summary"), { timeout: 10_000, what: "the replay summary" });
  const changed = await attributesOf(browser, tid("agent-replay-turn"), "data-changed");
  expect(changed.length === 2 && changed.every((c) => c === "false"), `replayed turns changed: ${JSON.stringify(changed)}`);
  await screenshot("agent-recorded", { browser, focus: tid("agent-recorded") });
}
