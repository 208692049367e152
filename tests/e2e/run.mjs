// End-to-end tests of the built Toolscope app: the real binary (UI embedded), driven through
// tauri-driver + WebKitWebDriver + WebdriverIO under Xvfb, with its own XDG data/config/cache
// dirs kept across the three launches of one run (so the run history must survive a restart,
// and a settings file corrupted between launches must be set aside with a visible notice).
//
//   bash tests/e2e/run.sh              builds the UI and the app, then runs this under xvfb-run
//   E2E_KEEP_GOING=1 bash tests/e2e/run.sh   run every scenario even after a failure (diagnosis)
//
// Fails fast by default: the first failing step ends the run with a message naming what was
// missing, the data-testids the page had instead, a screenshot and the driver log's tail.

import fs from "node:fs";
import path from "node:path";

import { agentConversation, agentRecorded, startModelServer } from "./lib/agent.mjs";
import { pasteInto } from "./lib/editor.mjs";
import { runEchoText } from "./lib/mcpCall.mjs";
import { samplingScenario } from "./lib/sampling.mjs";
import { browserStandIn, signInRemembered, signInScenario, startOAuthServer } from "./lib/signIn.mjs";
import { metricsScenario, settingsRemembered, settingsScenario } from "./lib/settingsMetrics.mjs";
import { wasmRemembered, wasmScenario } from "./lib/wasm.mjs";
import {
  APP_IDENTIFIER,
  attributesOf,
  checkPrerequisites,
  clickTestId,
  closeSession,
  describeTestIds,
  E2EError,
  expect,
  hostSummary,
  inspectorServerAddress,
  listeningSockets,
  log,
  makeXdgHome,
  openSession,
  presentTestIds,
  processTable,
  removeDir,
  ROOT,
  screenshot,
  setNativeValue,
  startAppDirectly,
  startDriver,
  textOf,
  tid,
  waitFor,
  waitVisible,
} from "./lib/harness.mjs";

const KEEP_GOING = process.env.E2E_KEEP_GOING === "1";
const STARTUP_TIMEOUT = 30_000;
const RUN_TIMEOUT = 15_000;

const TWO_CALL_REPLY = [
  "Let me work that out and echo a greeting.",
  "<<<[TOOL_REQUEST]>>>",
  "tool_name:「始」calculator_evaluate「末」",
  "expression:「始」6*7「末」",
  "<<<[END_TOOL_REQUEST]>>>",
  "And now the echo:",
  "<<<[TOOL_REQUEST]>>>",
  "tool_name:「始」echo_echo「末」",
  "message:「始」hello from e2e「末」",
  "<<<[END_TOOL_REQUEST]>>>",
  "",
].join("\n");

const SCRIPT_PAYLOAD = "<script>window.__pwned=1</script>";
const IMG_PAYLOAD = `<img src=x onerror="window.__pwned=2">`;
const PAYLOAD = `${SCRIPT_PAYLOAD}${IMG_PAYLOAD}`;
const INJECTION_REPLY = [
  `Sure! ${PAYLOAD} Here is the call you asked for.`,
  "<<<[TOOL_REQUEST]>>>",
  "tool_name:「始」echo_echo「末」",
  `message:「始」${PAYLOAD}「末」`,
  "<<<[END_TOOL_REQUEST]>>>",
  "",
].join("\n");

// A destructive method: the run must stop at the confirmation dialog.
const DESTRUCTIVE_REPLY = [
  "Cleaning up.",
  "<<<[TOOL_REQUEST]>>>",
  "tool_name:「始」workspace_delete「末」",
  "path:「始」e2e-does-not-exist.txt「末」",
  "<<<[END_TOOL_REQUEST]>>>",
  "",
].join("\n");

// ---------------------------------------------------------------------------------------------

let modelServer = null; // the scripted model server of the agent scenarios
let oauthServer = null; // the test server's OAuth-protected mode, for the sign-in scenarios
let standIn = null; // the app's $BROWSER during the run: follows the sign-in redirect
const results = []; // {name, status: "passed"|"failed"|"skipped", ms, error?}
let browser = null;
let driver = null;
let xdg = null;

async function scenario(name, fn) {
  if (!KEEP_GOING && results.some((r) => r.status === "failed")) {
    results.push({ name, status: "skipped" });
    log(`SKIP  ${name}`);
    return;
  }
  const started = Date.now();
  log(`START ${name}`);
  try {
    await fn();
    const ms = Date.now() - started;
    results.push({ name, status: "passed", ms });
    log(`PASS  ${name} (${ms} ms)`);
  } catch (error) {
    const ms = Date.now() - started;
    results.push({ name, status: "failed", ms, error });
    log(`FAIL  ${name} (${ms} ms)`);
    await reportFailure(name, error);
  }
}

async function reportFailure(name, error) {
  const lines = [`  reason: ${error instanceof E2EError ? error.message : error.stack ?? error}`];
  if (browser) {
    try {
      const active = await browser.execute(() => {
        const tab = document.querySelector('[role="tab"][aria-selected="true"]');
        return tab ? tab.id : "(no selected tab)";
      });
      lines.push(`  selected tab: ${active}`);
      lines.push(`  data-testids in the page: ${describeTestIds(await presentTestIds(browser))}`);
    } catch (inner) {
      lines.push(`  (could not inspect the page: ${inner.message})`);
    }
  }
  const shot = (browser && (await screenshot(`failure-${slug(name)}`, { browser, settleMs: 2_000 }))) || (await screenshot(`failure-${slug(name)}`));
  if (shot) lines.push(`  screenshot: ${path.relative(process.cwd(), shot)}`);
  if (driver) {
    const tail = driver.tail(15);
    if (tail) lines.push(`  tauri-driver log (last lines of ${driver.logPath}):\n${indent(tail, "    ")}`);
  }
  console.log(lines.join("\n"));
}

const slug = (name) => name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
const indent = (text, prefix) => text.split("\n").map((line) => prefix + line).join("\n");

