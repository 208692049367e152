// The Settings and Metrics views end to end. Settings: the timeout changed and saved in the
// view lands in settings.json, reaches the Executor's timeout field, and is still there after a
// restart. Metrics: after the runs of the earlier scenarios the view counts exactly the entries
// of history.jsonl, and a run made while it is open elsewhere is counted when it is shown again.

import fs from "node:fs";
import path from "node:path";

import { APP_IDENTIFIER, attributesOf, clickTestId, expect, screenshot, setNativeValue, textOf, tid, waitFor, waitVisible } from "./harness.mjs";

export const E2E_TIMEOUT_MS = "4321";

const dataDir = (xdg) => path.join(xdg.XDG_DATA_HOME, APP_IDENTIFIER);

/** Valid entries in the app's history file (what the Metrics view must count). */
function historyEntries(xdg) {
  const file = path.join(dataDir(xdg), "history.jsonl");
  if (!fs.existsSync(file)) return 0;
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => {
      try {
        return typeof JSON.parse(line).id === "string";
      } catch {
        return false;
      }
    }).length;
}

async function timeoutField(browser) {
  return waitVisible(browser, tid("setting-timeout_ms"), { what: "the Settings view's timeout field" });
}

/** Changes the timeout in the Settings view, saves, and checks where it went. */
export async function settingsScenario({ browser, showPane, xdg }) {
  await showPane("settings");
  await timeoutField(browser);
  await waitVisible(browser, tid("setting-parallel_execution"), { what: "the execution mode field" });
  await setNativeValue(browser, tid("setting-timeout_ms"), E2E_TIMEOUT_MS);
  await waitFor(browser, async () => ((await textOf(browser, tid("settings-status"))) ?? "").includes("1 unsaved change"), {
    timeout: 5_000,
    explain: async () => `settings-status reads ${JSON.stringify(await textOf(browser, tid("settings-status")))}`,
  });
  await clickTestId(browser, "settings-save");
  await waitFor(browser, async () => ((await textOf(browser, tid("settings-status"))) ?? "").startsWith("Saved"), {
    timeout: 10_000,
    explain: async () => `after Save, settings-status reads ${JSON.stringify(await textOf(browser, tid("settings-status")))}`,
  });
  const file = path.join(dataDir(xdg), "settings.json");
  const stored = JSON.parse(fs.readFileSync(file, "utf8"));
  expect(stored.settings?.config?.timeout_ms === Number(E2E_TIMEOUT_MS), `${file} holds ${JSON.stringify(stored.settings?.config)}`);
  const leftovers = fs.readdirSync(dataDir(xdg)).filter((name) => name.startsWith(".settings.json."));
  expect(leftovers.length === 0, `temporary settings files left: ${JSON.stringify(leftovers)}`);
  await screenshot("settings", { browser, focus: tid("setting-timeout_ms") });

  // The Executor shows the new timeout without a restart.
  await showPane("executor");
  await waitFor(browser, async () => (await textOf(browser, tid("executor-timeout"))) === E2E_TIMEOUT_MS, {
    timeout: 5_000,
    explain: async () => `executor-timeout is ${JSON.stringify(await textOf(browser, tid("executor-timeout")))}`,
  });
}

/** After the restart: the saved timeout is what the view shows. */
export async function settingsRemembered({ browser, showPane }) {
  await showPane("settings");
  await timeoutField(browser);
  await waitFor(browser, async () => (await textOf(browser, tid("setting-timeout_ms"))) === E2E_TIMEOUT_MS, {
    timeout: 10_000,
    explain: async () => `after the restart setting-timeout_ms is ${JSON.stringify(await textOf(browser, tid("setting-timeout_ms")))}`,
  });
}

async function shownCalls(browser) {
  const [value] = await attributesOf(browser, tid("metrics-total-calls"), "data-value");
  return value === undefined || value === null ? null : Number(value);
}

async function waitCalls(browser, xdg, what) {
  let want = null;
  await waitFor(
    browser,
    async () => {
      want = historyEntries(xdg);
      return (await shownCalls(browser)) === want;
    },
    {
      timeout: 10_000,
      explain: async () => `${what}: metrics-total-calls shows ${await shownCalls(browser)}, history.jsonl has ${want} entries`,
    },
  );
  return want;
}

/** The Metrics view counts every recorded run, and a later run once it is shown again. */
export async function metricsScenario({ browser, showPane, xdg }) {
  const recorded = historyEntries(xdg);
  expect(recorded > 0, "history.jsonl has no entries: the earlier scenarios ran nothing");
  await showPane("metrics");
  await waitVisible(browser, tid("metrics-totals"), { what: "the Metrics view's totals" });
  await waitCalls(browser, xdg, "the runs so far");
  await waitVisible(browser, `${tid("metrics-tool-row")}[data-name="calculator"]`, { what: "the calculator row of the per-tool table" });
  const canvases = await browser.execute(() => document.querySelectorAll('[data-testid="metrics-chart"] canvas').length);
  expect(canvases > 0, "the chart drew no canvas");
  await screenshot("metrics", { browser });

  // One more run in the Executor (whatever it holds), then back to Metrics.
  await showPane("executor");
  await clickTestId(browser, "executor-run");
  await waitFor(browser, () => historyEntries(xdg) > recorded, {
    timeout: 15_000,
    explain: async () => "the Executor run was not recorded in history.jsonl",
  });
  await showPane("metrics");
  const now = await waitCalls(browser, xdg, "after one more run");
  expect(now > recorded, `the count did not grow (${recorded} -> ${now})`);
}
