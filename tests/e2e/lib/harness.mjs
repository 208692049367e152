// Shared plumbing for the real-app end-to-end tests and the bench: tauri-driver (which starts
// WebKitWebDriver, which starts the app), WebdriverIO sessions, DOM helpers, screenshots and
// process bookkeeping from /proc. Must run under an X server (scripts use `xvfb-run -a`).
//
// Clicks go through the DOM (`element.click()` in the page): Xvfb has no window manager, so
// WebDriver's coordinate-based clicks are not reliable there.

import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { remote } from "webdriverio";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
export const APP_BINARY = process.env.TOOLSCOPE_APP ?? path.join(ROOT, "target/debug/toolscope-app");
export const SCREENSHOT_DIR = path.join(ROOT, "target/e2e-screenshots");
export const LOG_DIR = path.join(ROOT, "target/e2e-logs");
/** The app's identifier (tauri.conf.json): its data lives in $XDG_DATA_HOME/<identifier>. */
export const APP_IDENTIFIER = "dev.toolscope.app";

/** A failure with a message meant for the person reading the test log. */
export class E2EError extends Error {
  constructor(message) {
    super(message);
    this.name = "E2EError";
  }
}

/** Fails the scenario with `message` unless `condition` holds. */
export function expect(condition, message) {
  if (!condition) throw new E2EError(message);
}

export const tid = (id) => `[data-testid="${id}"]`;

export function log(...parts) {
  console.log("[e2e]", ...parts);
}

// ---------------------------------------------------------------------------------------------
// Environment

/** Fails early, with the fix, when a prerequisite is missing. */
export function checkPrerequisites() {
  const problems = [];
  if (!process.env.DISPLAY) problems.push("no DISPLAY: run under `xvfb-run -a` (tests/e2e/run.sh does)");
  if (!fs.existsSync(APP_BINARY)) problems.push(`${APP_BINARY} is missing: run \`cargo build -p toolscope-app\``);
  if (!which("tauri-driver")) {
    problems.push("tauri-driver is not on PATH: `cargo install tauri-driver --locked --version '^2'`");
  }
  if (!which("WebKitWebDriver")) problems.push("WebKitWebDriver is missing: `apt-get install webkit2gtk-driver`");
  if (problems.length) throw new E2EError(`prerequisites missing:\n  - ${problems.join("\n  - ")}`);
}

export function which(command) {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    const candidate = path.join(dir, command);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/** Fresh XDG data/config/cache dirs under target/, shared by every app launch of one run. */
export function makeXdgHome(prefix = "e2e-home") {
  fs.mkdirSync(path.join(ROOT, "target"), { recursive: true });
  const home = fs.mkdtempSync(path.join(ROOT, "target", `${prefix}.`));
  const dirs = {
    home,
    XDG_DATA_HOME: path.join(home, "data"),
    XDG_CONFIG_HOME: path.join(home, "config"),
    XDG_CACHE_HOME: path.join(home, "cache"),
  };
  for (const key of ["XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"]) fs.mkdirSync(dirs[key]);
  return dirs;
}

export function removeDir(dir) {
  // WebKit helper processes may still be flushing for a moment after the app is gone.
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      fs.rmSync(dir, { recursive: true, force: true });
      return;
    } catch {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

// ---------------------------------------------------------------------------------------------
// /proc

/** pid -> {ppid, comm} for every process. */
export function processTable() {
  const table = new Map();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      // comm is in parentheses and may contain spaces: split after the last ')'.
      const close = stat.lastIndexOf(")");
      const comm = stat.slice(stat.indexOf("(") + 1, close);
      const fields = stat.slice(close + 2).split(" ");
      table.set(Number(entry), { ppid: Number(fields[1]), comm });
    } catch {
      // exited meanwhile
    }
  }
  return table;
}

/** Every descendant pid of `pid` (not `pid` itself). */
export function descendants(pid, table = processTable()) {
  const children = new Map();
  for (const [child, { ppid }] of table) {
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push(child);
  }
  const out = [];
  const queue = [...(children.get(pid) ?? [])];
  while (queue.length) {
    const next = queue.shift();
    out.push(next);
    queue.push(...(children.get(next) ?? []));
  }
  return out;
}

