/**
 * Diagnosis knobs for the app bench (`bash tests/e2e/run.sh --bench`), run before the Executor
 * runs when their variable is set. They found why a run through the UI cost ~30 ms: WebKitGTK
 * without compositing repaints far more than what changed in some layouts (an element whose
 * opacity crosses 1, any relayout inside a CSS grid), and fills each repainted area first.
 * Page faults of the web process stand in for freshly filled paint buffers.
 *
 * - BENCH_HIDE="css selectors": hide these (display: none) for the whole bench.
 * - BENCH_PAINT_PROBE="js|js|...": each body runs once per frame, 50 times, with `i`; prints
 *   the web process's page faults per frame (e.g. `el.style.color = i % 2 ? "red" : "blue"`)
 *   and the probe's CLOCK_MONOTONIC window, to match a `perf record -k mono` of the web process.
 * - BENCH_MUTATION_PROBE=1: after 25 warm-up runs, lists every DOM mutation of one run, with
 *   the element's place on screen (what a run makes WebKit repaint).
 * - BENCH_STEP_PROBE=1: page faults per step of a run (idle, typing, click to result), over
 *   20 runs after 20 warm-up runs.
 * - BENCH_CLICK_MEMORY=N: N runs clicked from the driver (no bench script left in the page),
 *   the web process's RSS every 400 runs: whether memory grows with runs or levels off.
 *
 * bench.mjs itself reads BENCH_IPC_WITH_HISTORY=1: the IPC-only runs also read the newest
 * history page, as the pane does after each run.
 */
import fs from "node:fs";

import { descendants, log, processTable } from "./harness.mjs";

async function settle(msDelay) {
  await new Promise((resolve) => setTimeout(resolve, msDelay));
}

/** The app's WebKit web processes. */
function webProcesses(appPid) {
  const table = processTable();
  return [appPid, ...descendants(appPid, table)].filter((pid) => table.get(pid)?.comm.startsWith("WebKitWebProces"));
}

/** Minor page faults of the app's WebKit web processes so far. */
function webFaults(appPid) {
  let total = 0;
  for (const pid of webProcesses(appPid)) {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    total += Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[7]);
  }
  return total;
}

/** Resident memory of the app's WebKit web processes, in MiB. */
function webRssMiB(appPid) {
  let kib = 0;
  for (const pid of webProcesses(appPid)) {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    kib += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  }
  return kib / 1024;
}

/** The Executor set to echo_echo, its form shown. */
async function chooseEcho(browser) {
  await browser.execute(() => {
    const name = document.querySelector('[data-testid="executor-tool-name"]');
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set.call(name, "echo_echo");
    name.dispatchEvent(new Event("input", { bubbles: true }));
  });
  await settle(1000);
}

export async function paintProbes(browser, appPid) {
  if (process.env.BENCH_HIDE) {
    await browser.execute((css) => {
      const style = document.createElement("style");
      style.textContent = `${css} { display: none !important; }`;
      document.head.append(style);
    }, process.env.BENCH_HIDE);
  }
  if (process.env.BENCH_PAINT_PROBE) {
    await chooseEcho(browser);
    await browser.execute(() => document.querySelector('[data-testid="executor-run"]').click());
    await settle(1000);
    // Each probe is a function body run with `i` (0..49), one call per frame.
    for (const body of process.env.BENCH_PAINT_PROBE.split("|")) {
      const before = webFaults(appPid);
      const probeStart = Number(process.hrtime.bigint()) / 1e9;
      const outcome = await browser.executeAsync((code, done) => {
        // eslint-disable-next-line no-new-func
        const change = new Function("i", code);
        let i = 0;
        const step = () => {
          try {
            change(i);
          } catch (error) {
            done(String(error));
            return;
          }
          if (++i < 50) requestAnimationFrame(() => setTimeout(step, 20));
          else done("ok");
        };
        step();
      }, body);
      log(`  paint probe: ${body} -> ${outcome}: ${((webFaults(appPid) - before) / 50).toFixed(0)} faults per frame [window ${probeStart} ${Number(process.hrtime.bigint()) / 1e9}]`);
    }
  }
  if (process.env.BENCH_MUTATION_PROBE) {
    await chooseEcho(browser);
    for (let i = 0; i < 25; i++) {
      await browser.execute(() => document.querySelector('[data-testid="executor-run"]').click());
      await settle(300);
    }
    const seen = await browser.executeAsync((done) => {
      setTimeout(() => {
        const field = document.getElementById("root_message");
        Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set.call(field, "probe");
        field.dispatchEvent(new Event("input", { bubbles: true }));
      }, 500);
      setTimeout(() => {
        const log = [];
        const describe = (node) => {
          const el = node instanceof Element ? node : node.parentElement;
          if (!el) return "?";
          const r = el.getBoundingClientRect();
          return `${el.tagName.toLowerCase()}.${String(el.className).split(" ")[0]}[${el.getAttribute("data-testid") ?? ""}] @${Math.round(r.x)},${Math.round(r.y)} ${Math.round(r.width)}x${Math.round(r.height)}`;
        };
        const start = performance.now();
        const observer = new MutationObserver((records) => {
          const t = Math.round(performance.now() - start);
          for (const m of records) log.push(`${t}ms ${m.type}${m.attributeName ? `:${m.attributeName}` : ""} ${describe(m.target)}`);
        });
        observer.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
        document.querySelector('[data-testid="executor-run"]').click();
        setTimeout(() => {
          observer.disconnect();
          done({ log, scroll: [document.scrollingElement.scrollTop, document.scrollingElement.scrollHeight, innerHeight] });
        }, 1500);
      }, 1000);
    });
    log(`  mutation probe: scroll ${JSON.stringify(seen.scroll)}\n    ${seen.log.join("\n    ")}`);
  }
  if (process.env.BENCH_STEP_PROBE) {
    await chooseEcho(browser);
    const steps = { idle: 0, type: 0, click: 0 };
    for (let i = 0; i < 40; i++) {
      // The first 20 runs fill the history list to its height; count the steady state only.
      if (i === 20) for (const key of Object.keys(steps)) steps[key] = 0;
      let f = webFaults(appPid);
      await settle(300);
      steps.idle += webFaults(appPid) - f;
      f = webFaults(appPid);
      await browser.execute((text) => {
        const field = document.getElementById("root_message") ?? document.querySelector('#panel-executor input[id$="_message"]');
        Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set.call(field, text);
        field.dispatchEvent(new Event("input", { bubbles: true }));
      }, `probe-${i}`);
      await settle(300);
      steps.type += webFaults(appPid) - f;
      f = webFaults(appPid);
      await browser.execute(() => document.querySelector('[data-testid="executor-run"]').click());
      await settle(600);
      steps.click += webFaults(appPid) - f;
    }
    log(`  step probe (faults per step, 20 runs): idle 300 ms ${steps.idle / 20}, type ${steps.type / 20}, click+result ${steps.click / 20}`);
  }
  if (process.env.BENCH_CLICK_MEMORY) {
    // Runs clicked from the driver, with no script of the bench left in the page between them:
    // what the web process keeps per run is the app's.
    await chooseEcho(browser);
    const runs = Number(process.env.BENCH_CLICK_MEMORY);
    const before = webRssMiB(appPid);
    for (let i = 0; i < runs; i++) {
      await browser.execute((text) => {
        const field = document.getElementById("root_message");
        Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set.call(field, text);
        field.dispatchEvent(new Event("input", { bubbles: true }));
        document.querySelector('[data-testid="executor-run"]').click();
      }, `click-${i}`);
      await settle(40);
      if ((i + 1) % 400 === 0) log(`  click memory: after ${i + 1} runs ${webRssMiB(appPid).toFixed(1)} MiB`);
    }
    await settle(15_000);
    log(`  click memory: ${runs} runs clicked from the driver: web process ${before.toFixed(1)} -> ${webRssMiB(appPid).toFixed(1)} MiB (15 s after)`);
  }
}

