// WASM tools end to end: the example tool textkit, built from C by tests/fixtures/wasm/build.sh
// (run.sh builds it and names the output directory in TOOLSCOPE_WASM_EXAMPLES), added in the
// Sources pane by typing its directory, then run in the Executor: its regex tester finds the
// numbers of "a1b22", and the run lands in the history. After a restart the directory is still
// added and the tool loaded again.

import fs from "node:fs";
import path from "node:path";

import { attributesOf, clickTestId, expect, screenshot, setNativeValue, textOf, tid, waitFor, waitVisible } from "./harness.mjs";

const RUN_TIMEOUT = 20_000;
const METHOD = "textkit_match";
const TOOL = `${tid("wasm-directory")} ${tid("wasm-tool")}[data-tool-id="textkit"]`;

/** The built textkit directory (manifest.toml + textkit.wasm). */
export function textkitDirectory() {
  const examples = process.env.TOOLSCOPE_WASM_EXAMPLES;
  expect(examples, "TOOLSCOPE_WASM_EXAMPLES is not set: tests/e2e/run.sh builds the example WASM tools and sets it");
  const directory = path.join(examples, "textkit");
  for (const file of ["manifest.toml", "textkit.wasm"]) {
    expect(fs.existsSync(path.join(directory, file)), `${path.join(directory, file)} is missing: bash tests/fixtures/wasm/build.sh ${examples}`);
  }
  return directory;
}

const historyCount = (browser) =>
  browser.execute((sel) => document.querySelectorAll(sel).length, `${tid("history-item")}[data-tool-name="${METHOD}"]`);

/** Adds textkit in the Sources pane, runs textkit_match in the Executor, checks result and history. */
export async function wasmScenario({ browser, showPane }) {
  const directory = textkitDirectory();
  await showPane("sources");
  await waitVisible(browser, tid("wasm-tools"), { what: "the Sources pane's WASM tools section" });
  const input = await waitVisible(browser, tid("wasm-directory-input"), { what: "the WASM directory input" });
  await input.setValue(directory); // real key events, then Enter submits the form
  await waitFor(browser, async () => (await input.getValue()) === directory, {
    timeout: 5_000,
    explain: async () => `wasm-directory-input holds ${JSON.stringify(await input.getValue())}, want ${JSON.stringify(directory)}`,
  });
  await browser.keys("Enter");
  await waitVisible(browser, TOOL, {
    timeout: RUN_TIMEOUT,
    what: `textkit listed after adding ${directory}`,
  });
  const listed = (await textOf(browser, TOOL)) ?? "";
  expect(listed.includes("Text kit") && listed.includes("4 methods"), `the textkit row reads ${JSON.stringify(listed)}`);
  const [shownPath] = await attributesOf(browser, tid("wasm-directory"), "data-path");
  expect(shownPath === fs.realpathSync(directory), `the directory block shows ${JSON.stringify(shownPath)}`);
  const problems = await browser.execute((sel) => [...document.querySelectorAll(sel)].map((e) => e.innerText), tid("wasm-problems"));
  expect(problems.length === 0, `problems shown after adding textkit: ${JSON.stringify(problems)}`);
  expect((await textOf(browser, tid("wasm-directory-input"))) === "", "the input keeps the added path");
  await screenshot("sources-wasm", { browser, focus: tid("wasm-tools") });

  await showPane("executor");
  const before = await historyCount(browser);
  await waitVisible(browser, tid("executor-tool-name"), { what: "Executor tool name" });
  await setNativeValue(browser, tid("executor-tool-name"), METHOD);
  await browser.execute(() => document.activeElement?.blur());
  if (await browser.$(tid("executor-mode-form")).isExisting()) await clickTestId(browser, "executor-mode-form");
  const pattern = await waitVisible(browser, "#root_pattern", { what: `the form's pattern field of ${METHOD} (its schema reached the Executor)` });
  await pattern.setValue("[0-9]+");
  const text = await waitVisible(browser, "#root_text", { what: `the form's text field of ${METHOD}` });
  await text.setValue("a1b22");
  await waitFor(browser, async () => (await pattern.getValue()) === "[0-9]+" && (await text.getValue()) === "a1b22", {
    timeout: 3_000,
    explain: async () => `the form holds pattern ${JSON.stringify(await pattern.getValue())}, text ${JSON.stringify(await text.getValue())}`,
  });
  await clickTestId(browser, "executor-run");
  // An earlier scenario's result stays shown until this run replaces it: wait for this one's.
  const body = async () => (await textOf(browser, tid("executor-result-body"))) ?? "";
  await waitFor(browser, async () => /"count"\s*:\s*2\b/.test(await body()), {
    timeout: RUN_TIMEOUT,
    explain: async () => `${METHOD} result: ${JSON.stringify((await textOf(browser, tid("executor-result")))?.slice(0, 400))}`,
  });
  const [status] = await attributesOf(browser, tid("executor-result"), "data-status");
  expect(status === "success", `${METHOD}: data-status="${status}", body ${JSON.stringify((await body()).slice(0, 300))}`);
  const shown = await body();
  expect(shown.includes('"1"') && shown.includes('"22"'), `the matches are not shown: ${JSON.stringify(shown.slice(0, 400))}`);
  await waitFor(browser, async () => (await historyCount(browser)) === before + 1, {
    timeout: 10_000,
    explain: async () => `history entries of ${METHOD}: ${await historyCount(browser)}, want ${before + 1}`,
  });
  await screenshot("executor-wasm", { browser, focus: tid("executor-result") });
}

/** After a restart: the added directory is remembered and textkit loads again. */
export async function wasmRemembered({ browser, showPane }) {
  await showPane("sources");
  await waitVisible(browser, TOOL, { timeout: RUN_TIMEOUT, what: "textkit listed again after the restart" });
}
