// Bench of the real app under Xvfb (run by hand: `bash tests/e2e/run.sh --bench [options]`).
//
//   --starts N          startup measurements (default 5)
//   --runs N            executor runs of echo_echo for the memory figure (default 1000)
//   --runs-via MODE     ui | ipc | auto (default auto: the Executor pane if it has the contract's
//                       testids, else window.__TAURI_INTERNALS__.invoke("execute_call"))
//   --methods N         synthetic methods for the search-latency part (default 10000; 0 skips)
//   --paste-mb N        size of the reply pasted into the Parser (default 5; 0 skips): paste ->
//                       requests shown, then keystroke latency typing at the end of it
//   --floor BINARY      the empty Tauri 2 window (examples/empty_window.rs) measured the same way
//                       (default: examples/empty_window beside the app binary, when built:
//                       `cargo build [--release] --example empty_window`); "none" skips it
//
// Where a UI run's time goes: with a profiling UI build (`npx vite build --mode profile` in ui/,
// then E2E_SKIP_BUILD=1 with an app that embeds it, or a `--no-default-features` app that loads
// `vite preview` on the dev URL) React's render time per <Timed> subtree is printed; the
// BENCH_*_PROBE variables of lib/paintProbes.mjs measure what WebKit repaints.
//
// Startup, method: WebKitWebDriver does not start the app binary itself but a tiny wrapper
// script that writes the wall clock (`date +%s%N`) to a file and then `exec`s the app binary,
// so "spawn" is the moment the app's process image starts. As soon as the WebDriver session
// exists, an async script in the page resolves at the first DOM mutation that makes
// [data-testid=tool-item-calculator] present and laid out, and returns Date.now() of the
// animation frame after it (the first frame that can show it). If the list is already there
// when the script first runs, that moment is only an upper bound and is marked "<=".
// Page clock and node clock are the same system clock (Date.now()).
//
// Memory: VmRSS summed over the app process and all its descendants (WebKitWebProcess,
// WebKitNetworkProcess) from /proc/<pid>/status; PSS from /proc/<pid>/smaps_rollup alongside
// (RSS double-counts shared libraries across the three processes, PSS does not).
//
// Where growth lives: after start, with the Executor's echo_echo form shown (UI runs), after
// the runs and 15 s later, each process's anonymous resident memory is split by kind of
// mapping (brk heap, shared paint buffers, unnamed mappings by size and permissions), and the
// page's registered Tauri callbacks and DOM elements are counted. Knobs for diagnosis:
// BENCH_RUNS_CHUNK=N (runs per in-page batch, default 50), BENCH_RUNS_MEMORY_EVERY_CHUNK=1 (RSS
// after every batch), BENCH_RUNS_PLAIN=1 (UI runs without the per-run MutationObserver and
// MessageChannel: polling only, so the bench's own instruments can be ruled out). JavaScriptCore
// reads JSC_<option> variables in the web process (e.g. JSC_useDFGJIT=false, JSC_logGC=1; the
// GC log lands in target/e2e-logs/bench-tauri-driver.log).
//
// Search latency: the app is started with TOOLSCOPE_SYNTHETIC_METHODS=N (N generated methods
// on top of the ~16 built-in ones). Real key events are sent to [data-testid=discovery-search]
// through WebDriver; the page records each keydown's event.timeStamp and the last DOM mutation
// it caused (until 250 ms pass without a mutation); latency = first animation frame after that
// last mutation - keydown. Debouncing in the pane is therefore included, as a user feels it.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import {
  APP_BINARY,
  checkPrerequisites,
  closeSession,
  E2EError,
  hostSummary,
  log,
  makeXdgHome,
  memoryOf,
  openSession,
  removeDir,
  startDriver,
  tid,
  processTable,
  descendants,
  waitVisible,
} from "./lib/harness.mjs";
import { paintProbes, parseProbe } from "./lib/paintProbes.mjs";

function option(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 && process.argv[index + 1] !== undefined ? process.argv[index + 1] : fallback;
}
const STARTS = Number(option("starts", 5));
const RUNS = Number(option("runs", 1000));
const RUNS_VIA = option("runs-via", "auto");
const METHODS = Number(option("methods", 10000));
const PASTE_MB = Number(option("paste-mb", 5));
const FLOOR_DEFAULT = path.join(path.dirname(APP_BINARY), "examples", "empty_window");
const FLOOR = option("floor", FLOOR_DEFAULT);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};
const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] : NaN;
};
const ms = (x) => (typeof x === "number" ? `${Math.round(x)} ms` : "?");
const mib = (kb) => `${(kb / 1024).toFixed(1)} MiB`;

let tmp;
let driver;

/** A wrapper that stamps the spawn time, sets extra env, and execs the app. */
function wrapper(name, env = {}, binary = APP_BINARY) {
  const stampFile = path.join(tmp, `${name}.spawned`);
  const script = path.join(tmp, `${name}.sh`);
  const exports = Object.entries(env)
    .map(([k, v]) => `export ${k}='${String(v).replace(/'/g, "'\\''")}'\n`)
    .join("");
  fs.writeFileSync(
    script,
    `#!/bin/sh\ndate +%s%N > '${stampFile}'\n${exports}exec '${binary}' "$@"\n`,
    { mode: 0o755 },
  );
  return { script, spawnedAt: () => Number(BigInt(fs.readFileSync(stampFile, "utf8").trim()) / 1_000_000n) };
}