// ---------------------------------------------------------------------------------------------
// Steps shared by scenarios

async function launch(label) {
  const started = Date.now();
  browser = await openSession(driver);
  await waitVisible(browser, "#tab-discovery", { timeout: STARTUP_TIMEOUT, what: `${label}: the tab bar` });
  log(`  app up (${label}) in ${Date.now() - started} ms, pid ${driver.appPid()}`);
}

async function showPane(pane) {
  await clickTestId(browser, `tab-${pane}`, { selector: `#tab-${pane}` });
  await waitFor(
    browser,
    () => browser.execute((id) => document.getElementById(id)?.getAttribute("aria-selected") === "true", `tab-${pane}`),
    { timeout: 5_000, explain: async () => `tab-${pane} did not become selected` },
  );
}

/** Waits for exactly `count` elements matching `selector`, reporting what it saw on timeout. */
async function waitCount(selector, count, what, timeout = 10_000) {
  return waitFor(
    browser,
    async () => (await browser.execute((sel) => document.querySelectorAll(sel).length, selector)) === count,
    {
      timeout,
      explain: async () =>
        `${what}: expected ${count} x ${selector}, found ${await browser.execute((sel) => document.querySelectorAll(sel).length, selector)}`,
    },
  );
}

/** Waits until the element's data-status is success or error; returns it. */
async function waitStatus(selector, what, timeout = RUN_TIMEOUT) {
  let status = null;
  await waitFor(
    browser,
    async () => {
      const statuses = await attributesOf(browser, selector, "data-status");
      status = statuses.length ? statuses : null;
      return statuses.length > 0 && statuses.every((s) => s === "success" || s === "error");
    },
    {
      timeout,
      explain: async () => `${what}: ${selector} data-status is ${JSON.stringify(status)} (want success/error)`,
    },
  );
  return status;
}

/** Elements a prompt injection could have created: inline scripts, the payload's <img>. */
async function injectedElements() {
  return browser.execute(() => ({
    pwned: typeof window.__pwned === "undefined" ? null : String(window.__pwned),
    inlineScripts: [...document.querySelectorAll("script")].filter((s) => !s.src).length,
    payloadImages: document.querySelectorAll('img[src="x"]').length,
    onerrorAttributes: document.querySelectorAll("[onerror]").length,
  }));
}

// ---------------------------------------------------------------------------------------------
// Scenarios

let loadedIntoExecutor = false;
let wasmReady = false; // textkit was added (scenario 13); the restart checks it is remembered

async function discoveryScenario() {
  await showPane("discovery");
  await waitVisible(browser, tid("discovery-search"), { what: "Discovery search box" });
  await waitVisible(browser, tid("tool-item-calculator"), { timeout: 10_000, what: "Discovery tool list" });
  await waitVisible(browser, tid("tool-toggle-calculator"), { timeout: 2_000, what: "the calculator's enable toggle" });
  await screenshot("discovery", { browser });

  const search = await browser.$(tid("discovery-search"));
  await search.setValue("calc");
  await waitFor(browser, async () => (await textOf(browser, tid("discovery-search"))) === "calc", {
    timeout: 3_000,
    explain: async () => `discovery-search holds ${JSON.stringify(await textOf(browser, tid("discovery-search")))}`,
  });
  await waitVisible(browser, tid("method-item-calculator_evaluate"), { what: 'search "calc"' });
  // The filter must actually filter: echo has nothing to do with "calc".
  await waitFor(
    browser,
    () => browser.execute((sel) => !document.querySelector(sel)?.offsetParent, tid("method-item-echo_echo")),
    { timeout: 5_000, explain: async () => 'method-item-echo_echo is still shown after searching "calc"' },
  );

  await clickTestId(browser, "method-item-calculator_evaluate");
  const detail = await waitVisible(browser, tid("method-detail"), { what: "method detail after selecting calculator_evaluate" });
  await waitFor(browser, async () => (await detail.getText()).includes("calculator_evaluate") || (await detail.getText()).includes("evaluate"), {
    timeout: 5_000,
    explain: async () => `method-detail does not name the method: ${JSON.stringify((await detail.getText()).slice(0, 200))}`,
  });
  await waitVisible(browser, tid("prompt-preview"), { what: "prompt preview" });
  const prompt = await waitFor(
    browser,
    async () => {
      const text = (await textOf(browser, tid("prompt-preview"))) ?? "";
      return text.trim().length > 0 ? text : false;
    },
    { timeout: 10_000, explain: async () => "prompt-preview stays empty" },
  );
  log(`  prompt-preview: ${prompt.length} chars, starts ${JSON.stringify(prompt.slice(0, 60))}`);
  await screenshot("discovery-method-detail", { browser });

  await clickTestId(browser, "load-into-executor");
  loadedIntoExecutor = true;
}