/**
 * The TCP sockets in LISTEN state and the unconnected (receiving) UDP sockets that `pids` hold,
 * as {pid, comm, proto, local}. Matches the socket inodes of each process's open files
 * (/proc/<pid>/fd) against its network namespace's tables (/proc/<pid>/net/{tcp,tcp6,udp,udp6}).
 * Also returns how many sockets the processes hold in all, so a caller can see it looked.
 */
export function listeningSockets(pids, table = processTable()) {
  const found = [];
  let sockets = 0;
  for (const pid of pids) {
    const inodes = new Set();
    try {
      for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
        try {
          const match = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
          if (match) inodes.add(match[1]);
        } catch {
          // closed meanwhile
        }
      }
    } catch {
      continue; // exited meanwhile
    }
    sockets += inodes.size;
    for (const proto of ["tcp", "tcp6", "udp", "udp6"]) {
      let lines = [];
      try {
        lines = fs.readFileSync(`/proc/${pid}/net/${proto}`, "utf8").trim().split("\n").slice(1);
      } catch {
        continue;
      }
      for (const line of lines) {
        // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
        const fields = line.trim().split(/\s+/);
        const [local, remote, state, inode] = [fields[1], fields[2], fields[3], fields[9]];
        if (!inodes.has(inode)) continue;
        const listening = proto.startsWith("tcp") ? state === "0A" : remote.endsWith(":0000");
        if (listening) found.push({ pid, comm: table.get(pid)?.comm ?? "?", proto, local });
      }
    }
  }
  return { listening: found, sockets };
}

/**
 * The `host:port` in `/proc/<pid>/environ` under WEBKIT_INSPECTOR_SERVER, as it appears in
 * /proc/net/tcp (`0100007F:DEEB`), or null. WebKitWebDriver sets that variable when it starts
 * the app, and WebKit then listens there for the driver's automation session: a port of the
 * test set-up inside the app process, absent when the app is started normally.
 */
export function inspectorServerAddress(pid) {
  let environ = "";
  try {
    environ = fs.readFileSync(`/proc/${pid}/environ`, "utf8");
  } catch {
    return null;
  }
  const value = environ.split("\0").find((entry) => entry.startsWith("WEBKIT_INSPECTOR_SERVER="))?.split("=")[1];
  const match = /^(\d+)\.(\d+)\.(\d+)\.(\d+):(\d+)$/.exec(value ?? "");
  if (!match) return null;
  const hex = (n, width) => Number(n).toString(16).toUpperCase().padStart(width, "0");
  // /proc/net/tcp writes the IPv4 address as a little-endian 32-bit number.
  const ip = [match[4], match[3], match[2], match[1]].map((octet) => hex(octet, 2)).join("");
  return `${ip}:${hex(match[5], 4)}`;
}

/**
 * Starts the app binary directly (no WebDriver, so nothing asks WebKit to listen) with `env`
 * added, and waits until it has opened its data dir and started its web process. Returns
 * {pid, pids(), stop()}; stop() ends it and its children by pid.
 */