/** Page-side: resolves with the time the selector's element first showed (see the header). */
async function whenRendered(browser, selector, timeoutMs) {
  return browser.executeAsync(
    (sel, timeout, done) => {
      const shown = () => {
        const element = document.querySelector(sel);
        return !!element && element.getClientRects().length > 0;
      };
      const base = { timeOrigin: performance.timeOrigin, domContentLoaded: null, fcp: null };
      const nav = performance.getEntriesByType("navigation")[0];
      if (nav) base.domContentLoaded = performance.timeOrigin + nav.domContentLoadedEventEnd;
      const paint = performance.getEntriesByName("first-contentful-paint")[0];
      if (paint) base.fcp = performance.timeOrigin + paint.startTime;
      if (shown()) {
        done({ ...base, at: Date.now(), upperBound: true });
        return;
      }
      // The page's own timeline (navigation, script and IPC fetches), on the same clock.
      const timeline = () => {
        const at = (t) => Math.round(performance.timeOrigin + t);
        const marks = [];
        if (nav) marks.push(["page requested", at(nav.fetchStart)], ["page received", at(nav.responseEnd)], ["DOM interactive", at(nav.domInteractive)]);
        for (const entry of performance.getEntriesByType("mark")) marks.push([entry.name, at(entry.startTime)]);
        for (const entry of performance.getEntriesByType("resource")) {
          const name = entry.name.replace(/^[a-z]+:\/\/[^/]*\//, "").split("?")[0];
          marks.push([`${name} requested`, at(entry.startTime)], [`${name} received`, at(entry.responseEnd)]);
        }
        return marks.sort((a, b) => a[1] - b[1]);
      };
      const observer = new MutationObserver(() => {
        if (!shown()) return;
        observer.disconnect();
        requestAnimationFrame(() => done({ ...base, at: Date.now(), upperBound: false, timeline: timeline() }));
      });
      observer.observe(document, { childList: true, subtree: true, attributes: true });
      setTimeout(() => {
        observer.disconnect();
        done({ ...base, at: null, upperBound: false });
      }, timeout);
    },
    selector,
    timeoutMs,
  );
}

function appMemory(appPid) {
  const table = processTable();
  const pids = [appPid, ...descendants(appPid, table)];
  let rss = 0;
  let pss = 0;
  const parts = [];
  for (const pid of pids) {
    const m = memoryOf(pid);
    if (!m) continue;
    rss += m.rss;
    pss += m.pss ?? 0;
    parts.push(`${table.get(pid)?.comm ?? pid} ${mib(m.rss)}`);
  }
  return { rss, pss, parts: parts.join(" + "), processes: pids.length };
}

/**
 * Where the resident memory of the app's processes lives, from /proc/<pid>/smaps: the WebKit
 * and JavaScriptCore libraries, Mesa's GL driver with the LLVM it links (WebKitGTK insists on
 * an EGL display, so under Xvfb that is llvmpipe), other shared libraries, the app binary,
 * and anonymous memory (heaps, JS heap, stacks). Shared libraries are counted once per
 * process, as RSS counts them.
 */
function memoryBreakdown(appPid, onlyPid = null) {
  const table = processTable();
  const pids = onlyPid === null ? [appPid, ...descendants(appPid, table)] : [onlyPid];
  const kinds = { webkit: 0, mesaLlvm: 0, otherLibs: 0, appBinary: 0, anon: 0 };
  for (const pid of pids) {
    let smaps;
    try {
      smaps = fs.readFileSync(`/proc/${pid}/smaps`, "utf8");
    } catch {
      continue;
    }
    let name = "";
    for (const line of smaps.split("\n")) {
      const mapping = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
      if (mapping) {
        name = mapping[1];
        continue;
      }
      const rss = /^Rss:\s+(\d+)/.exec(line);
      if (!rss) continue;
      const kib = Number(rss[1]);
      if (/libwebkit2gtk|libjavascriptcoregtk/.test(name)) kinds.webkit += kib;
      else if (/libLLVM|_dri\.so|libgallium|libglapi|libEGL|libGL/.test(name)) kinds.mesaLlvm += kib;
      else if (name === APP_BINARY) kinds.appBinary += kib;
      else if (name.startsWith("/") && !name.startsWith("/memfd") && !name.startsWith("/SYSV")) kinds.otherLibs += kib;
      else kinds.anon += kib;
    }
  }
  if (onlyPid !== null) {
    const parts = Object.entries(anonKinds(onlyPid))
      .filter(([, kib]) => kib >= 512)
      .map(([kind, kib]) => `${kind} ${mib(kib)}`)
      .join(", ");
    return `${mib(kinds.anon)} anonymous (${parts}), ${mib(kinds.webkit + kinds.mesaLlvm + kinds.otherLibs + kinds.appBinary)} file-backed`;
  }
  return `WebKit+JSC libraries ${mib(kinds.webkit)}, Mesa GL+LLVM ${mib(kinds.mesaLlvm)}, other libraries ${mib(kinds.otherLibs)}, app binary ${mib(kinds.appBinary)}, anonymous and other ${mib(kinds.anon)}`;
}

/**
 * The anonymous resident memory of one process by kind of mapping: the brk heap (glibc
 * malloc's main arena), memfd/SysV shared buffers (paint and GL buffers), stacks, and the
 * unnamed mappings by permissions ("rwx" is JavaScriptCore's JIT code) and size (glibc's
 * thread arenas are 64 MiB reservations; big unnamed regions are JSC's heap / libpas).
 */
function anonKinds(pid) {
  let smaps;
  try {
    smaps = fs.readFileSync(`/proc/${pid}/smaps`, "utf8");
  } catch {
    return {};
  }
  const kinds = {};
  let kind = null;
  for (const line of smaps.split("\n")) {
    const mapping = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (mapping) {
      const [, from, to, perms, name] = mapping;
      const sizeMiB = (parseInt(to, 16) - parseInt(from, 16)) / 1048576;
      if (name === "[heap]") kind = "brk heap";
      else if (name.startsWith("/memfd") || name.startsWith("/SYSV") || name.startsWith("/dev/shm")) kind = "shared buffers";
      else if (name.startsWith("[stack")) kind = "stacks";
      else if (name === "") kind = `unnamed ${perms.slice(0, 3)} ${sizeMiB >= 64 ? ">=64M" : sizeMiB >= 1 ? "1-64M" : "<1M"}`;
      else if (name.startsWith("[")) kind = name;
      else kind = null;
      continue;
    }
    const rss = /^Rss:\s+(\d+)/.exec(line);
    if (rss && kind) kinds[kind] = (kinds[kind] ?? 0) + Number(rss[1]);
  }
  return kinds;
}

/** Per process of the app: its resident memory split into anonymous and file-backed pages. */
function memoryByProcess(appPid) {
  const table = processTable();
  return [appPid, ...descendants(appPid, table)]
    .map((pid) => `${table.get(pid)?.comm ?? pid} ${memoryBreakdown(appPid, pid)}`)
    .join("; ");
}

async function settle(msDelay) {
  await new Promise((resolve) => setTimeout(resolve, msDelay));
}

async function startOnce(name, env = {}, selector = tid("tool-item-calculator"), binary = APP_BINARY) {
  const w = wrapper(name, env, binary);
  const t0 = Date.now();
  const browser = await openSession(driver, { application: w.script });
  const sessionAt = Date.now();
  await browser.setTimeout({ script: 300_000 });
  const seen = await whenRendered(browser, selector, 20_000);
  const spawned = w.spawnedAt();
  return {
    browser,
    spawned,
    figures: {
      driverToSpawn: spawned - t0,
      spawnToSession: sessionAt - spawned,
      spawnToDomContentLoaded: seen.domContentLoaded ? seen.domContentLoaded - spawned : null,
      spawnToFcp: seen.fcp ? seen.fcp - spawned : null,
      spawnToRendered: seen.at ? seen.at - spawned : null,
      upperBound: seen.upperBound,
      timeline: (seen.timeline ?? []).map(([what, at]) => `${what} ${at - spawned}`).join(", "),
    },
  };
}

// ---------------------------------------------------------------------------------------------

async function benchStartup() {
  log(`startup: ${STARTS} launches, spawn of the app binary -> tool-item-calculator rendered`);
  const rendered = [];
  for (let i = 0; i < STARTS; i++) {
    const { browser, figures } = await startOnce(`start${i}`);
    const f = figures;
    log(
      `  #${i + 1}: DOMContentLoaded ${f.spawnToDomContentLoaded === null ? "n/a" : ms(f.spawnToDomContentLoaded)}, ` +
        `first contentful paint ${f.spawnToFcp === null ? "n/a" : ms(f.spawnToFcp)}, ` +
        `tool list ${f.spawnToRendered === null ? "NOT RENDERED (no tool-item-calculator within 20 s)" : `${f.upperBound ? "<=" : ""}${ms(f.spawnToRendered)}`}` +
        ` (WebDriver session ready ${ms(f.spawnToSession)} after spawn)`,
    );
    if (process.env.E2E_VERBOSE && f.timeline) log(`    page timeline, ms after spawn: ${f.timeline}`);
    if (f.spawnToRendered !== null) rendered.push(f.spawnToRendered);
    await closeSession(browser, driver);
  }
  return rendered;
}

/**
 * The empty Tauri 2 window, started and measured like the app: spawn -> its paragraph painted,
 * and memory after start. `null` when the floor binary is not built.
 */
async function benchFloor() {
  if (FLOOR === "none") return null;
  if (!fs.existsSync(FLOOR)) {
    log(`floor: ${FLOOR} not built (cargo build --example empty_window, --release for a release app); skipped`);
    return null;
  }
  log(`floor: ${STARTS} launches of the empty Tauri 2 window (${FLOOR})`);
  const rendered = [];
  let memory = null;
  for (let i = 0; i < Math.max(1, STARTS); i++) {
    const { browser, figures } = await startOnce(`floor${i}`, {}, tid("floor-ready"), FLOOR);
    if (figures.spawnToRendered !== null) rendered.push(figures.spawnToRendered);
    log(`  #${i + 1}: paragraph ${figures.spawnToRendered === null ? "NOT RENDERED" : `${figures.upperBound ? "<=" : ""}${ms(figures.spawnToRendered)}`}`);
    if (i === 0) {
      await settle(2000);
      memory = appMemory(driver.appPid(FLOOR));
      log(`  after start: RSS ${mib(memory.rss)} (${memory.parts}), PSS ${mib(memory.pss)}`);
    }
    await closeSession(browser, driver);
  }
  return { rendered, memory };
}

/**
 * The floor under an Executor run through the UI: from the same page, a command that does no
 * work (`cancel_run` of a run that does not exist) -> its answer -> one text node set -> the
 * next frame. What a run adds above it is the app's; the rest is Tauri's IPC and WebKit.
 */
async function benchIpcFloor(browser) {
  const outcome = await browser.executeAsync((count, done) => {
    const internals = window.__TAURI_INTERNALS__;
    const target = document.createElement("div");
    target.setAttribute("aria-hidden", "true");
    target.style.position = "fixed";
    target.style.left = "-1000px";
    document.body.append(target);
    const latencies = [];
    const answers = [];
    // execute_call itself, invoked as the pane invokes it (with a run channel) but with no pane
    // around it: what the command costs over IPC.
    const runs = [];
    const events = [];
    const messages = [];
    const timeouts = [];
    (async () => {
      for (let i = 0; i < count; i++) {
        await new Promise((r) => requestAnimationFrame(r));
        const sent = performance.now();
        await internals.invoke("cancel_run", { runId: `bench-floor-${i}` });
        answers.push(performance.now() - sent);
        target.textContent = `floor ${i}`;
        await new Promise((r) => requestAnimationFrame(r));
        latencies.push(performance.now() - sent);
      }
      for (let i = 0; i < count; i++) {
        await new Promise((r) => requestAnimationFrame(r));
        let event = null;
        const id = internals.transformCallback((message) => {
          event ??= performance.now();
          if (message && "end" in message) internals.unregisterCallback(id);
        });
        const sent = performance.now();
        await internals.invoke("execute_call", {
          call: { tool_name: "echo_echo", args: { message: `bench-floor-${i}` }, parent_id: null },
          runId: crypto.randomUUID(),
          onEvent: `__CHANNEL__:${id}`,
        });
        runs.push(performance.now() - sent);
        if (event !== null) events.push(event - sent);
      }
      // How soon the page runs a task posted by a MessageChannel (React's scheduler posts its
      // renders that way) and by setTimeout(0), from an idle page.
      for (let i = 0; i < count; i++) {
        await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 5)));
        const posted = performance.now();
        await new Promise((resolve) => {
          const channel = new MessageChannel();
          channel.port1.onmessage = () => {
            channel.port1.close();
            resolve();
          };
          channel.port2.postMessage(null);
        });
        messages.push(performance.now() - posted);
        const timed = performance.now();
        await new Promise((r) => setTimeout(r, 0));
        timeouts.push(performance.now() - timed);
      }
    })().then(
      () => {
        target.remove();
        done({ ok: true, latencies, answers, runs, events, messages, timeouts });
      },
      (error) => done({ ok: false, error: String(error) }),
    );
  }, 200);
  if (!outcome.ok) {
    log(`  IPC floor: FAILED: ${outcome.error}`);
    return null;
  }
  return {
    samples: outcome.latencies.length,
    median: median(outcome.latencies),
    p95: percentile(outcome.latencies, 95),
    answered: median(outcome.answers),
    run: median(outcome.runs),
    runEvent: outcome.events.length ? median(outcome.events) : null,
    message: median(outcome.messages),
    timeout: median(outcome.timeouts),
  };
}