async function executorScenario() {
  if (loadedIntoExecutor) {
    await waitFor(
      browser,
      () => browser.execute(() => document.getElementById("tab-executor")?.getAttribute("aria-selected") === "true"),
      { timeout: 5_000, explain: async () => "load-into-executor did not switch to the Executor tab" },
    );
  } else {
    await showPane("executor"); // Discovery failed (KEEP_GOING): type the routing name instead.
  }
  await waitVisible(browser, tid("executor-tool-name"), { what: "Executor tool name" });
  if (!loadedIntoExecutor) await setNativeValue(browser, tid("executor-tool-name"), "calculator_evaluate");
  await waitFor(browser, async () => (await textOf(browser, tid("executor-tool-name"))) === "calculator_evaluate", {
    timeout: 5_000,
    explain: async () => `executor-tool-name is ${JSON.stringify(await textOf(browser, tid("executor-tool-name")))}, want "calculator_evaluate"`,
  });

  if (await browser.$(tid("executor-mode-form")).isExisting()) await clickTestId(browser, "executor-mode-form");
  try {
    await waitVisible(browser, "#root_expression", { what: "the form's expression field (rjsf id root_expression)" });
  } catch (error) {
    const ids = await browser.execute(() =>
      [...document.querySelectorAll("#panel-executor input, #panel-executor textarea, #panel-executor select")]
        .map((e) => (e.id ? `#${e.id}` : `<${e.tagName.toLowerCase()} no id>`))
        .join(", "),
    );
    throw new E2EError(`${error.message}; the Executor's form fields have ids: ${ids || "(none)"}`);
  }
  const field = await browser.$("#root_expression");
  await field.setValue("6*7"); // real key events through WebKitWebDriver
  await waitFor(browser, async () => (await field.getValue()) === "6*7", {
    timeout: 3_000,
    explain: async () => `#root_expression holds ${JSON.stringify(await field.getValue())} after typing 6*7`,
  });

  await clickTestId(browser, "executor-run");
  const [status] = await waitStatus(tid("executor-result"), "executor result");
  const body = (await textOf(browser, tid("executor-result-body"))) ?? (await textOf(browser, tid("executor-result")));
  expect(
    status === "success",
    `executor-result data-status="${status}", body ${JSON.stringify(body?.slice(0, 300))}` +
      (/expression/i.test(body ?? "") ? " (the typed expression did not reach React's form state?)" : ""),
  );
  expect(/\b42\b/.test(body ?? ""), `executor-result-body does not contain 42: ${JSON.stringify(body?.slice(0, 300))}`);

  // The form's state is what React holds: the JSON editor must show the typed expression.
  if (await browser.$(tid("executor-mode-json")).isExisting()) {
    await clickTestId(browser, "executor-mode-json");
    await waitVisible(browser, tid("executor-json-editor"), { what: "JSON editor after switching mode" });
    await waitFor(browser, async () => ((await textOf(browser, tid("executor-json-editor"))) ?? "").includes("6*7"), {
      timeout: 5_000,
      explain: async () =>
        `executor-json-editor does not show the form's expression: ${JSON.stringify((await textOf(browser, tid("executor-json-editor")))?.slice(0, 200))}`,
    });
    await clickTestId(browser, "executor-mode-form");
  }

  await waitVisible(browser, `${tid("history-item")}[data-tool-name="calculator_evaluate"]`, {
    what: "history entry of the calculator run",
  });
  await screenshot("executor", { browser, focus: tid("executor-result") });
}

async function parserScenario() {
  await showPane("parser");
  await waitVisible(browser, tid("parser-input"), { what: "Parser input" });
  await pasteInto(browser, tid("parser-input"), TWO_CALL_REPLY);
  await waitCount(tid("parser-request"), 2, "requests parsed from the two-call reply");
  const names = await attributesOf(browser, tid("parser-request"), "data-tool-name");
  expect(
    JSON.stringify(names) === JSON.stringify(["calculator_evaluate", "echo_echo"]),
    `parser-request data-tool-name = ${JSON.stringify(names)}, want ["calculator_evaluate","echo_echo"]`,
  );
  const valid = await attributesOf(browser, tid("parser-request"), "data-valid");
  expect(valid.every((v) => v === "true"), `parser-request data-valid = ${JSON.stringify(valid)}, want all "true"`);
  const diagnostics = await browser.execute((sel) => [...document.querySelectorAll(sel)].map((e) => e.innerText), tid("parser-diagnostic"));
  expect(diagnostics.length === 0, `unexpected parser-diagnostic(s): ${JSON.stringify(diagnostics)}`);

  await clickTestId(browser, "parser-run-all");
  await waitCount(tid("parser-result"), 2, "results of run all", RUN_TIMEOUT);
  const statuses = await waitStatus(tid("parser-result"), "parser results");
  if (!statuses.every((s) => s === "success")) {
    const texts = await browser.execute((sel) => [...document.querySelectorAll(sel)].map((e) => e.innerText.slice(0, 200)), tid("parser-result"));
    throw new E2EError(`parser-result data-status = ${JSON.stringify(statuses)}, want all success; texts ${JSON.stringify(texts)}`);
  }
  const block = await waitFor(
    browser,
    async () => {
      const text = (await textOf(browser, tid("parser-results-block"))) ?? "";
      return text.includes("<<<[TOOL_RESULT]>>>") ? text : false;
    },
    {
      timeout: 5_000,
      explain: async () =>
        `parser-results-block lacks <<<[TOOL_RESULT]>>>: ${JSON.stringify((await textOf(browser, tid("parser-results-block")))?.slice(0, 300))}`,
    },
  );
  expect(/\b42\b/.test(block), `parser-results-block lacks the calculator's 42: ${JSON.stringify(block.slice(0, 400))}`);
  expect(block.includes("hello from e2e"), `parser-results-block lacks the echoed message: ${JSON.stringify(block.slice(0, 400))}`);
  await screenshot("parser", { browser, focus: tid("parser-results-block") });
}

