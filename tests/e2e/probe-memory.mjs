// Diagnosis aid (by hand, not part of the suite): which Executor operation makes the web
// process grow. Run under Xvfb like the bench (TOOLSCOPE_APP picks the binary, default debug):
//   xvfb-run -a node tests/e2e/probe-memory.mjs --steps seed:150,refresh:200,type:200,run:200 [--every 50] [--smaps]
// Steps (each "name:count"):
//   seed     a run over IPC (adds a history entry, no UI work)
//   refresh  the history's Refresh button (re-query and re-render the list)
//   type     a new value in #root_message (form re-render only)
//   run      a full run through the pane, as the bench does
//   json     switch to JSON mode and back
//   intl, intlfmt, numloc, lcmp, datestr
//            100 calls each of Date#toLocaleTimeString, one shared Intl.DateTimeFormat,
//            Number#toLocaleString, String#localeCompare, Date#toDateString/toISOString: the
//            first and the third grow WebKitGTK 2.50's web process for good (about 54 KB and
//            2.4 KB a call), the others do not (see ui/src/lib/format.ts)
// RSS (and PSS) of the app and its WebKit processes is printed every `--every` repetitions;
// `--smaps` adds the largest mappings of each process after start and at the end.

import fs from "node:fs";
import path from "node:path";

import {
  APP_BINARY,
  checkPrerequisites,
  closeSession,
  descendants,
  log,
  makeXdgHome,
  memoryOf,
  openSession,
  processTable,
  removeDir,
  startDriver,
  tid,
  waitVisible,
} from "./lib/harness.mjs";

function option(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 && process.argv[index + 1] !== undefined ? process.argv[index + 1] : fallback;
}
const STEPS = option("steps", "seed:150,refresh:200,type:200,run:200")
  .split(",")
  .map((s) => {
    const [name, count] = s.split(":");
    return { name, count: Number(count ?? 100) };
  });
const EVERY = Number(option("every", 50));

const mib = (kb) => `${(kb / 1024).toFixed(1)}`;

function memory(appPid) {
  const table = processTable();
  const parts = {};
  let pss = 0;
  for (const pid of [appPid, ...descendants(appPid, table)]) {
    const m = memoryOf(pid);
    if (!m) continue;
    parts[table.get(pid)?.comm ?? String(pid)] = m.rss;
    pss += m.pss ?? 0;
  }
  return { parts, pss };
}

function report(label, appPid) {
  const { parts, pss } = memory(appPid);
  const total = Object.values(parts).reduce((a, b) => a + b, 0);
  log(`${label.padEnd(28)} RSS ${mib(total)} MiB (PSS ${mib(pss)})  ${Object.entries(parts).map(([k, v]) => `${k} ${mib(v)}`).join("  ")}`);
}

/** The largest contributors to each process's RSS, by mapping (file or [heap]/anon). */
function smapsSummary(appPid) {
  const table = processTable();
  for (const pid of [appPid, ...descendants(appPid, table)]) {
    let text;
    try {
      text = fs.readFileSync(`/proc/${pid}/smaps`, "utf8");
    } catch {
      continue;
    }
    const byName = new Map();
    let name = null;
    for (const line of text.split("\n")) {
      const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+(?:\s+(.*))?$/.exec(line);
      if (head) {
        name = head[1]?.trim() || "[anon]";
        continue;
      }
      const rss = /^Rss:\s+(\d+) kB/.exec(line);
      if (rss && name) byName.set(name, (byName.get(name) ?? 0) + Number(rss[1]));
    }
    const top = [...byName.entries()].sort((a, b) => b[1] - a[1]).slice(0, 14);
    log(`smaps ${table.get(pid)?.comm ?? pid}: ${top.map(([n, kb]) => `${path.basename(n)} ${mib(kb)}`).join(", ")}`);
  }
}

