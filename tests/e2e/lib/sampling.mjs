// MCP sampling in the app: the MCP test server's `sample` tool asks the client's model for a
// message; the endpoint profile of the agent scenario (the scripted model server) is chosen for
// sampling in the Sources pane, the request is reviewed in the dialog and sent, and the model's
// text comes back as the tool's result.

import { clickTestId, expect, screenshot, setNativeValue, textOf, tid, waitFor, waitVisible } from "./harness.mjs";

const RUN_TIMEOUT = 20_000;

export async function samplingScenario({ browser, showPane, mcpName, profile }) {
  await showPane("sources");
  await waitVisible(browser, tid("sampling-profile"), { what: "the sampling choice in the MCP section" });
  await waitFor(
    browser,
    async () => browser.execute((sel, name) => [...(document.querySelector(sel)?.options ?? [])].some((o) => o.value === name), tid("sampling-profile"), profile),
    { timeout: 5_000, explain: async () => `the sampling choice offers no profile ${profile}` },
  );
  await setNativeValue(browser, tid("sampling-profile"), profile);

  await showPane("executor");
  await setNativeValue(browser, tid("executor-tool-name"), `${mcpName}_sample`);
  await browser.execute(() => document.activeElement?.blur());
  await waitVisible(browser, "#root_text", { what: "the form's text field of sample" });
  await setNativeValue(browser, "#root_text", "Say hi to Toolscope");
  await clickTestId(browser, "executor-run");
  await waitVisible(browser, tid("sampling-review"), { timeout: RUN_TIMEOUT, what: "the sampling request under review" });
  const model = await textOf(browser, tid("sampling-model"));
  expect(model === "toolscope-test", `the review names model ${JSON.stringify(model)}`);
  const message = await textOf(browser, tid("sampling-message"));
  expect(/Say hi/.test(message ?? ""), `the reviewed message is ${JSON.stringify(message)}`);
  await screenshot("sampling-review", { browser, focus: tid("elicitation-dialog"), settleMs: 500 });
  await clickTestId(browser, "elicitation-accept");

  const body = async () => (await textOf(browser, tid("executor-result-body"))) ?? "";
  await waitFor(browser, async () => (await body()).includes("Hi from the scripted model"), {
    timeout: RUN_TIMEOUT,
    explain: async () => `the sample result body: ${JSON.stringify((await body()).slice(0, 300))}`,
  });
}