async function injectionScenario() {
  await showPane("parser");
  await waitVisible(browser, tid("parser-input"), { what: "Parser input" });
  await pasteInto(browser, tid("parser-input"), INJECTION_REPLY);
  await waitFor(
    browser,
    async () => {
      const names = await attributesOf(browser, tid("parser-request"), "data-tool-name");
      return names.length === 1 && names[0] === "echo_echo";
    },
    {
      timeout: 10_000,
      explain: async () =>
        `want one parser-request for echo_echo, have ${JSON.stringify(await attributesOf(browser, tid("parser-request"), "data-tool-name"))}`,
    },
  );
  // The request shows the value as text: raw, or inside JSON (where its quotes are escaped).
  const asJson = (text) => JSON.stringify(text).slice(1, -1);
  const showsLiterally = (text, part) => text.includes(part) || text.includes(asJson(part));
  const requestText = (await textOf(browser, tid("parser-request"))) ?? "";
  expect(
    showsLiterally(requestText, SCRIPT_PAYLOAD) && showsLiterally(requestText, IMG_PAYLOAD),
    `the request does not show the payload literally; its text is ${JSON.stringify(requestText.slice(0, 400))}`,
  );
  // The prose outside the block: shown as text wherever the pane renders the reply (not the editor,
  // whose lines are DOM text too, so it is left out of what is searched).
  const prose = await browser.execute(() => {
    const panel = document.getElementById("panel-parser");
    if (!panel) return "";
    const others = panel.cloneNode(true);
    others.querySelector('[data-testid="parser-input"]')?.remove();
    return others.textContent;
  });
  log(`  prose payload rendered as text outside the input: ${prose.includes(`Sure! ${PAYLOAD}`) ? "yes" : "no (only in the editor)"}`);
  let found = await injectedElements();
  expect(found.pwned === null, `window.__pwned = ${found.pwned}: the payload ran`);
  expect(
    found.inlineScripts === 0 && found.payloadImages === 0 && found.onerrorAttributes === 0,
    `the payload became markup: ${JSON.stringify(found)}`,
  );

  // The tool output echoes the payload back: the results must show it as text too.
  await clickTestId(browser, "parser-run-all");
  await waitCount(tid("parser-result"), 1, "result of the echo run", RUN_TIMEOUT);
  const [status] = await waitStatus(tid("parser-result"), "echo result");
  expect(status === "success", `echo of the payload: data-status="${status}"`);
  const shown = await waitFor(
    browser,
    async () => {
      const text = (await textOf(browser, tid("parser-results-block"))) ?? "";
      return showsLiterally(text, IMG_PAYLOAD) ? text : false;
    },
    {
      timeout: 5_000,
      explain: async () =>
        `parser-results-block does not show the echoed payload literally: ${JSON.stringify((await textOf(browser, tid("parser-results-block")))?.slice(0, 400))}`,
    },
  );
  expect(showsLiterally(shown, SCRIPT_PAYLOAD), "the results block lost the <script> part of the payload");
  await screenshot("parser-injection", { browser, focus: tid("parser-request") });
  await showPane("executor"); // the history now holds the payload too
  await waitVisible(browser, `${tid("history-item")}[data-tool-name="echo_echo"]`, { what: "history entry of the echo run" });
  found = await injectedElements();
  expect(found.pwned === null, `window.__pwned = ${found.pwned} after running and listing the payload`);
  expect(
    found.inlineScripts === 0 && found.payloadImages === 0 && found.onerrorAttributes === 0,
    `the payload became markup after the run: ${JSON.stringify(found)}`,
  );
  await screenshot("executor-history-with-payload", { browser, focus: tid("history-list") });
}

async function confirmationScenario() {
  await showPane("parser");
  await waitVisible(browser, tid("parser-input"), { what: "Parser input" });
  await pasteInto(browser, tid("parser-input"), DESTRUCTIVE_REPLY);
  await waitFor(
    browser,
    async () => JSON.stringify(await attributesOf(browser, tid("parser-request"), "data-tool-name")) === '["workspace_delete"]',
    {
      timeout: 10_000,
      explain: async () =>
        `want one parser-request for workspace_delete, have ${JSON.stringify(await attributesOf(browser, tid("parser-request"), "data-tool-name"))}`,
    },
  );
  await clickTestId(browser, "parser-run-all");
  await waitVisible(browser, tid("confirm-dialog"), { what: "confirmation dialog for the destructive workspace_delete" });
  const dialog = (await textOf(browser, tid("confirm-dialog"))) ?? "";
  expect(dialog.includes("workspace_delete"), `confirm-dialog does not name workspace_delete: ${JSON.stringify(dialog.slice(0, 300))}`);
  await waitVisible(browser, tid("confirm-approve"), { what: "confirm-approve button" });
  await screenshot("parser-confirm-dialog", { browser });
  await clickTestId(browser, "confirm-deny");
  await waitFor(browser, () => browser.execute((sel) => !document.querySelector(sel)?.getClientRects().length, tid("confirm-dialog")), {
    timeout: 5_000,
    explain: async () => "confirm-dialog stays open after confirm-deny",
  });
  await waitCount(tid("parser-result"), 1, "result of the denied call", RUN_TIMEOUT);
  const [status] = await waitStatus(tid("parser-result"), "denied call");
  const text = (await textOf(browser, tid("parser-result"))) ?? "";
  expect(status === "error" && /denied/i.test(text), `denied call: data-status="${status}", text ${JSON.stringify(text.slice(0, 300))} (want error, denied)`);
}

// A hermes reply: auto-detect must pick it, and the replay must show both calls completing.
const HERMES_REPLY = [
  "<think>Maybe <tool_call>{\"name\": \"echo_echo\"}</tool_call>? No, think first.</think>",
  "Two calls, streamed:",
  "<tool_call>",
  '{"name": "calculator_evaluate", "arguments": {"expression": "2^10"}}',
  "</tool_call>",
  "<tool_call>",
  '{"name": "echo_echo", "arguments": {"message": "streamed"}}',
  "</tool_call>",
].join("\n");