/** In-page: repeat one operation `n` times, waiting for its effect each time. */
async function repeat(browser, name, first, n) {
  return browser.executeAsync(
    (op, from, count, done) => {
      const q = (id) => document.querySelector(`[data-testid="${id}"]`);
      const setValue = (element, text) => {
        Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set.call(element, text);
        element.dispatchEvent(new Event("input", { bubbles: true }));
        element.dispatchEvent(new Event("change", { bubbles: true }));
      };
      const frame = () => new Promise((r) => requestAnimationFrame(r));
      const waitUntil = (predicate, timeout = 10000) =>
        new Promise((resolve, reject) => {
          const until = performance.now() + timeout;
          const tick = () => {
            if (predicate()) resolve();
            else if (performance.now() > until) reject(new Error(`timeout in ${op}`));
            else setTimeout(tick, 2);
          };
          tick();
        });
      const internals = window.__TAURI_INTERNALS__;
      (async () => {
        for (let i = from; i < from + count; i++) {
          const marker = `probe-${op}-${i}-end`;
          if (op === "seed") {
            const id = internals.transformCallback((message) => {
              if (message && "end" in message) internals.unregisterCallback(id);
            });
            await internals.invoke("execute_call", {
              call: { tool_name: "echo_echo", args: { message: marker }, parent_id: null },
              runId: crypto.randomUUID(),
              onEvent: `__CHANNEL__:${id}`,
            });
          } else if (op === "refresh") {
            const button = [...document.querySelectorAll("#panel-executor button")].find((b) => b.textContent === "Refresh");
            await waitUntil(() => !button.disabled);
            button.click();
            await frame();
            await waitUntil(() => !button.disabled);
          } else if (op === "type") {
            setValue(document.getElementById("root_message"), marker);
            await frame();
          } else if (op === "json") {
            q("executor-mode-json").click();
            await waitUntil(() => document.querySelector('[data-testid="executor-json-editor"], .cm-editor'));
            await frame();
            q("executor-mode-form").click();
            await waitUntil(() => document.getElementById("root_message"));
            await frame();
          } else if (op === "run") {
            await waitUntil(() => !q("executor-run").disabled);
            setValue(document.getElementById("root_message"), marker);
            await frame();
            q("executor-run").click();
            await waitUntil(() => {
              const body = q("executor-result-body");
              return q("executor-result")?.getAttribute("data-status") === "success" && body?.textContent.includes(marker);
            });
          } else if (op === "intl") {
            // 100 Date#toLocaleTimeString calls, as one render of 100 history rows makes.
            let n = 0;
            for (let k = 0; k < 100; k++) n += new Date(Date.now() - k).toLocaleTimeString().length;
            if (n < 0) throw new Error("unreachable");
            await frame();
          } else if (op === "intlfmt") {
            // The same with one shared Intl.DateTimeFormat.
            window.__fmt ??= new Intl.DateTimeFormat(undefined, { timeStyle: "medium" });
            let n = 0;
            for (let k = 0; k < 100; k++) n += window.__fmt.format(Date.now() - k).length;
            if (n < 0) throw new Error("unreachable");
            await frame();
          } else if (op === "numloc") {
            let n = 0;
            for (let k = 0; k < 100; k++) n += (12345 + k).toLocaleString("en-US").length;
            if (n < 0) throw new Error("unreachable");
            await frame();
          } else if (op === "lcmp") {
            let n = 0;
            for (let k = 0; k < 100; k++) n += `name_${k}`.localeCompare(`name_${k + 1}`);
            if (n > 1e9) throw new Error("unreachable");
            await frame();
          } else if (op === "datestr") {
            let n = 0;
            for (let k = 0; k < 100; k++) n += new Date(Date.now() - k).toDateString().length + new Date(Date.now() - k).toISOString().length;
            if (n < 0) throw new Error("unreachable");
            await frame();
          } else throw new Error(`unknown step ${op}`);
        }
      })().then(
        () => done({ ok: true }),
        (error) => done({ ok: false, error: String(error) }),
      );
    },
    name,
    first,
    n,
  );
}

async function main() {
  checkPrerequisites();
  const xdg = makeXdgHome("probe-home");
  log(`app: ${APP_BINARY}`);
  const driver = await startDriver({
    logName: "probe-tauri-driver",
    env: { XDG_DATA_HOME: xdg.XDG_DATA_HOME, XDG_CONFIG_HOME: xdg.XDG_CONFIG_HOME, XDG_CACHE_HOME: xdg.XDG_CACHE_HOME },
  });
  try {
    const browser = await openSession(driver);
    await browser.setTimeout({ script: 600_000 });
    await waitVisible(browser, tid("tool-item-calculator"), { timeout: 20_000, what: "tool list" });
    const appPid = driver.appPid();
    await new Promise((r) => setTimeout(r, 2000));
    report("after start", appPid);
    if (process.argv.includes("--smaps")) smapsSummary(appPid);
    await browser.execute(() => document.getElementById("tab-executor")?.click());
    await browser.execute((sel) => {
      const input = document.querySelector(sel);
      Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set.call(input, "echo_echo");
      input.dispatchEvent(new Event("input", { bubbles: true }));
    }, tid("executor-tool-name"));
    await waitVisible(browser, "#root_message", { what: "echo form" });
    await new Promise((r) => setTimeout(r, 1000));
    report("executor open", appPid);
    for (const step of STEPS) {
      for (let from = 0; from < step.count; from += EVERY) {
        const n = Math.min(EVERY, step.count - from);
        const outcome = await repeat(browser, step.name, from, n);
        if (!outcome.ok) throw new Error(`${step.name}: ${outcome.error}`);
        report(`${step.name} ${from + n}/${step.count}`, appPid);
      }
      const dom = await browser.execute(() => document.getElementsByTagName("*").length);
      log(`  DOM elements: ${dom}`);
    }
    await new Promise((r) => setTimeout(r, 10_000));
    report("idle 10 s", appPid);
    if (process.argv.includes("--smaps")) smapsSummary(appPid);
    await closeSession(browser, driver);
  } finally {
    await driver.stop();
    removeDir(xdg.home);
  }
}

main().catch((error) => {
  console.error(`[probe] ${error.stack ?? error}`);
  process.exitCode = 1;
});