async function executorReady(browser) {
  return browser.execute(
    (ids) => ids.every((id) => document.querySelector(`[data-testid="${id}"]`)),
    ["executor-tool-name", "executor-run"],
  );
}

/** 1,000 echo_echo runs: through the Executor pane (in-page loop) or straight over IPC. */
async function benchRuns(browser, appPid) {
  await browser.execute(() => document.getElementById("tab-executor")?.click());
  let via = RUNS_VIA;
  if (via === "auto") via = (await executorReady(browser)) ? "ui" : "ipc";
  log(`runs: ${RUNS} x echo_echo via ${via === "ui" ? "the Executor pane (DOM: set #root_message, click executor-run, wait for executor-result-body)" : 'window.__TAURI_INTERNALS__.invoke("execute_call") from execute()'}`);
  const domSize = () =>
    browser.execute(() => ({
      elements: document.getElementsByTagName("*").length,
      historyItems: document.querySelectorAll('[data-testid="history-item"]').length,
    }));
  const domBefore = await domSize();
  const started = Date.now();
  const clickToShown = [];
  const shownParts = [];
  const renderSamples = [];
  const checkpoints = [];
  const chunk = Number(process.env.BENCH_RUNS_CHUNK ?? 50);
  await paintProbes(browser, appPid);
  if (via === "ui") {
    // The pane set to echo_echo with its form shown before the first run: what the runs add
    // is then told apart from what showing the pane and its form costs.
    await browser.execute(() => {
      const name = document.querySelector('[data-testid="executor-tool-name"]');
      Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set.call(name, "echo_echo");
      name.dispatchEvent(new Event("input", { bubbles: true }));
    });
    await settle(2000);
    const shown = appMemory(appPid);
    log(`  Executor pane shown with the echo_echo form, no run yet: RSS ${mib(shown.rss)} (${shown.parts})`);
    log(`    by process: ${memoryByProcess(appPid)}`);
  }
  for (let from = 0; from < RUNS; from += chunk) {
    const count = Math.min(chunk, RUNS - from);
    const outcome =
      via === "ui"
        ? await browser.executeAsync(
            (first, n, plain, inFrame, done) => {
              const q = (id) => document.querySelector(`[data-testid="${id}"]`);
              const setValue = (element, text) => {
                const proto = element instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
                Object.getOwnPropertyDescriptor(proto, "value").set.call(element, text);
                element.dispatchEvent(new Event("input", { bubbles: true }));
                element.dispatchEvent(new Event("change", { bubbles: true }));
              };
              const waitUntil = (predicate, timeout) =>
                new Promise((resolve, reject) => {
                  const until = performance.now() + timeout;
                  const tick = () => {
                    if (predicate()) resolve();
                    else if (performance.now() > until) reject(new Error("timeout"));
                    else setTimeout(tick, 2);
                  };
                  tick();
                });
              // The contract's rjsf id is root_message; accept another id prefix (bench, not a test).
              const messageField = () =>
                document.getElementById("root_message") ?? document.querySelector('#panel-executor input[id$="_message"]');
              const latencies = [];
              // One frame of the display WebKitGTK paints to (60 Hz).
              const FRAME_MS = 1000 / 60;
              // Where the time goes: Tauri's IPC posts each command with fetch() to an ipc: URL
              // (invoke itself cannot be replaced), so fetch is wrapped once per page to note when
              // execute_call went out and when its answer came back.
              if (!window.__benchWrapped) {
                const fetchOriginal = window.fetch.bind(window);
                window.fetch = (input, init) => {
                  const url = typeof input === "string" ? input : String(input?.url ?? input);
                  if (!url.includes("execute_call")) return fetchOriginal(input, init);
                  const mark = { sent: performance.now(), answered: null };
                  window.__benchInvoke = mark;
                  return fetchOriginal(input, init).then((response) => {
                    mark.answered = performance.now();
                    return response;
                  });
                };
                window.__benchWrapped = true;
              }
              const parts = [];
              (async () => {
                const name = q("executor-tool-name");
                if (name.value !== "echo_echo") {
                  setValue(name, "echo_echo");
                  await waitUntil(() => messageField(), 5000);
                }
                for (let i = first; i < first + n; i++) {
                  const marker = `bench-run-${i}-end`;
                  // The previous run must have ended (Run is disabled while one is in flight).
                  await waitUntil(() => !q("executor-run").disabled, 10000);
                  setValue(messageField(), marker);
                  // Click as a person does: once the typed message has been painted and the page
                  // is idle, not from inside an animation frame, whose rendering (the form's
                  // change) would then run between the click and everything after it.
                  // BENCH_CLICK_IN_FRAME=1 clicks from the next animation frame, as figures before
                  // 2026-11-28 were taken. 20 ms lets answers still on their way (the last run's
                  // history page) land first; a person clicks far later than that. A person also
                  // clicks at any point of the display's frame: a fixed 20 ms after a frame put
                  // every click at the same phase, and the wait for the next frame (WebKitGTK
                  // paints at 60 Hz) was then the same ~10 ms every run. So a random part of one
                  // frame is added, and the figure's frame wait averages half a frame, as a
                  // person's does (figures before 2026-12-07 used the fixed phase).
                  if (inFrame) await new Promise((r) => requestAnimationFrame(r));
                  else await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 20 + FRAME_MS * Math.random())));
                  const clicked = performance.now();
                  q("executor-run").click();
                  // React renders a click's updates before click() returns (a discrete event).
                  const clickReturned = performance.now();

                  // When the click's own work (React's render of "running") has let the main
                  // thread go: a message posted now is handled only then.
                  const idleMark = { at: null };
                  if (plain) {
                    // BENCH_RUNS_PLAIN=1: no MessageChannel and no MutationObserver per run, only
                    // polling (coarser figures): what the bench's own instruments cost the page.
                    await waitUntil(() => {
                      const result = q("executor-result");
                      return result?.getAttribute("data-status") === "success" && q("executor-result-body")?.textContent.includes(marker);
                    }, 10000);
                    await new Promise((r) => requestAnimationFrame(r));
                    latencies.push(performance.now() - clicked);
                    continue;
                  }
                  const idleChannel = new MessageChannel();
                  idleChannel.port1.onmessage = () => {
                    idleMark.at = performance.now();
                    idleChannel.port1.close();
                  };
                  idleChannel.port2.postMessage(null);
                  // Click -> the first frame that can show the result: a MutationObserver sees
                  // the result body change without polling granularity.
                  await new Promise((resolve, reject) => {
                    const shown = () => {
                      const result = q("executor-result");
                      const body = q("executor-result-body");
                      return result?.getAttribute("data-status") === "success" && body?.textContent.includes(marker);
                    };
                    const timer = setTimeout(() => {
                      observer.disconnect();
                      reject(new Error("timeout"));
                    }, 10000);
                    const observer = new MutationObserver(() => {
                      if (!shown()) return;
                      observer.disconnect();
                      clearTimeout(timer);
                      const inDom = performance.now();
                      const mark = window.__benchInvoke;
                      requestAnimationFrame(() => {
                        const painted = performance.now();
                        latencies.push(painted - clicked);
                        parts.push({
                          toSent: mark ? mark.sent - clicked : null,
                          clickHandled: clickReturned - clicked,
                          toIdle: idleMark.at === null ? null : idleMark.at - clicked,
                          toAnswered: mark?.answered ? mark.answered - clicked : null,
                          toDom: inDom - clicked,
                          domToFrame: painted - inDom,
                        });
                        resolve();
                      });
                    });
                    observer.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
                    if (shown()) {
                      observer.disconnect();
                      clearTimeout(timer);
                      requestAnimationFrame(() => {
                        latencies.push(performance.now() - clicked);
                        resolve();
                      });
                    }
                  });
                }
              })().then(
                () => done({ ok: true, latencies, parts, renders: window.__renderProfile?.splice(0) ?? [] }),
                (error) => done({ ok: false, error: String(error), status: q("executor-result")?.getAttribute("data-status") ?? null, body: q("executor-result-body")?.textContent.slice(0, 200) ?? null }),
              );
            },
            from,
            count,
            process.env.BENCH_RUNS_PLAIN === "1",
            process.env.BENCH_CLICK_IN_FRAME === "1",
          )
        : await browser.executeAsync(
            (first, n, withHistory, done) => {
              const internals = window.__TAURI_INTERNALS__;
              (async () => {
                for (let i = first; i < first + n; i++) {
                  const id = internals.transformCallback((message) => {
                    if (message && "end" in message) internals.unregisterCallback(id);
                  });
                  const result = await internals.invoke("execute_call", {
                    call: { tool_name: "echo_echo", args: { message: `bench-run-${i}-end` }, parent_id: null },
                    runId: crypto.randomUUID(),
                    onEvent: `__CHANNEL__:${id}`,
                  });
                  if (result.status !== "success") throw new Error(`run ${i}: ${JSON.stringify(result)}`);
                  if (withHistory) await internals.invoke("history_list", { query: null, offset: 0, limit: 25 });
                }
              })().then(
                () => done({ ok: true }),
                (error) => done({ ok: false, error: typeof error === "string" ? error : (error?.message ?? JSON.stringify(error)) }),
              );
            },
            from,
            count,
            process.env.BENCH_IPC_WITH_HISTORY === "1",
          );
    if (!outcome.ok) throw new E2EError(`run ${from}..${from + count - 1} failed: ${JSON.stringify(outcome)}`);
    clickToShown.push(...(outcome.latencies ?? []));
    shownParts.push(...(outcome.parts ?? []));
    renderSamples.push(...(outcome.renders ?? []));
    if ((from + count) % 200 === 0 || from + count === RUNS || process.env.BENCH_RUNS_MEMORY_EVERY_CHUNK) {
      const m = appMemory(appPid);
      checkpoints.push({ runs: from + count, rss: m.rss });
      log(`  ${from + count} runs, ${ms(Date.now() - started)}: RSS ${mib(m.rss)}`);
    }
  }
  const elapsed = Date.now() - started;
  const domAfter = await domSize();
  log(`  DOM elements ${domBefore.elements} -> ${domAfter.elements}, history-item rows ${domBefore.historyItems} -> ${domAfter.historyItems}`);
  log(`  ${RUNS} runs in ${ms(elapsed)} (${(elapsed / RUNS).toFixed(1)} ms per run, round trip included)`);
  const shown =
    clickToShown.length === 0
      ? null
      : { median: median(clickToShown), p95: percentile(clickToShown, 95), max: Math.max(...clickToShown) };
  if (shown) log(`  click -> result painted: median ${ms(shown.median)}, p95 ${ms(shown.p95)}, max ${ms(shown.max)}`);
  // The app's own part of a run: click -> the result in the DOM. What follows is the wait for
  // the display's next frame, which a click at a random phase of a 60 Hz frame spends half a
  // frame on average whatever the app does.
  const toDom = shownParts.map((p) => p.toDom).filter((v) => typeof v === "number");
  if (shown && toDom.length > 0) {
    shown.toDom = { median: median(toDom), p95: percentile(toDom, 95) };
    const waits = shownParts.map((p) => p.domToFrame).filter((v) => typeof v === "number");
    shown.frameWait = waits.length > 0 ? { median: median(waits), p95: percentile(waits, 95) } : null;
  }
  if (renderSamples.length > 0) {
    // A profiling UI build (PROFILE_RENDERS=1): React's own time per wrapped subtree and commit.
    const byId = new Map();
    for (const sample of renderSamples) {
      const key = `${sample.id} (${sample.phase})`;
      byId.set(key, [...(byId.get(key) ?? []), sample.actualMs]);
    }
    const lines = [...byId].map(([key, values]) => `${key}: ${values.length} commits, median ${values.length ? median(values).toFixed(2) : "?"} ms, p95 ${percentile(values, 95).toFixed(2)} ms, total ${values.reduce((a, b) => a + b, 0).toFixed(0)} ms`);
    log(`  React render time per subtree (profiling build):\n    ${lines.join("\n    ")}`);
  }
  if (shownParts.length > 0) {
    const part = (key) => {
      const values = shownParts.map((p) => p[key]).filter((v) => typeof v === "number");
      return values.length === 0 ? "n/a" : `median ${ms(median(values))}, p95 ${ms(percentile(values, 95))}`;
    };
    log(`  of which: click -> execute_call sent ${part("toSent")}; click handled and rendered (sync) ${part("clickHandled")}; click -> main thread free ${part("toIdle")}; click -> its answer back ${part("toAnswered")}; click -> result in the DOM ${part("toDom")}; DOM -> next frame ${part("domToFrame")}`);
  }
  const floor = via === "ui" && shown ? await benchIpcFloor(browser) : null;
  if (floor) {
    log(`  IPC floor, ${floor.samples} no-op commands (cancel_run of no run) from the same page: answer -> text set -> next frame: median ${ms(floor.median)}, p95 ${ms(floor.p95)}; answer back alone median ${ms(floor.answered)}`);
    log(`  execute_call of echo_echo invoked from the page with no pane: answer back median ${ms(floor.run)}, its first channel event ${floor.runEvent === null ? "none" : `median ${ms(floor.runEvent)}`}`);
    log(`  a task posted from an idle page runs after: MessageChannel median ${floor.message.toFixed(2)} ms, setTimeout(0) median ${floor.timeout.toFixed(2)} ms`);
  }
  await settle(2000);
  const memory = appMemory(appPid);
  log(`  after ${RUNS} runs (+2 s): RSS ${mib(memory.rss)} (${memory.parts}), PSS ${mib(memory.pss)}`);
  log(`    by process: ${memoryByProcess(appPid)}`);
  // What the page still holds: Tauri's IPC callbacks (one per pending call or live channel).
  const pageState = await browser.execute(() => ({
    callbacks: window.__TAURI_INTERNALS__?.callbacks?.size ?? null,
    elements: document.getElementsByTagName("*").length,
  }));
  log(`    page: ${pageState.callbacks ?? "?"} Tauri callbacks registered, ${pageState.elements} DOM elements`);
  // JavaScriptCore collects lazily: a second reading after some idle time shows what is retained.
  await settle(15_000);
  const idle = appMemory(appPid);
  log(`  15 s later, idle: RSS ${mib(idle.rss)} (${idle.parts}), PSS ${mib(idle.pss)}`);
  log(`    by process: ${memoryByProcess(appPid)}`);
  return { via, elapsed, memory, idle, shown, floor, steady: steadyGrowth(checkpoints) };
}