async function replayScenario() {
  await showPane("parser");
  await waitVisible(browser, tid("parser-input"), { what: "Parser input" });
  await pasteInto(browser, tid("parser-input"), HERMES_REPLY);
  await waitFor(
    browser,
    async () =>
      JSON.stringify(await attributesOf(browser, tid("parser-request"), "data-tool-name")) ===
      '["calculator_evaluate","echo_echo"]',
    {
      timeout: 10_000,
      explain: async () =>
        `hermes reply: parser-request names ${JSON.stringify(await attributesOf(browser, tid("parser-request"), "data-tool-name"))}`,
    },
  );
  const [used] = await attributesOf(browser, tid("parser-format-used"), "data-format");
  expect(used === "hermes", `auto-detect chose ${used} for a hermes reply`);
  await browser.execute((sel) => {
    document.querySelector(sel).open = true;
  }, tid("replay"));
  const setSpeed = (value) => setNativeValue(browser, tid("replay-speed"), value);
  await setSpeed("30"); // 71 deltas: slow enough to catch it midway
  await clickTestId(browser, "replay-start");
  // Mid-stream: the first call is visible before the reply is complete.
  await waitFor(browser, async () => (await attributesOf(browser, tid("replay-call"), "data-state")).length > 0, {
    timeout: 10_000,
    explain: async () => `no replay-call appeared; progress: ${await textOf(browser, tid("replay-progress"))}`,
  });
  await clickTestId(browser, "replay-toggle"); // pause, so the picture is really midway
  const midway = await textOf(browser, tid("replay-progress"));
  await screenshot("parser-replay-midway", { browser, focus: tid("replay") });
  log(`  paused at: ${midway}`);
  await setSpeed("20000");
  await clickTestId(browser, "replay-toggle");
  await waitFor(
    browser,
    async () => (await attributesOf(browser, tid("replay-progress"), "data-done"))[0] === "true",
    { timeout: 15_000, explain: async () => `replay did not finish: ${await textOf(browser, tid("replay-progress"))}` },
  );
  const states = await attributesOf(browser, tid("replay-call"), "data-state");
  expect(
    JSON.stringify(states) === '["complete","complete"]',
    `replay-call states at the end: ${JSON.stringify(states)}, want two complete`,
  );
  await screenshot("parser-replay", { browser, focus: tid("replay") });
}

// The rmcp test server (cargo build -p toolscope-mcp --bin toolscope-mcp-testserver; run.sh builds it).
const MCP_TEST_SERVER = process.env.TOOLSCOPE_MCP_TESTSERVER ?? path.join(ROOT, "target/debug/toolscope-mcp-testserver");
const MCP_NAME = "e2e-mcp"; // tool id e2e-mcp: methods e2e-mcp_echo-text, e2e-mcp_slow-op, e2e-mcp_rich
let mcpReady = false;

const serverRow = (name) => `${tid("server-item")}[data-name="${name}"]`;

async function sourcesScenario() {
  expect(fs.existsSync(MCP_TEST_SERVER), `${MCP_TEST_SERVER} is missing: cargo build -p toolscope-mcp --bin toolscope-mcp-testserver`);
  await showPane("sources");
  await waitVisible(browser, tid("mcp-servers"), { what: "the Sources pane's MCP section" });
  await waitVisible(browser, tid("http-tools"), { what: "the Sources pane's HTTP tools section" });
  await clickTestId(browser, "mcp-add");
  await waitVisible(browser, tid("server-form"), { what: "the add-server form" });
  // Saving an empty form shows the problems in place and adds nothing.
  await clickTestId(browser, "server-form-save");
  await waitVisible(browser, tid("server-form-name-error"), { what: "the name error of an empty form" });
  await setNativeValue(browser, tid("server-form-name"), MCP_NAME);
  await setNativeValue(browser, tid("server-form-command"), MCP_TEST_SERVER);
  await screenshot("sources-add-form", { browser, focus: tid("server-form") });
  await clickTestId(browser, "server-form-save");

  // A new command line never starts by itself: the approval dialog shows it first.
  await waitVisible(browser, tid("approval-dialog"), { what: "the approval dialog after adding a command line" });
  const shown = await textOf(browser, tid("approval-command-line"));
  expect(shown === MCP_TEST_SERVER, `approval-command-line shows ${JSON.stringify(shown)}, want ${JSON.stringify(MCP_TEST_SERVER)}`);
  const [state] = await attributesOf(browser, serverRow(MCP_NAME), "data-state");
  expect(state === "awaiting_approval", `before approval the server is ${state}, want awaiting_approval`);
  await screenshot("sources-approval", { browser });
  await clickTestId(browser, "approval-dialog-confirm");

  await waitFor(
    browser,
    async () => (await attributesOf(browser, serverRow(MCP_NAME), "data-state"))[0] === "ready",
    {
      timeout: 20_000,
      explain: async () =>
        `server ${MCP_NAME} is ${JSON.stringify(await attributesOf(browser, serverRow(MCP_NAME), "data-state"))}: ` +
        JSON.stringify(await textOf(browser, serverRow(MCP_NAME))),
    },
  );
  const status = (await textOf(browser, `${serverRow(MCP_NAME)} ${tid("server-status")}`)) ?? "";
  expect(/ready · \d+ tools/.test(status), `status badge reads ${JSON.stringify(status)}`);
  mcpReady = true;
  await clickTestId(browser, "server-output", { selector: `${serverRow(MCP_NAME)} ${tid("server-output")}` });
  await waitVisible(browser, tid("server-log"), { what: "the server's output box" });
  await screenshot("sources", { browser, focus: serverRow(MCP_NAME) });

  // HTTP tools: a new definition file from the template, saved through the backend, registers its tool.
  await setNativeValue(browser, tid("http-new-name"), "e2e-items.toml");
  await clickTestId(browser, "http-new");
  await waitVisible(browser, tid("http-editor-text"), { what: "the editor of the new HTTP tool file" });
  await clickTestId(browser, "http-save");
  await waitFor(
    browser,
    async () => ((await textOf(browser, `${tid("http-file")}[data-file="e2e-items.toml"]`)) ?? "").includes("tool e2e-items"),
    {
      timeout: 10_000,
      explain: async () =>
        `e2e-items.toml reads ${JSON.stringify(await textOf(browser, `${tid("http-file")}[data-file="e2e-items.toml"]`))}; ` +
        `save error: ${JSON.stringify(await textOf(browser, tid("http-save-error")))}`,
    },
  );
  await screenshot("sources-http-editor", { browser, focus: tid("http-editor") });

  // The same pane in the dark theme (then back to the system theme).
  const setTheme = (value) => setNativeValue(browser, tid("theme-select"), value);
  await setTheme("dark");
  await screenshot("sources-dark", { browser, focus: serverRow(MCP_NAME) });
  await setTheme("system");
}