/**
 * BENCH_PARSE_PROBE=1 (after the Parser paste): where parse_reply's time goes for the same
 * reply, straight over IPC: the request alone (an unknown format is refused before parsing),
 * the whole call, the answer's size, and the page's work on either side. parse_reply takes a raw
 * body (ui/src/lib/ipc.ts): a line of JSON options, then the reply in UTF-8.
 */
export async function parseProbe(browser, megabytes) {
  if (!process.env.BENCH_PARSE_PROBE) return;
  const figures = await browser.executeAsync((mb, done) => {
    const prose = "The assistant looks at the previous result and decides what to check next. ".repeat(12);
    const parts = [];
    let size = 0;
    let calls = 0;
    while (size < mb * 1_000_000) {
      const block = `${prose}\n<tool_call>\n{"name": "echo_echo", "arguments": {"message": "value ${calls}"}}\n</tool_call>\n`;
      parts.push(block);
      size += block.length;
      calls += 1;
    }
    const text = parts.join("");
    const internals = window.__TAURI_INTERNALS__;
    const body = (format) => {
      const encoder = new TextEncoder();
      const head = encoder.encode(`${JSON.stringify({ format, request_tools: null, strict: false })}\n`);
      const reply = encoder.encode(text);
      const bytes = new Uint8Array(head.length + reply.length);
      bytes.set(head);
      bytes.set(reply, head.length);
      return bytes;
    };
    const time = async (f) => {
      const t = performance.now();
      const value = await f();
      return [performance.now() - t, value];
    };
    (async () => {
      const out = {};
      let t = performance.now();
      const json = JSON.stringify({ text, format: null, requestTools: null, strict: false });
      out.stringifyMs = performance.now() - t;
      t = performance.now();
      const bytes = body(null);
      out.encodeMs = performance.now() - t;
      for (let i = 0; i < 3; i++) {
        const [refused] = await time(() =>
          internals.invoke("parse_reply", body("no-such-format")).catch(() => null),
        );
        const [tiny] = await time(() => internals.invoke("parse_reply", new TextEncoder().encode(`${JSON.stringify({ format: null, request_tools: null, strict: false })}\nx`)));
        const [whole, reply] = await time(() => internals.invoke("parse_reply", body(null)));
        t = performance.now();
        const answer = JSON.stringify(reply);
        const restringify = performance.now() - t;
        t = performance.now();
        JSON.parse(answer);
        const reparse = performance.now() - t;
        (out.rounds ??= []).push({ refused, tiny, whole, answerBytes: answer.length, answerParseMs: reparse, answerStringifyMs: restringify });
      }
      out.jsonBytes = json.length;
      out.rawBytes = bytes.length;
      return out;
    })().then(done, (e) => done({ error: String(e) }));
  }, megabytes);
  const r = (x) => Math.round(x);
  log(`parse probe: JSON.stringify of the reply as an argument ${r(figures.stringifyMs)} ms (${figures.jsonBytes} B), the raw body ${r(figures.encodeMs)} ms (${figures.rawBytes} B)`);
  for (const round of figures.rounds ?? []) {
    log(`  parse_reply refused (request only) ${r(round.refused)} ms; tiny reply ${r(round.tiny)} ms; whole ${r(round.whole)} ms; answer ${round.answerBytes} B (JSON.parse ${r(round.answerParseMs)} ms)`);
  }
  if (figures.error) log(`  parse probe failed: ${figures.error}`);
}