/** Growth after the first checkpoint, when the web process's warm-up (JIT, allocator pools) is
 * over: what a leak would add per run shows here, apart from the one-off warm-up before it. */
function steadyGrowth(checkpoints) {
  if (checkpoints.length < 2) return null;
  const first = checkpoints[0];
  const last = checkpoints[checkpoints.length - 1];
  const runs = last.runs - first.runs;
  if (runs <= 0) return null;
  return { from: first.runs, to: last.runs, bytes: last.rss - first.rss, per1000: ((last.rss - first.rss) * 1000) / runs };
}

async function benchSearch() {
  log(`search: app started with TOOLSCOPE_SYNTHETIC_METHODS=${METHODS}`);
  const { browser, figures } = await startOnce("search", { TOOLSCOPE_SYNTHETIC_METHODS: METHODS }, tid("discovery-search"));
  try {
    log(`  with ${METHODS} extra methods: discovery-search rendered ${figures.spawnToRendered === null ? "NEVER" : `${figures.upperBound ? "<=" : ""}${ms(figures.spawnToRendered)}`} after spawn`);
    await waitVisible(browser, tid("discovery-search"), { timeout: 5_000, what: "discovery-search" });
    const listed = await browser.execute(() => document.querySelectorAll('[data-testid^="method-item-"]').length);
    log(`  method-item elements in the DOM before searching: ${listed} (fewer than the methods means a virtualised list)`);
    const memory = appMemory(driver.appPid());
    log(`  memory with ${METHODS} methods: RSS ${mib(memory.rss)}, PSS ${mib(memory.pss)}`);

    await browser.execute((sel) => {
      const input = document.querySelector(sel);
      const panel = input.closest('[role="tabpanel"]') ?? document.body;
      const state = { keys: [], firstMutation: null, lastMutation: null, frameAfter: null, idleAt: null };
      window.__searchBench = state;
      input.addEventListener(
        "keydown",
        (event) => {
          state.keys.push({ key: event.key, at: event.timeStamp });
          state.firstMutation = null;
          state.lastMutation = null;
          state.frameAfter = null;
          state.idleAt = null;
          state.inputAt = null;
          // A message posted now runs once the key's own tasks (input event, React's render) end.
          const channel = new MessageChannel();
          channel.port1.onmessage = () => {
            state.idleAt = performance.now();
          };
          channel.port2.postMessage(null);
        },
        true,
      );
      // When the page saw the typed character (React handles the input event, not keydown).
      input.addEventListener(
        "input",
        () => {
          state.inputAt ??= performance.now();
        },
        true,
      );
      new MutationObserver(() => {
        const at = performance.now();
        state.firstMutation ??= at;
        state.lastMutation = at;
        requestAnimationFrame(() => {
          if (state.lastMutation === at) state.frameAfter = performance.now();
        });
      }).observe(panel, { childList: true, subtree: true, characterData: true, attributes: true });
    }, tid("discovery-search"));

    // Focus through the DOM (no window manager under Xvfb); keys then go to the focused input.
    await browser.execute((sel) => document.querySelector(sel).focus(), tid("discovery-search"));
    const samples = [];
    const parts = [];
    const queries = ["method42", "synthetic", "number 7"];
    for (const query of queries) {
      const keys = [...query.split(""), ...query.split("").map(() => "Backspace")];
      for (const key of keys) {
        await browser.keys(key === "Backspace" ? "\uE003" : key);
        // Wait until 250 ms pass without a mutation (or 5 s), then read the figures.
        const sample = await browser.executeAsync((done) => {
          const state = window.__searchBench;
          const began = performance.now();
          let lastSeen = state.lastMutation;
          let quietSince = performance.now();
          const tick = () => {
            if (state.lastMutation !== lastSeen) {
              lastSeen = state.lastMutation;
              quietSince = performance.now();
            }
            const now = performance.now();
            if ((now - quietSince > 250 && (state.frameAfter !== null || state.lastMutation === null)) || now - began > 5000) {
              const key = state.keys[state.keys.length - 1];
              const since = (at) => (key && at !== null ? at - key.at : null);
              done({
                key: key?.key ?? null,
                latency: since(state.frameAfter),
                toIdle: since(state.idleAt),
                toInput: since(state.inputAt),
                toFirstMutation: since(state.firstMutation),
                toLastMutation: since(state.lastMutation),
                renders: window.__renderProfile?.splice(0) ?? [],
              });
            } else setTimeout(tick, 10);
          };
          tick();
        });
        if (sample.latency !== null) {
          samples.push(sample.latency);
          parts.push(sample);
        }
        if (process.env.E2E_VERBOSE) {
          const byId = new Map();
          for (const r of sample.renders) byId.set(r.id, (byId.get(r.id) ?? 0) + r.actualMs);
          const renders = [...byId].map(([id, total]) => `, ${id} ${total.toFixed(1)} ms`).join("");
          log(`  key ${JSON.stringify(sample.key)} after "${query}": ${sample.latency === null ? "no change" : `${ms(sample.latency)} (main thread free ${ms(sample.toIdle)}, DOM changed ${ms(sample.toFirstMutation)}..${ms(sample.toLastMutation)}${renders})`}`);
        }
      }
    }
    const part = (key) => {
      const values = parts.map((p) => p[key]).filter((v) => typeof v === "number");
      return values.length === 0 ? "n/a" : `median ${ms(median(values))}, p95 ${ms(percentile(values, 95))}`;
    };
    log(`  of which: keydown -> input event ${part("toInput")}; keydown -> last DOM change ${part("toLastMutation")}; keydown -> main thread free ${part("toIdle")}`);
    const renders = parts.flatMap((p) => p.renders.map((r) => r.actualMs));
    if (renders.length > 0) log(`  React render time per commit (profiling build): median ${median(renders).toFixed(2)} ms, p95 ${percentile(renders, 95).toFixed(2)} ms over ${renders.length} commits`);
    return { samples, keystrokes: queries.join("").length * 2 };
  } finally {
    await closeSession(browser, driver);
  }
}

