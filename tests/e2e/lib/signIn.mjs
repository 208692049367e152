// Signing in to an OAuth-protected MCP server from the app, end to end: the rmcp test server in
// its --http-oauth mode (protected resource, authorization server and all, on 127.0.0.1), and a
// stand-in for the browser (signInBrowser.mjs, the app's $BROWSER) that follows the
// authorization page's redirect back to the app's loopback listener.
//
// The app must not open the browser by itself: the server first shows "sign in required".
// Signing in gets it ready and its echo-text runs in the Executor; its steps are shown; an expired token is refreshed without a second
// authorization; after a restart it is still signed in; signing out forgets it.

import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";

import { runEchoText } from "./mcpCall.mjs";
import { APP_IDENTIFIER, attributesOf, clickTestId, expect, log, ROOT, screenshot, setNativeValue, textOf, tid, waitFor, waitVisible } from "./harness.mjs";

export const SIGN_IN_NAME = "guarded";
/** Short enough to wait out, long enough that the first connection does not refresh at once. */
const TOKEN_LIFETIME_S = 6;
const row = `${tid("server-item")}[data-name="${SIGN_IN_NAME}"]`;

/** Where the stand-in browser notes each page it opened, and the env the app needs for it. */
export function browserStandIn(dir) {
  const logFile = path.join(dir, "browser-pages.log");
  fs.writeFileSync(logFile, "");
  const script = path.join(ROOT, "tests/e2e/lib/signInBrowser.mjs");
  return { logFile, env: { BROWSER: `${process.execPath} ${script}`, E2E_BROWSER_LOG: logFile } };
}

const pagesOpened = (logFile) =>
  fs
    .readFileSync(logFile, "utf8")
    .split("\n")
    .filter((line) => line.startsWith("http"));

/** Starts the test server's OAuth mode; resolves with its URL, its counters and stop(). */
export async function startOAuthServer(binary) {
  const child = spawn(binary, ["--http-oauth", "--token-lifetime", String(TOKEN_LIFETIME_S)], { stdio: ["pipe", "pipe", "ignore"] });
  const lines = readline.createInterface({ input: child.stdout });
  const first = await Promise.race([
    new Promise((resolve) => lines.once("line", resolve)),
    new Promise((resolve) => setTimeout(() => resolve(null), 20_000)),
  ]);
  expect(first?.startsWith("listening "), `the OAuth test server said ${JSON.stringify(first)} instead of its address`);
  const url = first.slice("listening ".length).trim();
  const base = url.replace(/\/mcp$/, "");
  return {
    url,
    stats: async () => (await fetch(`${base}/stats`)).json(),
    stop: () => child.kill(),
  };
}

const stateOf = async (browser) => (await attributesOf(browser, row, "data-state"))[0];

async function waitState(browser, want, what, timeout = 20_000) {
  await waitFor(browser, async () => (await stateOf(browser)) === want, {
    timeout,
    explain: async () => `${what}: ${SIGN_IN_NAME} is ${JSON.stringify(await stateOf(browser))}, want ${want}: ${JSON.stringify(await textOf(browser, row))}`,
  });
}

/** Adds the server by URL, checks nothing opens unasked, signs in, reads the steps, refreshes. */
export async function signInScenario({ browser, showPane, server, standIn }) {
  await showPane("sources");
  await clickTestId(browser, "mcp-add");
  await waitVisible(browser, tid("server-form"), { what: "the add-server form" });
  await setNativeValue(browser, tid("server-form-name"), SIGN_IN_NAME);
  await clickTestId(browser, "server-form-type-http");
  await setNativeValue(browser, tid("server-form-url"), server.url);
  await clickTestId(browser, "server-form-save");
  await waitState(browser, "sign_in_required", "after adding the OAuth-protected server");
  expect(pagesOpened(standIn.logFile).length === 0, `a browser opened unasked: ${JSON.stringify(pagesOpened(standIn.logFile))}`);
  const before = await server.stats();
  expect(before.registrations === 0 && before.authorizations === 0, `the app registered or authorized unasked: ${JSON.stringify(before)}`);
  await screenshot("sources-sign-in-required", { browser, focus: row });

  await clickTestId(browser, "server-sign-in", { selector: `${row} ${tid("server-sign-in")}` });
  await waitState(browser, "ready", "after Sign in");
  const opened = pagesOpened(standIn.logFile);
  expect(opened.length === 1 && opened[0].includes("/authorize?"), `pages opened: ${JSON.stringify(opened)}`);
  expect(await browser.$(`${row} ${tid("server-sign-out")}`).isExisting(), "no Sign out button once signed in");
  // Listed and callable: the call carries the token.
  await runEchoText({ browser, showPane, method: `${SIGN_IN_NAME}_echo-text`, text: "hello behind OAuth" });
  await showPane("sources");

  await clickTestId(browser, "server-sign-in-steps", { selector: `${row} ${tid("server-sign-in-steps")}` });
  const stepTitles = async () =>
    browser.execute(
      (sel) => [...document.querySelectorAll(sel)].map((el) => `${el.dataset.outcome}:${el.querySelector(".src-step-title")?.textContent ?? ""}`),
      `${row} ${tid("sign-in-step")}`,
    );
  await waitFor(browser, async () => (await stepTitles()).includes("done:Token request (authorization code)"), {
    timeout: 10_000,
    explain: async () => `sign-in steps: ${JSON.stringify(await stepTitles())}`,
  });
  const steps = await stepTitles();
  expect(!steps.some((s) => s.startsWith("failed:")), `a step failed: ${JSON.stringify(steps)}`);
  await screenshot("sources-sign-in-steps", { browser, focus: row });

  // The token expires; reconnecting refreshes it, without a second authorization.
  await new Promise((resolve) => setTimeout(resolve, (TOKEN_LIFETIME_S + 1) * 1000));
  await clickTestId(browser, "server-reconnect", { selector: `${row} ${tid("server-reconnect")}` });
  await waitState(browser, "ready", "after reconnecting with an expired token");
  const after = await server.stats();
  expect(after.authorizations === 1 && after.refreshes >= 1, `after the expiry: ${JSON.stringify(after)}`);
  log(`  signed in once, refreshed ${after.refreshes} time(s); ${steps.length} steps shown`);
}

/** After a restart: still signed in (no new authorization); then Sign out forgets it. */
export async function signInRemembered({ browser, showPane, server, standIn, xdg }) {
  await showPane("sources");
  await waitState(browser, "ready", "after the restart");
  const stats = await server.stats();
  expect(stats.authorizations === 1, `the restart authorized again: ${JSON.stringify(stats)}`);
  expect(pagesOpened(standIn.logFile).length === 1, `pages opened: ${JSON.stringify(pagesOpened(standIn.logFile))}`);

  const dir = path.join(xdg.XDG_DATA_HOME, APP_IDENTIFIER, "sign-ins");
  expect(fs.readdirSync(dir).length === 1, `sign-in files: ${JSON.stringify(fs.readdirSync(dir))}`);
  await clickTestId(browser, "server-sign-out", { selector: `${row} ${tid("server-sign-out")}` });
  await waitState(browser, "sign_in_required", "after Sign out");
  expect(fs.readdirSync(dir).length === 0, `sign-in files after signing out: ${JSON.stringify(fs.readdirSync(dir))}`);
  expect(pagesOpened(standIn.logFile).length === 1, "signing out opened a page");
  await screenshot("sources-signed-out", { browser, focus: row });
}