async function mcpCallScenario() {
  expect(mcpReady, "the MCP server did not come up (previous scenario)");
  await runEchoText({ browser, showPane, method: `${MCP_NAME}_echo-text`, text: "hello over MCP" });

  // A long call reports progress while it runs.
  await setNativeValue(browser, tid("executor-tool-name"), `${MCP_NAME}_slow-op`);
  await browser.execute(() => document.activeElement?.blur());
  await clickTestId(browser, "executor-run");
  await waitVisible(browser, tid("executor-progress"), { what: "progress of slow-op", timeout: 8_000 });
  await waitVisible(browser, tid("executor-progress-message"), { what: "progress message of slow-op", timeout: 5_000 });
  await screenshot("executor-mcp-progress", { browser, focus: tid("executor-progress"), settleMs: 500 });
  const [slow] = await waitStatus(tid("executor-result"), "slow-op result");
  expect(slow === "success", `slow-op: data-status="${slow}"`);

  // Rich content: text, an image and a resource, rendered as such, with structured content.
  await setNativeValue(browser, tid("executor-tool-name"), `${MCP_NAME}_rich`);
  await browser.execute(() => document.activeElement?.blur());
  await clickTestId(browser, "executor-run");
  await waitFor(
    browser,
    async () => (await attributesOf(browser, tid("executor-result-body"), "data-format"))[0] === "mcp",
    { timeout: RUN_TIMEOUT, explain: async () => `rich result body: ${JSON.stringify(await textOf(browser, tid("executor-result-body")))}` },
  );
  const images = await attributesOf(browser, `${tid("executor-result-body")} img`, "src");
  expect(images.length === 1 && images[0].startsWith("data:image/png;base64,"), `rich result images: ${JSON.stringify(images)}`);
  const rich = (await textOf(browser, tid("executor-result-body"))) ?? "";
  expect(rich.includes("two things") && rich.includes("mem://note"), `rich result text: ${JSON.stringify(rich.slice(0, 300))}`);
  await screenshot("executor-mcp-rich", { browser, focus: tid("executor-result") });
}

// A person's own tools: an OpenAI Chat Completions tools array, pasted.
const SHOP_TOOLS = JSON.stringify([
  {
    type: "function",
    function: {
      name: "get_store_hours",
      description: "Opening hours of one store.",
      parameters: { type: "object", properties: { store: { type: "string" } }, required: ["store"] },
    },
  },
]);
const SHOP_REPLY = '<tool_call>\n{"name": "get_store_hours", "arguments": {"store": "Oslo"}}\n</tool_call>';

async function importedScenario() {
  await showPane("sources");
  await waitVisible(browser, tid("imported-tools"), { what: "the Sources pane's imported tools section" });
  await clickTestId(browser, "import-open");
  await waitVisible(browser, tid("import-dialog"), { what: "the import dialog" });
  await setNativeValue(browser, tid("import-name"), "Shop");
  await setNativeValue(browser, tid("import-text"), SHOP_TOOLS);
  await clickTestId(browser, "import-dialog-confirm");
  const report = await waitVisible(browser, tid("import-report"), { what: "the import report" });
  const reportText = await report.getText();
  expect(reportText.includes("Shop") && reportText.includes("1 definitions"), `import report: ${JSON.stringify(reportText)}`);

  // A template mock answers the calls.
  // A new import opens its set; a click would close it again.
  const set = `${tid("imported-set")}[data-set="Shop"]`;
  const [expanded] = await attributesOf(browser, set, "aria-expanded");
  if (expanded !== "true") await clickTestId(browser, "imported-set", { selector: set });
  await waitVisible(browser, tid("imported-definition"), { what: "the imported definition of get_store_hours" });
  await browser.execute((sel) => {
    for (const details of document.querySelectorAll(sel)) details.open = true;
  }, tid("imported-definition"));
  const editor = `${tid("mock-editor")}[data-definition="get_store_hours"]`;
  await waitVisible(browser, editor, { what: "the mock editor of get_store_hours" });
  await setNativeValue(browser, `${editor} ${tid("mock-kind")}`, "template");
  await waitVisible(browser, `${editor} ${tid("mock-json")}`, { what: "the template box" });
  await setNativeValue(browser, `${editor} ${tid("mock-json")}`, '{"store": "{{store}}", "open": "09:00-17:00"}');
  await clickTestId(browser, "mock-save", { selector: `${editor} ${tid("mock-save")}` });
  await waitFor(browser, async () => ((await textOf(browser, editor)) ?? "").includes("Saved."), {
    explain: async () => `mock editor: ${JSON.stringify(await textOf(browser, editor))}`,
  });
  await screenshot("sources-imported", { browser, focus: tid("imported-tools") });

  // Discovery lists it like any other method.
  await showPane("discovery");
  await setNativeValue(browser, tid("discovery-search"), "store hours");
  await waitVisible(browser, tid("method-item-Shop_get-store-hours"), { what: "the imported method in Discovery" });

  // The Parser checks the reply against the set (the model's own names) and runs it on the mock.
  await showPane("parser");
  await pasteInto(browser, tid("parser-input"), SHOP_REPLY);
  const shopOption = `${tid("parser-request-tools-source")} option[value="set:Shop"]`;
  await waitFor(browser, async () => (await attributesOf(browser, shopOption, "value")).length === 1, {
    explain: async () => `the Check against choices: ${JSON.stringify(await textOf(browser, tid("parser-request-tools-source")))}`,
  });
  await setNativeValue(browser, tid("parser-request-tools-source"), "set:Shop");
  await waitFor(
    browser,
    async () => ((await textOf(browser, tid("parser-request-tools-info"))) ?? "").includes("Checked against 1 request tool"),
    { explain: async () => `request tools info: ${JSON.stringify(await textOf(browser, tid("parser-request-tools-info")))}` },
  );
  await waitCount(tid("parser-request"), 1, "the call to get_store_hours");
  const [valid] = await attributesOf(browser, tid("parser-request"), "data-valid");
  const [name] = await attributesOf(browser, tid("parser-request"), "data-tool-name");
  expect(valid === "true" && name === "get_store_hours", `request ${JSON.stringify(name)} valid=${JSON.stringify(valid)}`);
  await clickTestId(browser, "parser-run-all");
  // Imported definitions say nothing of side effects, so they count as destructive: asked first.
  await waitVisible(browser, tid("confirm-dialog"), { what: "the confirmation of get_store_hours" });
  await clickTestId(browser, "confirm-approve");
  await waitCount(tid("parser-result"), 1, "the mock's result", RUN_TIMEOUT);
  const [status] = await waitStatus(tid("parser-result"), "the mock's result");
  const block = (await textOf(browser, tid("parser-results-block"))) ?? "";
  expect(status === "success" && block.includes("09:00-17:00") && block.includes("Oslo"), `status ${status}, results block ${JSON.stringify(block.slice(0, 300))}`);

  // Copy the result as an OpenAI tool message: the backend builds it; the clipboard may refuse.
  await setNativeValue(browser, `${tid("parser-request")} ${tid("copy-as")}`, "openai_chat");
  const copied = await waitFor(
    browser,
    async () => {
      const text = (await textOf(browser, tid("copy-as-status"))) ?? "";
      return text === "OpenAI tool message copied." || text.startsWith("Could not copy") ? text : false;
    },
    { explain: async () => `copy-as status: ${JSON.stringify(await textOf(browser, tid("copy-as-status")))}` },
  );
  console.log(`[e2e]   copy as OpenAI tool message: ${copied}`);
  if (copied.startsWith("Could not copy")) {
    // A script's change event is no user gesture, so WebKit may refuse the clipboard: the
    // message is then shown to copy by hand, and it must be the OpenAI tool message.
    const shown = JSON.parse((await textOf(browser, tid("copy-as-text"))) ?? "null");
    expect(
      Array.isArray(shown) && shown[0]?.role === "tool" && String(shown[0]?.content).includes("09:00-17:00"),
      `the exported message: ${JSON.stringify(shown)}`,
    );
  }
  await screenshot("parser-request-tools", { browser, focus: tid("parser-request-tools") });
}