/**
 * A PASTE_MB reply in Hermes' format (one `<tool_call>` of echo_echo per ~1 KB of prose, as a
 * long agent transcript would have), pasted into the Parser as a paste event: paste -> the first
 * frame showing the parse summary and requests. Then 20 real keystrokes at the end of it, a
 * human 120 ms apart: keydown -> the frame after the textarea took the key.
 */
async function benchParser() {
  const { browser } = await startOnce("parser");
  try {
    // Diagnosis: what a part of the pane costs, by leaving it out of layout (BENCH_PARSER_HIDE,
    // selectors set to display: none), or what a style rule changes (BENCH_PARSER_CSS, a rule).
    const css = [
      process.env.BENCH_PARSER_HIDE ? `${process.env.BENCH_PARSER_HIDE} { display: none !important; }` : "",
      process.env.BENCH_PARSER_CSS ?? "",
    ].join("\n");
    if (css.trim() !== "") {
      await browser.execute((text) => {
        const style = document.createElement("style");
        style.textContent = text;
        document.head.append(style);
      }, css);
    }
    const paste = await browser.executeAsync((megabytes, done) => {
      document.getElementById("tab-parser")?.click();
      const q = (id) => document.querySelector(`[data-testid="${id}"]`);
      const prose = "The assistant looks at the previous result and decides what to check next. ".repeat(12);
      const parts = [];
      let size = 0;
      let calls = 0;
      while (size < megabytes * 1_000_000) {
        const block = `${prose}\n<tool_call>\n{"name": "echo_echo", "arguments": {"message": "value ${calls}"}}\n</tool_call>\n`;
        parts.push(block);
        size += block.length;
        calls += 1;
      }
      const text = parts.join("");
      const waitedFrom = performance.now();
      const whenReady = () => {
        const content = q("parser-input")?.querySelector(".cm-content");
        if (content && content.getClientRects().length > 0) paste(content);
        else if (performance.now() - waitedFrom > 10_000) done({ error: "no parser-input editor (.cm-content) within 10 s" });
        else setTimeout(whenReady, 20);
      };
      // A real paste, as tests/e2e/lib/editor.mjs does it: CodeMirror's handler reads
      // event.clipboardData; Ctrl+A goes through the editor, so it selects the whole document.
      const paste = (content) => {
        content.focus();
        content.dispatchEvent(new KeyboardEvent("keydown", { key: "a", code: "KeyA", keyCode: 65, ctrlKey: true, bubbles: true, cancelable: true }));
        const data = new DataTransfer();
        data.setData("text/plain", text);
        const event = new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true });
        // When the backend's answer arrived: the rest of the time is the pane's own work. Seen on
        // fetch, which carries the IPC (ipc://localhost/<command>): __TAURI_INTERNALS__.invoke
        // is read-only, so wrapping it never saw the call.
        const fetchIpc = window.fetch;
        let sent = null;
        let answered = null;
        window.fetch = (resource, ...rest) => {
          const result = fetchIpc(resource, ...rest);
          if (String(resource?.url ?? resource).includes("parse_reply")) {
            sent ??= performance.now();
            result.finally(() => (answered ??= performance.now()));
          }
          return result;
        };
        const started = performance.now();
        // Where the main thread's time went: the paste handler's own work (the editor taking
        // the text in), the first frame after it, and when a task posted after it could run.
        const marks = {};
        const ping = new MessageChannel();
        ping.port1.onmessage = () => (marks.idle = performance.now() - started);
        requestAnimationFrame(() => (marks.firstFrame = performance.now() - started));
        content.dispatchEvent(event);
        marks.handled = performance.now() - started;
        ping.port2.postMessage(0);
        if (!event.defaultPrevented) {
          done({ error: "the editor did not handle the paste event" });
          return;
        }
        const shown = () => q("parser-summary") && q("parser-request");
        // The spans view follows in a render of its own: when its first mark is painted too.
        const spansShown = () => document.querySelector('[data-testid="parser-annotated"] mark');
        let finishing = false;
        let result = null;
        let spansMs = null;
        const report = () => {
          if (result && spansMs !== null) done({ ...result, spansMs });
        };
        const finish = () => {
          // The pane's render is in the DOM now; what follows until the frame is layout and
          // whatever else holds the main thread (the editor measures in animation frames).
          const committed = performance.now();
          requestAnimationFrame(() => {
            result = {
              ms: performance.now() - started,
              committedMs: committed - started,
              sentMs: sent === null ? null : sent - started,
              answeredMs: answered === null ? null : answered - started,
              renders: window.__renderProfile?.splice(0) ?? [],
              bytes: text.length,
              calls,
              summary: q("parser-summary")?.textContent ?? "",
              marks,
            };
            report();
          });
        };
        const observer = new MutationObserver(() => {
          if (!finishing && shown()) {
            finishing = true;
            finish();
          }
          if (spansMs === null && spansShown()) {
            observer.disconnect();
            requestAnimationFrame(() => {
              spansMs = performance.now() - started;
              report();
            });
          }
        });
        observer.observe(document.body, { subtree: true, childList: true, characterData: true });
        setTimeout(() => {
          observer.disconnect();
          done({ error: "nothing shown within 60 s" });
        }, 60_000);
      };
      whenReady();
    }, PASTE_MB);
    if (paste.error) throw new E2EError(`parser paste: ${paste.error}`);
    log(`parser: pasted ${(paste.bytes / 1e6).toFixed(1)} MB with ${paste.calls} calls; parse_reply sent after ${ms(paste.sentMs)}, answered after ${ms(paste.answeredMs)}, in the DOM after ${ms(paste.committedMs)}, shown after ${ms(paste.ms)}: ${paste.summary}`);
    log(`  paste handled after ${ms(paste.marks.handled)}, first frame at ${ms(paste.marks.firstFrame)}, a task posted then ran at ${ms(paste.marks.idle)}; spans marked and painted after ${ms(paste.spansMs)}`);
    if (paste.renders.length > 0) log(`  React commits (profiling build): ${paste.renders.map((r) => `${r.id} ${r.phase} ${r.actualMs.toFixed(0)} ms`).join(", ")}`);
    await parseProbe(browser, PASTE_MB);

    // The cursor goes to the end through the editor (Ctrl+End, a real key press): the editor
    // renders only the lines on screen, so a DOM selection cannot reach the end of the text.
    await browser.execute(() => {
      document.querySelector('[data-testid="parser-input"] .cm-content').focus();
    });
    await browser.keys(["Control", "End"]);
    await settle(300);
    await browser.execute(() => {
      const content = document.querySelector('[data-testid="parser-input"] .cm-content');
      const counter = document.querySelector('[data-testid="parser-input"]').closest(".parser-editor").querySelector(".parser-length");
      const state = { samples: [], pending: null };
      window.__typeBench = state;
      // A key counts as shown once the editor's DOM changed (whichever way the editor takes the
      // input) and the pane re-rendered its character count: then the frame that shows both.
      const check = () => {
        const key = state.pending;
        if (!key?.echoed || counter.textContent === key.count) return;
        state.pending = null;
        requestAnimationFrame((frame) => state.samples.push(frame - key.at));
      };
      content.addEventListener("keydown", (event) => {
        state.pending = { at: event.timeStamp, count: counter.textContent, echoed: false };
      });
      const changes = { subtree: true, childList: true, characterData: true };
      new MutationObserver(() => {
        if (state.pending) state.pending.echoed = true;
        check();
      }).observe(content, changes);
      new MutationObserver(check).observe(counter, changes);
    });
    const typed = " and more".repeat(2).slice(0, 20);
    for (const key of typed) {
      await browser.keys(key);
      await settle(120);
    }
    await settle(500);
    const typing = await browser.execute(() => window.__typeBench.samples);
    if (process.env.E2E_VERBOSE) log(`  typing, keydown -> frame per key: ${typing.map((t) => Math.round(t)).join(", ")} ms`);
    // The keys must have landed at the end of the reply (the last line on screen ends with them).
    const tail = await browser.execute(() => {
      const lines = document.querySelectorAll('[data-testid="parser-input"] .cm-line');
      return lines.length ? lines[lines.length - 1].textContent : "";
    });
    if (!tail.endsWith(typed)) throw new E2EError(`typing did not land at the end of the reply: its last line ends ${JSON.stringify(tail.slice(-60))}`);
    return { paste, typing };
  } finally {
    await closeSession(browser, driver);
  }
}