export async function startAppDirectly({ env, dataDir, timeoutMs = 60_000 }) {
  const childEnv = { ...process.env, ...env };
  delete childEnv.WEBKIT_INSPECTOR_SERVER;
  const child = spawn(APP_BINARY, [], { env: childEnv, stdio: "ignore" });
  let exited = null;
  child.on("exit", (code, signal) => {
    exited = { code, signal };
  });
  const pids = () => [child.pid, ...descendants(child.pid)];
  const stop = async () => {
    const all = pids().reverse();
    for (const pid of all) {
      try {
        process.kill(pid, "SIGTERM");
      } catch {
        // gone
      }
    }
    const until = Date.now() + 5_000;
    while (!exited && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
    for (const pid of all) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone
      }
    }
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited) throw new E2EError(`the app exited at start (${JSON.stringify(exited)})`);
    const table = processTable();
    const web = descendants(child.pid, table).some((pid) => table.get(pid)?.comm.startsWith("WebKitWebProces"));
    if (web && fs.existsSync(path.join(dataDir, "history.jsonl"))) break;
    if (Date.now() > deadline) {
      await stop();
      throw new E2EError(`the app started directly did not open ${dataDir} and a web process within ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { pid: child.pid, pids, stop };
}

/** Kilobytes from /proc/<pid>/status (VmRSS) and /proc/<pid>/smaps_rollup (Pss); null if gone. */
export function memoryOf(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    let pss = null;
    try {
      const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
      pss = Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
    } catch {
      // smaps_rollup needs a 4.14+ kernel
    }
    return { rss, pss };
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// tauri-driver

/**
 * Starts tauri-driver (and through it WebKitWebDriver) on free ports with `env` added to the
 * environment; the app inherits that environment when a session starts it.
 */
export async function startDriver({ env = {}, logName = "tauri-driver" } = {}) {
  fs.mkdirSync(LOG_DIR, { recursive: true });
  const port = await freePort();
  const nativePort = await freePort();
  const logPath = path.join(LOG_DIR, `${logName}.log`);
  const logFd = fs.openSync(logPath, "w");
  const child = spawn("tauri-driver", ["--port", String(port), "--native-port", String(nativePort)], {
    env: { ...process.env, ...env },
    stdio: ["ignore", logFd, logFd],
  });
  fs.closeSync(logFd);
  let exited = null;
  child.on("exit", (code, signal) => {
    exited = { code, signal };
  });
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (exited) throw new E2EError(`tauri-driver exited at start (${JSON.stringify(exited)}); see ${logPath}`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/status`);
      if (response.ok || response.status < 500) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new E2EError(`tauri-driver did not listen on port ${port} within 15 s; see ${logPath}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // The readiness probes above log "connection refused" backtraces while WebKitWebDriver starts:
  // failure reports show only what the log got after this point.
  const logStart = fs.statSync(logPath).size;
  return {
    port,
    pid: child.pid,
    logPath,
    child,
    /** The app processes this driver started (toolscope-app and its WebKit helpers). */
    appPids() {
      const table = processTable();
      return descendants(child.pid, table).filter((pid) => table.get(pid)?.comm !== "WebKitWebDriver");
    },
    /** The main app process (the one running `binary`, by default `APP_BINARY`), or null. */
    appPid(binary = APP_BINARY) {
      const table = processTable();
      for (const pid of descendants(child.pid, table)) {
        try {
          if (fs.readlinkSync(`/proc/${pid}/exe`) === fs.realpathSync(binary)) return pid;
        } catch {
          // gone or not ours
        }
      }
      return null;
    },
    tail(lines = 30) {
      try {
        const text = fs.readFileSync(logPath).subarray(logStart).toString("utf8").trimEnd();
        return text === "" ? "" : text.split("\n").slice(-lines).join("\n");
      } catch {
        return "";
      }
    },
    /** Stops the driver and whatever it started, by pid (never by name). */
    async stop() {
      const pids = descendants(child.pid);
      if (!exited) child.kill("SIGTERM");
      for (const pid of pids.reverse()) {
        try {
          process.kill(pid, "SIGTERM");
        } catch {
          // already gone
        }
      }
      const until = Date.now() + 3_000;
      while (!exited && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
      if (!exited) child.kill("SIGKILL");
      for (const pid of pids) {
        try {
          process.kill(pid, 0);
          process.kill(pid, "SIGKILL");
        } catch {
          // gone
        }
      }
    },
  };
}

/** Creates a WebDriver session: WebKitWebDriver starts `application` (default: the app). */
export async function openSession(driver, { application = APP_BINARY, args = [] } = {}) {
  return remote({
    hostname: "127.0.0.1",
    port: driver.port,
    logLevel: "error",
    connectionRetryCount: 0,
    connectionRetryTimeout: 60_000,
    waitforTimeout: 10_000,
    waitforInterval: 50,
    capabilities: {
      browserName: "wry",
      "wdio:enforceWebDriverClassic": true,
      "tauri:options": { application, args },
    },
  });
}

/** Ends the session (WebKitWebDriver closes the app) and waits until the app process is gone. */
export async function closeSession(browser, driver, timeoutMs = 10_000) {
  try {
    await browser.deleteSession();
  } catch (error) {
    log(`deleteSession failed (${error.message}); killing the app by pid`);
  }
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pids = driver.appPids();
    if (pids.length === 0) return;
    if (Date.now() > deadline) {
      for (const pid of pids) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // gone
        }
      }
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// ---------------------------------------------------------------------------------------------
// DOM helpers

/** Every data-testid in the document, with how often it occurs and whether it is visible. */
export async function presentTestIds(browser) {
  return browser.execute(() => {
    const seen = {};
    for (const element of document.querySelectorAll("[data-testid]")) {
      const id = element.getAttribute("data-testid");
      const visible = !!(element.offsetWidth || element.offsetHeight || element.getClientRects().length);
      const entry = (seen[id] ??= { count: 0, visible: 0 });
      entry.count += 1;
      if (visible) entry.visible += 1;
    }
    return seen;
  });
}

export function describeTestIds(ids) {
  const names = Object.keys(ids).sort();
  if (names.length === 0) return "(no element has a data-testid)";
  return names
    .map((name) => {
      const { count, visible } = ids[name];
      return `${name}${count > 1 ? ` x${count}` : ""}${visible < count ? ` (${count - visible} hidden)` : ""}`;
    })
    .join(", ");
}

/**
 * Waits until `selector` matches an element that is visible (rendered with a size, i.e. not in
 * a hidden pane). Throws a message naming the selector and what the page has instead.
 */
export async function waitVisible(browser, selector, { timeout = 10_000, what = selector } = {}) {
  try {
    await browser.waitUntil(
      () =>
        browser.execute((sel) => {
          const element = document.querySelector(sel);
          return !!element && !!(element.offsetWidth || element.offsetHeight || element.getClientRects().length);
        }, selector),
      { timeout, interval: 50 },
    );
  } catch {
    const exists = await browser.execute((sel) => document.querySelectorAll(sel).length, selector);
    throw new E2EError(
      `${what}: no visible element matches ${selector} after ${timeout} ms` +
        (exists ? ` (${exists} in the DOM but hidden)` : " (none in the DOM)"),
    );
  }
  return browser.$(selector);
}

/** Polls `check` (in node) until it returns a truthy value; `explain()` builds the timeout message. */
export async function waitFor(browser, check, { timeout = 10_000, explain }) {
  let last;
  try {
    await browser.waitUntil(
      async () => {
        last = await check();
        return last;
      },
      { timeout, interval: 50 },
    );
  } catch (error) {
    if (error instanceof E2EError) throw error;
    const detail = explain ? await explain() : "";
    throw new E2EError(`timed out after ${timeout} ms: ${detail}`);
  }
  return last;
}

/** Clicks through the DOM (no coordinates: Xvfb has no window manager). */
export async function clickTestId(browser, id, opts = {}) {
  const selector = opts.selector ?? tid(id);
  await waitVisible(browser, selector, { timeout: opts.timeout ?? 10_000, what: `click ${id}` });
  const disabled = await browser.execute((sel) => {
    const element = document.querySelector(sel);
    return element.disabled === true || element.getAttribute("aria-disabled") === "true";
  }, selector);
  if (disabled && !opts.allowDisabled) {
    // Give a pending state update a moment to enable it before declaring failure.
    await waitFor(
      browser,
      () => browser.execute((sel) => !document.querySelector(sel).disabled, selector),
      { timeout: opts.timeout ?? 5_000, explain: async () => `${selector} stays disabled` },
    );
  }
  await browser.execute((sel) => document.querySelector(sel).click(), selector);
}

/**
 * Sets an <input>/<textarea>/<select> value the way React notices: the prototype's native value setter
 * (React tracks the instance property) followed by bubbling `input` and `change` events.
 */
export async function setNativeValue(browser, selector, value) {
  const ok = await browser.execute(
    (sel, text) => {
      const element = document.querySelector(sel);
      if (!element) return false;
      const proto =
        element instanceof HTMLTextAreaElement
          ? HTMLTextAreaElement.prototype
          : element instanceof HTMLSelectElement
            ? HTMLSelectElement.prototype
            : HTMLInputElement.prototype;
      const setter = Object.getOwnPropertyDescriptor(proto, "value").set;
      element.focus();
      setter.call(element, text);
      element.dispatchEvent(new Event("input", { bubbles: true }));
      element.dispatchEvent(new Event("change", { bubbles: true }));
      return true;
    },
    selector,
    value,
  );
  if (!ok) throw new E2EError(`cannot set the value of ${selector}: not in the DOM`);
}

/** Visible text of an element, or its value for inputs/textareas; null when absent. */
export async function textOf(browser, selector) {
  return browser.execute((sel) => {
    const element = document.querySelector(sel);
    if (!element) return null;
    if ("value" in element && typeof element.value === "string" && element.tagName !== "BUTTON") return element.value;
    return element.innerText || element.textContent || "";
  }, selector);
}

/** Attribute `name` of every element matching `selector`. */
export async function attributesOf(browser, selector, name) {
  return browser.execute((sel, attr) => [...document.querySelectorAll(sel)].map((e) => e.getAttribute(attr)), selector, name);
}

// ---------------------------------------------------------------------------------------------
// Screenshots

function grabScreen() {
  // PPM straight from the X server: cheap to compare between grabs (the PNG is written once).
  return execFileSync("import", ["-window", "root", "ppm:-"], {
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 15_000,
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** Pixel data offset and bytes per pixel of a binary PPM ("P6\n<w> <h>\n<max>\n" + pixels). */
function ppmLayout(ppm) {
  let offset = 0;
  for (let fields = 0; fields < 4; offset++) {
    if (ppm[offset] === 0x0a || ppm[offset] === 0x20) fields++;
  }
  const maxval = Number(ppm.subarray(0, offset).toString("latin1").trim().split(/\s+/)[3]);
  return { offset, size: maxval > 255 ? 6 : 3 };
}

/** True when every pixel has the same colour (nothing painted yet). */
function isUniform(ppm) {
  const { offset, size } = ppmLayout(ppm);
  for (let i = offset + size; i + size <= ppm.length; i += size * 7) {
    if (ppm.compare(ppm, offset, offset + size, i, i + size) !== 0) return false;
  }
  return true;
}

/** How many pixels differ between two grabs of the same screen. */
function differingPixels(a, b) {
  if (a.length !== b.length) return Infinity;
  const { offset, size } = ppmLayout(a);
  let count = 0;
  for (let i = offset; i + size <= a.length; i += size) {
    if (a.compare(b, i, i + size, i, i + size) !== 0) count++;
  }
  return count;
}

/**
 * Screenshot of the whole X screen with imagemagick's `import` (DISPLAY from xvfb-run), saved as
 * target/e2e-screenshots/<name>.png. With `browser`, it first scrolls `focus` (a selector) into
 * view if given, waits two animation frames, then grabs until two grabs 150 ms apart are equal
 * but for a caret blink or a fading scrollbar, and not blank (WebKit under Xvfb paints a little after the DOM
 * changes; up to `settleMs`).
 */
export async function screenshot(name, { browser = null, focus = null, settleMs = 4_000 } = {}) {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  const began = Date.now();
  try {
    let frame;
    if (browser) {
      await browser.executeAsync((sel, done) => {
        if (sel) document.querySelector(sel)?.scrollIntoView({ block: "center" });
        requestAnimationFrame(() => requestAnimationFrame(() => done()));
      }, focus);
      const until = Date.now() + settleMs;
      let previous = null;
      for (;;) {
        frame = grabScreen();
        // Allowed to change: a blinking caret and fading overlay scrollbars (a few thin strips,
        // measured at up to ~2,400 pixels); a late repaint of real content changes far more.
        const diff = previous === null ? Infinity : differingPixels(previous, frame);
        if (process.env.E2E_VERBOSE) log(`  ${name}: ${diff} pixels changed`);
        const stable = diff <= 4_000 && !isUniform(frame);
        if (stable || Date.now() > until) {
          if (!stable) log(`screenshot ${name}: the screen did not settle within ${settleMs} ms (saved the last frame)`);
          break;
        }
        previous = frame;
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
    } else {
      frame = grabScreen();
    }
    if (process.env.E2E_VERBOSE) log(`screenshot ${name}: ${Date.now() - began} ms`);
    execFileSync("convert", ["ppm:-", `png:${file}`], { input: frame, stdio: ["pipe", "ignore", "pipe"], timeout: 15_000 });
    return file;
  } catch (error) {
    log(`screenshot ${name} failed: ${error.stderr?.toString().trim() || error.message}`);
    return null;
  }
}

export function hostSummary() {
  return `${os.cpus().length} cpu, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`;
}