async function restartScenario() {
  await closeSession(browser, driver);
  browser = null;
  const historyFile = path.join(xdg.XDG_DATA_HOME, APP_IDENTIFIER, "history.jsonl");
  const history = fs.existsSync(historyFile) ? fs.readFileSync(historyFile, "utf8") : null;
  expect(history !== null, `no history file at ${historyFile} after the first launch`);
  expect(history.includes('"calculator_evaluate"'), `${historyFile} has no calculator_evaluate entry`);

  await launch("second launch");
  await showPane("executor");
  await waitVisible(browser, `${tid("history-item")}[data-tool-name="calculator_evaluate"]`, {
    timeout: 10_000,
    what: "calculator_evaluate history entry after restarting with the same data dir",
  });
  await screenshot("executor-after-restart", { browser, focus: tid("history-list") });
  if (mcpReady) {
    // The approval is remembered: the same command line starts again without asking.
    await showPane("sources");
    await waitFor(
      browser,
      async () => (await attributesOf(browser, serverRow(MCP_NAME), "data-state"))[0] === "ready",
      {
        timeout: 20_000,
        explain: async () => `after restart ${MCP_NAME} is ${JSON.stringify(await attributesOf(browser, serverRow(MCP_NAME), "data-state"))}`,
      },
    );
  }
  if (wasmReady) await wasmRemembered({ browser, showPane });
}