// ---------------------------------------------------------------------------------------------

async function main() {
  checkPrerequisites();
  const xdg = makeXdgHome("bench-home");
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "toolscope-bench-"));
  log(`host: ${hostSummary()}; app: ${APP_BINARY}`);
  driver = await startDriver({
    logName: "bench-tauri-driver",
    env: { XDG_DATA_HOME: xdg.XDG_DATA_HOME, XDG_CONFIG_HOME: xdg.XDG_CONFIG_HOME, XDG_CACHE_HOME: xdg.XDG_CACHE_HOME },
  });
  const report = [];
  try {
    const rendered = await benchStartup();
    if (rendered.length) {
      report.push(`startup (spawn -> tool-item-calculator rendered, ${rendered.length} launches): median ${ms(median(rendered))}, min ${ms(Math.min(...rendered))}, max ${ms(Math.max(...rendered))}`);
    } else if (STARTS > 0) report.push("startup: tool-item-calculator never rendered (Discovery pane lacks the testid?)");
    const floor = await benchFloor();
    if (floor && floor.rendered.length) {
      const ratio = rendered.length ? ` (app / floor ${(median(rendered) / median(floor.rendered)).toFixed(2)})` : "";
      report.push(`floor: empty Tauri 2 window, spawn -> paragraph painted: median ${ms(median(floor.rendered))}${ratio}`);
    }

    if (RUNS > 0) {
      const { browser } = await startOnce("memory");
      const appPid = driver.appPid();
      await settle(2000);
      const before = appMemory(appPid);
      log(`  after start: RSS ${mib(before.rss)} (${before.parts}), PSS ${mib(before.pss)}`);
      const breakdown = memoryBreakdown(appPid);
      log(`  RSS by mapping: ${breakdown}`);
      log(`    by process: ${memoryByProcess(appPid)}`);
      report.push(`memory after start: RSS ${mib(before.rss)} over ${before.processes} processes, PSS ${mib(before.pss)} (${before.parts})`);
      if (floor?.memory) {
        report.push(`floor memory after start: RSS ${mib(floor.memory.rss)}, PSS ${mib(floor.memory.pss)} (app / floor PSS ${(before.pss / floor.memory.pss).toFixed(2)})`);
      }
      report.push(`memory after start by mapping (RSS): ${breakdown}`);
      try {
        const runs = await benchRuns(browser, appPid);
        const after = runs.memory;
        report.push(`memory after ${RUNS} echo_echo runs via ${runs.via}: RSS ${mib(after.rss)} (${after.rss >= before.rss ? "+" : ""}${mib(after.rss - before.rss)}), PSS ${mib(after.pss)} (${after.parts}); ${(runs.elapsed / RUNS).toFixed(1)} ms per run`);
        report.push(`memory 15 s after the runs: RSS ${mib(runs.idle.rss)}, PSS ${mib(runs.idle.pss)} (${runs.idle.parts})`);
        if (runs.steady) {
          const signed = (bytes) => `${bytes >= 0 ? "+" : ""}${mib(bytes)}`;
          report.push(`  of which after the warm-up (runs ${runs.steady.from} -> ${runs.steady.to}): RSS ${signed(runs.steady.bytes)}, ${signed(runs.steady.per1000)} per 1000 runs`);
        }
        if (runs.shown) {
          report.push(`executor run through the UI (click -> result painted, ${RUNS} runs): median ${ms(runs.shown.median)}, p95 ${ms(runs.shown.p95)}, max ${ms(runs.shown.max)}`);
          if (runs.shown.toDom) {
            const wait = runs.shown.frameWait;
            report.push(`  of which the app's part (click -> result in the DOM): median ${ms(runs.shown.toDom.median)}, p95 ${ms(runs.shown.toDom.p95)}; then the display's next frame (60 Hz, clicks at a random phase): ${wait ? `median ${ms(wait.median)}, p95 ${ms(wait.p95)}` : "n/a"}`);
          }
          if (runs.floor) {
            report.push(`IPC floor from the same page (no-op command -> text set -> next frame, ${runs.floor.samples} times): median ${ms(runs.floor.median)}, p95 ${ms(runs.floor.p95)} (executor run / floor, medians: ${(runs.shown.median / runs.floor.median).toFixed(2)})`);
          }
        }
      } catch (error) {
        report.push(`runs: FAILED: ${error.message}`);
      }
      await closeSession(browser, driver);
    }

    if (PASTE_MB > 0) {
      try {
        const { paste, typing } = await benchParser();
        report.push(`parser: ${(paste.bytes / 1e6).toFixed(1)} MB reply with ${paste.calls} calls pasted -> requests shown: ${ms(paste.ms)} (parse_reply answered after ${paste.answeredMs === null ? "?" : ms(paste.answeredMs)}; spans marked after ${ms(paste.spansMs)})`);
        report.push(
          typing.length
            ? `parser: typing at the end of it (${typing.length} keys): median ${ms(median(typing))}, p95 ${ms(percentile(typing, 95))}, max ${ms(Math.max(...typing))} keydown -> frame`
            : "parser: typing: no keystroke reached the editor",
        );
      } catch (error) {
        report.push(`parser: FAILED: ${error.message}`);
      }
    }

    if (METHODS > 0) {
      try {
        const { samples, keystrokes } = await benchSearch();
        report.push(
          samples.length
            ? `search keystroke latency over ${METHODS} synthetic + built-in methods (${samples.length} of ${keystrokes} keystrokes changed the list): median ${ms(median(samples))}, p95 ${ms(percentile(samples, 95))}, max ${ms(Math.max(...samples))}`
            : `search keystroke latency: no keystroke changed the DOM (is discovery-search wired to the list?)`,
        );
      } catch (error) {
        report.push(`search: FAILED: ${error.message}`);
      }
    }
  } finally {
    await driver.stop();
    removeDir(xdg.home);
    removeDir(tmp);
  }
  console.log("\n[bench] results");
  for (const line of report) console.log(`[bench]   ${line}`);
}

main().catch((error) => {
  console.error(`[bench] ${error instanceof E2EError ? error.message : error.stack ?? error}`);
  if (driver) driver.stop().catch(() => {});
  process.exitCode = 1;
});
