// Running an MCP server's echo-text the way a person does: found in Discovery, loaded into the
// Executor, its text typed in the form, run, and its own output waited for. Shared by the
// stdio test server's scenario and the OAuth-protected one's.

import { attributesOf, clickTestId, expect, setNativeValue, textOf, tid, waitFor, waitVisible } from "./harness.mjs";

const RUN_TIMEOUT = 15_000;

/** Runs `method` (an echo-text routing name) with `text`; fails unless it succeeds with it. */
export async function runEchoText({ browser, showPane, method, text }) {
  await showPane("discovery");
  await setNativeValue(browser, tid("discovery-search"), "echo-text");
  await waitVisible(browser, tid(`method-item-${method}`), { what: `${method} in Discovery (reloaded on sources-changed)` });
  await clickTestId(browser, `method-item-${method}`);
  await waitVisible(browser, tid("method-detail"), { what: `method detail of ${method}` });
  await clickTestId(browser, "load-into-executor");
  await waitFor(browser, async () => (await textOf(browser, tid("executor-tool-name"))) === method, {
    timeout: 5_000,
    explain: async () => `executor-tool-name is ${JSON.stringify(await textOf(browser, tid("executor-tool-name")))}, want ${method}`,
  });
  if (await browser.$(tid("executor-mode-form")).isExisting()) await clickTestId(browser, "executor-mode-form");
  const field = await waitVisible(browser, "#root_text", { what: `the form's text field of ${method}` });
  await field.setValue(text);
  await clickTestId(browser, "executor-run");
  // An earlier result stays shown until this run replaces it (later on a loaded machine):
  // wait for this call's own output, not just any finished result.
  const resultBody = async () => (await textOf(browser, tid("executor-result-body"))) ?? "";
  await waitFor(browser, async () => (await resultBody()).includes(text), {
    timeout: RUN_TIMEOUT,
    explain: async () => `${method} result body: ${JSON.stringify((await resultBody()).slice(0, 300))}`,
  });
  let status = null;
  await waitFor(
    browser,
    async () => {
      [status] = await attributesOf(browser, tid("executor-result"), "data-status");
      return status === "success" || status === "error";
    },
    { timeout: RUN_TIMEOUT, explain: async () => `${method}: data-status is ${JSON.stringify(status)} (want success/error)` },
  );
  expect(status === "success", `${method}: data-status="${status}"`);
}