async function noListeningPortScenario() {
  const appPid = driver.appPid();
  expect(appPid !== null, "the app process is not running");
  // The detector finds a listening socket where there is one: tauri-driver's own (test infra,
  // not the app, and not part of the app's process tree).
  expect(listeningSockets([driver.pid]).listening.length > 0, "no listening socket found for tauri-driver: the /proc reading is broken");

  // The app as WebDriver runs it, after everything above (MCP server child included). The only
  // listener allowed is WebKit's automation endpoint that WebKitWebDriver asked for.
  const table = processTable();
  const pids = driver.appPids();
  expect(pids.includes(appPid), `the app (pid ${appPid}) is not among ${JSON.stringify(pids)}`);
  const names = [...new Set(pids.map((pid) => table.get(pid)?.comm ?? "?"))].sort();
  if (mcpReady) expect(names.some((name) => name.startsWith("toolscope-mcp")), `no MCP server child among ${names.join(", ")}`);
  const automation = inspectorServerAddress(appPid);
  const { listening, sockets } = listeningSockets(pids, table);
  const unexpected = listening.filter((s) => !(s.pid === appPid && s.proto === "tcp" && s.local === automation));
  log(`  under WebDriver: ${pids.length} app processes (${names.join(", ")}) hold ${sockets} sockets; listening: ${JSON.stringify(listening)} (WebDriver's inspector endpoint: ${automation})`);
  expect(unexpected.length === 0, `the app's processes listen: ${JSON.stringify(unexpected)}`);

  // The app as a user starts it: no WebDriver, nothing may listen at all.
  const home = makeXdgHome("e2e-ports");
  const dataDir = path.join(home.XDG_DATA_HOME, APP_IDENTIFIER);
  const env = { XDG_DATA_HOME: home.XDG_DATA_HOME, XDG_CONFIG_HOME: home.XDG_CONFIG_HOME, XDG_CACHE_HOME: home.XDG_CACHE_HOME };
  const app = await startAppDirectly({ env, dataDir });
  try {
    // Looked at several times while it settles, not once.
    for (let look = 0; look < 5; look++) {
      const direct = listeningSockets(app.pids());
      if (look === 0) log(`  started directly: ${app.pids().length} processes hold ${direct.sockets} sockets, ${direct.listening.length} listening`);
      expect(direct.listening.length === 0, `the app started directly listens: ${JSON.stringify(direct.listening)}`);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  } finally {
    await app.stop();
    removeDir(home.home);
  }
}

// A settings file cut off in the middle of a write (by hand, or by a version that wrote it in place).
const CORRUPT_SETTINGS = '{\n  "settings": {\n    "config": {\n      "timeout_ms": 30';

async function corruptSettingsScenario() {
  await closeSession(browser, driver);
  browser = null;
  const dataDir = path.join(xdg.XDG_DATA_HOME, APP_IDENTIFIER);
  fs.writeFileSync(path.join(dataDir, "settings.json"), CORRUPT_SETTINGS);
  await launch("third launch, corrupt settings file");
  await waitVisible(browser, tid("startup-notices"), { what: "the startup notice about the corrupt settings file" });
  const notice = (await textOf(browser, tid("startup-notices"))) ?? "";
  const aside = fs.readdirSync(dataDir).filter((name) => name.startsWith("settings.json.corrupt-"));
  expect(aside.length === 1, `settings side files in ${dataDir}: ${JSON.stringify(aside)}`);
  expect(fs.readFileSync(path.join(dataDir, aside[0]), "utf8") === CORRUPT_SETTINGS, `${aside[0]} does not hold the corrupt file's bytes`);
  expect(notice.includes("settings file") && notice.includes(aside[0]), `the notice reads ${JSON.stringify(notice)}`);
  await screenshot("startup-notice-corrupt-settings", { browser, focus: tid("startup-notices") });
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const started = Date.now();
  checkPrerequisites();
  xdg = makeXdgHome();
  log(`host: ${hostSummary()}; data dirs: ${xdg.home}`);
  standIn = browserStandIn(xdg.home);
  driver = await startDriver({
    env: {
      XDG_DATA_HOME: xdg.XDG_DATA_HOME,
      XDG_CONFIG_HOME: xdg.XDG_CONFIG_HOME,
      XDG_CACHE_HOME: xdg.XDG_CACHE_HOME,
      ...standIn.env,
    },
  });
  try {
    await scenario("launch", () => launch("first launch"));
    await scenario("1 discovery: search, method detail, prompt preview, load into executor", discoveryScenario);
    await scenario("2 executor: form run of calculator_evaluate 6*7 = 42, history entry", executorScenario);
    await scenario("3 parser: two-call VCP reply, run all, results block", parserScenario);
    await scenario("4 prompt injection in a reply is shown as text, never run", injectionScenario);
    await scenario("4b destructive call: confirmation dialog, deny -> denied", confirmationScenario);
    await scenario("4c hermes reply: auto-detected, replayed as a stream", replayScenario);
    await scenario("6 sources: add the MCP test server, approve its command line, status ready", sourcesScenario);
    await scenario("7 MCP tools: found in Discovery, run in the Executor (text, progress, rich content)", mcpCallScenario);
    await scenario("18 MCP sign-in: an OAuth-protected server asks first, signs in through the browser, runs its tool, shows its steps, refreshes an expired token", async () => {
      oauthServer = await startOAuthServer(MCP_TEST_SERVER);
      await signInScenario({ browser, showPane, server: oauthServer, standIn });
    });
    await scenario("10 imported tools: paste a tools array, mock it, find it in Discovery, check and run a reply against it", importedScenario);
    await scenario("13 WASM tools: add the built textkit directory in Sources, run textkit_match in the Executor, history entry", async () => {
      await wasmScenario({ browser, showPane });
      wasmReady = true;
    });
    await scenario("11 agent: a profile for the scripted model server, a two-turn conversation with a confirmed write", async () => {
      modelServer = await startModelServer();
      await agentConversation({ browser, showPane, server: modelServer, xdg });
    });
    await scenario("17 MCP sampling: the agent's profile chosen in Sources, the request reviewed and sent, the model's text as the result", () =>
      samplingScenario({ browser, showPane, mcpName: MCP_NAME, profile: "scripted" }),
    );
    await scenario("14 settings: the timeout changed in the Settings view is stored and reaches the Executor", () =>
      settingsScenario({ browser, showPane, xdg }),
    );
    await scenario("15 metrics: every recorded run is counted, and a later run once the view is shown again", () =>
      metricsScenario({ browser, showPane, xdg }),
    );
    await scenario("8 no listening port: the app and its children (WebKit, MCP server) listen on no TCP/UDP port, under WebDriver and started directly", noListeningPortScenario);
    await scenario("5 restart: history survives with the same data dir, the approved server starts again, the WASM directory is remembered", restartScenario);
    await scenario("12 agent after the restart: the conversation is listed, opened and replayed unchanged", () =>
      agentRecorded({ browser, showPane }),
    );
    await scenario("16 settings after the restart: the saved timeout is still shown", () => settingsRemembered({ browser, showPane }));
    await scenario("19 MCP sign-in after the restart: still signed in without the browser, then signed out", () =>
      signInRemembered({ browser, showPane, server: oauthServer, standIn, xdg }),
    );
    await scenario("9 a corrupt settings file is set aside with a visible notice at the next start", corruptSettingsScenario);
  } finally {
    modelServer?.stop();
    oauthServer?.stop();
    if (browser) await closeSession(browser, driver).catch(() => {});
    await driver.stop();
  }

  const count = (status) => results.filter((r) => r.status === status).length;
  const failed = count("failed");
  if (failed === 0) removeDir(xdg.home);
  else log(`kept the app's data dirs for inspection: ${xdg.home}`);
  log(`screenshots: target/e2e-screenshots/; total ${((Date.now() - started) / 1000).toFixed(1)} s`);
  for (const r of results) log(`  ${r.status.padEnd(7)} ${r.name}${r.error ? `: ${r.error.message.split("\n")[0]}` : ""}`);
  console.log(`e2e: ${count("passed")} passed, ${failed} failed, ${count("skipped")} skipped`);
  process.exitCode = failed ? 1 : 0;
}

main().catch(async (error) => {
  console.log(`[e2e] ${error instanceof E2EError ? error.message : error.stack ?? error}`);
  if (driver) await driver.stop().catch(() => {});
  console.log("e2e: 0 passed, 1 failed");
  process.exitCode = 1;
});
