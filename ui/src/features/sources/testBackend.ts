/**
 * Test support: a fake backend behind mockIPC for the Sources pane's commands (events mocked,
 * so `emit("sources-changed")` reaches the pane), recording every call. A handler in
 * `override` replaces a command; throw a `{kind, message}` object to fail like a command.
 */
import { mockIPC } from "@tauri-apps/api/mocks";

import type {
  HttpToolsView,
  ImportReport,
  McpServerConfig,
  Mock,
  SetImportReport,
  SetSummary,
  SignInStep,
  SourceState,
  ToolSet,
  WasmToolsView,
} from "../../lib/ipc";

export const SERVERS: SourceState[] = [
  {
    config: {
      name: "files",
      transport: {
        type: "stdio",
        command: "npx",
        args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp/my dir"],
        env: { API_TOKEN: "sk-secret-env-value" },
        cwd: null,
      },
      enabled: true,
    },
    tool_id: "files",
    command_line: "API_TOKEN=sk-secret-env-value npx -y @modelcontextprotocol/server-filesystem '/tmp/my dir'",
    status: { state: "ready", tools: 14, server: "secure-filesystem-server 0.2.0" },
    signed_in: false,
  },
  {
    config: {
      name: "remote",
      transport: { type: "http", url: "https://mcp.example.com/mcp?key=q-secret", headers: { Authorization: "Bearer hdr-secret" } },
      enabled: true,
    },
    tool_id: "remote",
    command_line: null,
    status: { state: "failed", reason: "connection refused (os error 111) while sending the initialize request to https://mcp.example.com/mcp" },
    signed_in: false,
  },
  {
    config: { name: "fresh", transport: { type: "stdio", command: "/opt/bin/server", args: ["--stdio"] }, enabled: true },
    tool_id: "fresh",
    command_line: "/opt/bin/server --stdio",
    status: { state: "awaiting_approval", command_line: "/opt/bin/server --stdio" },
    signed_in: false,
  },
  {
    config: { name: "off", transport: { type: "stdio", command: "off-server" }, enabled: false },
    tool_id: "off",
    command_line: "off-server",
    status: { state: "disabled" },
    signed_in: false,
  },
  {
    config: { name: "starting", transport: { type: "http", url: "http://127.0.0.1:9000/mcp" }, enabled: true },
    tool_id: "starting",
    command_line: null,
    status: { state: "connecting" },
    signed_in: false,
  },
];

export const HTTP_VIEW: HttpToolsView = {
  directory: "/home/me/.local/share/dev.toolscope.app/http-tools",
  files: [
    { file_name: "broken.json", tool_id: null, disabled: false },
    { file_name: "weather.toml", tool_id: "weather", disabled: false },
    { file_name: "zz-off.json", tool_id: null, disabled: true },
  ],
  problems: [{ file_name: "broken.json", field: "methods[0].endpoint.url", message: "relative URL without a base" }],
  disabled: ["off"],
};

const FILES_GRANTS = ["read the environment variable HOME", "read the directory /home/me/notes (seen as /notes)"];

/** One folder of WASM tools: textkit loaded, a broken manifest, a tool waiting for its grants. */
export const WASM_VIEW: WasmToolsView = {
  directories: [
    {
      path: "/home/me/wasm-tools",
      tools: [{ id: "textkit", name: "Text kit", manifest: "/home/me/wasm-tools/textkit/manifest.toml", methods: 4 }],
    },
  ],
  problems: [
    {
      file: "/home/me/wasm-tools/broken/manifest.toml",
      field: "methods[0].export",
      message: "the module does not export a function named 'missing'",
    },
  ],
  // The waiting tool is only here: the view leaves out its `grants` problem of the reload report.
  pending: [
    {
      tool_id: "files",
      manifest: "/home/me/wasm-tools/files/manifest.toml",
      grants: FILES_GRANTS,
      key: ["files", ...FILES_GRANTS].join("\n"),
    },
  ],
};

/** An imported set as the app keeps it: two OpenAI-shaped definitions, one mocked. */
export const BILLING: ToolSet = {
  name: "Billing API",
  id: "Billing-API",
  imported_at: "2026-11-25T10:00:00Z",
  origin: "tools.json",
  definitions: [
    {
      name: "get_invoice",
      description: "Fetch an invoice by number.",
      parameters: { type: "object", properties: { invoice_number: { type: "string" } }, required: ["invoice_number"] },
      shape: "openai_chat",
    },
    {
      name: "send_reminder",
      description: "Email a payment reminder.",
      parameters: { type: "object", properties: {} },
      shape: "openai_chat",
    },
  ],
  mocks: { get_invoice: { reply: { type: "fixed", value: { status: "open" } }, latency_ms: 0 } },
};

function summary(set: ToolSet): SetSummary {
  return {
    name: set.name,
    id: set.id,
    origin: set.origin ?? "",
    imported_at: set.imported_at,
    definitions: set.definitions.length,
    mocked: Object.keys(set.mocks ?? {}).length,
  };
}

type Handler = (args: Record<string, unknown>) => unknown;

export interface SourcesBackend {
  servers: SourceState[];
  http: HttpToolsView;
  wasm: WasmToolsView;
  files: Record<string, string>;
  logs: Record<string, string[]>;
  /** Server name → the steps of its last sign-in. */
  steps: Record<string, SignInStep[]>;
  imported: ToolSet[];
  /** The endpoint profiles' names and the one MCP sampling goes to. */
  profiles: string[];
  samplingProfile: string | null;
  calls: { cmd: string; args: Record<string, unknown> }[];
  argsOf: (cmd: string) => Record<string, unknown>[];
}

function stateOf(config: McpServerConfig): SourceState {
  const line = config.transport.type === "stdio" ? config.transport.command : null;
  return {
    config,
    tool_id: config.name,
    command_line: line,
    status: line === null ? { state: "connecting" } : { state: "awaiting_approval", command_line: line },
    signed_in: false,
  };
}

/** A path ending in "missing" is no directory; any other adds a directory of one tool. */
function addWasmDirectory(view: WasmToolsView, path: string): WasmToolsView {
  if (path.endsWith("missing")) return commandError("invalid_input", `${path} is not a directory`);
  if (view.directories.some((d) => d.path === path)) return view;
  const id = path.split("/").pop() ?? path;
  const tool = { id, name: id, manifest: `${path}/manifest.toml`, methods: 1 };
  return { ...view, directories: [...view.directories, { path, tools: [tool] }] };
}

function removeWasmDirectory(view: WasmToolsView, path: string): WasmToolsView {
  if (!view.directories.some((d) => d.path === path)) {
    return commandError("source", `${path} is not one of the WASM tool directories`);
  }
  const outside = (file: string) => !file.startsWith(`${path}/`);
  return {
    directories: view.directories.filter((d) => d.path !== path),
    problems: view.problems.filter((p) => outside(p.file)),
    pending: view.pending.filter((p) => outside(p.manifest)),
  };
}

/** The approved tool registers in the directory holding its manifest. */
function approveWasmGrants(view: WasmToolsView, key: string): WasmToolsView {
  const pending = view.pending.find((p) => p.key === key);
  if (!pending) return commandError("source", "no WASM tool is waiting for the approval of these grants");
  const tool = { id: pending.tool_id, name: pending.tool_id, manifest: pending.manifest, methods: 1 };
  return {
    directories: view.directories.map((d) =>
      pending.manifest.startsWith(`${d.path}/`) ? { ...d, tools: [...d.tools, tool] } : d,
    ),
    problems: view.problems.filter((p) => !(p.file === pending.manifest && p.field === "grants")),
    pending: view.pending.filter((p) => p.key !== key),
  };
}

export function installSourcesBackend(override: Record<string, Handler> = {}): SourcesBackend {
  const backend: SourcesBackend = {
    servers: structuredClone(SERVERS),
    http: structuredClone(HTTP_VIEW),
    wasm: structuredClone(WASM_VIEW),
    files: { "weather.toml": 'id = "weather"\n', "broken.json": '{"id": "broken"}\n' },
    logs: { files: ["Secure MCP Filesystem Server running on stdio", "Allowed directories: [ '/tmp/my dir' ]"] },
    steps: {},
    imported: [structuredClone(BILLING)],
    profiles: ["local"],
    samplingProfile: null,
    calls: [],
    argsOf: (cmd) => backend.calls.filter((c) => c.cmd === cmd).map((c) => c.args),
  };
  const find = (name: unknown) => {
    const found = backend.servers.find((s) => s.config.name === name);
    if (!found) throw new Error(`no server ${String(name)}`);
    return found;
  };
  const answer = (cmd: string, payload: unknown): unknown => {
    const args = (payload ?? {}) as Record<string, unknown>;
    backend.calls.push({ cmd, args });
    const replaced = override[cmd];
    if (replaced) return replaced(args);
    switch (cmd) {
      case "mcp_servers":
        return backend.servers;
      case "mcp_add": {
        const state = stateOf(args.config as McpServerConfig);
        backend.servers = [...backend.servers, state];
        return state;
      }
      case "mcp_update": {
        const state = stateOf(args.config as McpServerConfig);
        backend.servers = backend.servers.map((s) => (s.config.name === args.name ? state : s));
        return state;
      }
      case "mcp_remove":
        backend.servers = backend.servers.filter((s) => s.config.name !== args.name);
        return null;
      case "mcp_reconnect":
      case "mcp_approve": {
        const server = find(args.name);
        server.status = { state: "connecting" };
        return server;
      }
      case "mcp_log":
        return backend.logs[String(args.name)] ?? [];
      case "mcp_sign_in": {
        const server = find(args.name);
        server.status = { state: "ready", tools: 3, server: "tracker 1.0" };
        server.signed_in = true;
        return server;
      }
      case "mcp_cancel_sign_in": {
        const server = find(args.name);
        server.status = { state: "sign_in_required", reason: "the sign-in was cancelled" };
        return null;
      }
      case "mcp_sign_out": {
        const server = find(args.name);
        server.status = { state: "sign_in_required", reason: "the server requires signing in" };
        server.signed_in = false;
        return server;
      }
      case "mcp_sign_in_steps":
        return backend.steps[String(args.name)] ?? [];
      case "mcp_import": {
        const report: ImportReport = { servers: [], warnings: [] };
        return report;
      }
      case "mcp_export":
        return '{\n  "mcpServers": {}\n}';
      case "http_tools":
        return backend.http;
      case "http_tool_read":
        return backend.files[String(args.fileName)] ?? "";
      case "http_tool_save":
        backend.files[String(args.fileName)] = String(args.text);
        return backend.http;
      case "http_tool_delete":
        backend.http = { ...backend.http, files: backend.http.files.filter((f) => f.file_name !== args.fileName) };
        return backend.http;
      case "wasm_tools":
      case "wasm_reload":
        return backend.wasm;
      case "wasm_add_directory":
        backend.wasm = addWasmDirectory(backend.wasm, String(args.path));
        return backend.wasm;
      case "wasm_remove_directory":
        backend.wasm = removeWasmDirectory(backend.wasm, String(args.path));
        return backend.wasm;
      case "wasm_approve":
        backend.wasm = approveWasmGrants(backend.wasm, String(args.key));
        return backend.wasm;
      case "imported_sets":
        return backend.imported.map(summary);
      case "imported_set": {
        const set = backend.imported.find((i) => i.name === args.name);
        if (!set) return commandError("source", `no imported set is named '${String(args.name)}'`);
        return set;
      }
      case "imported_import": {
        const set: ToolSet = {
          ...structuredClone(BILLING),
          name: String(args.name),
          id: String(args.name).replace(/[^A-Za-z0-9._-]/g, "-"),
          origin: String(args.origin),
          mocks: {},
        };
        backend.imported = [...backend.imported.filter((i) => i.name !== set.name), set];
        const report: SetImportReport = {
          set: summary(set),
          findings: [{ path: "/1/function", level: "error", message: "the definition has no `name`" }],
          repeats_merged: 0,
          replaced: false,
          mocks_dropped: [],
        };
        return report;
      }
      case "imported_set_mock": {
        const set = backend.imported.find((i) => i.name === args.name);
        if (!set) return commandError("source", "no such set");
        const others = Object.entries(set.mocks ?? {}).filter(([name]) => name !== args.definition);
        set.mocks = Object.fromEntries(args.mock === null ? others : [...others, [String(args.definition), args.mock as Mock]]);
        return null;
      }
      case "imported_remove":
        backend.imported = backend.imported.filter((i) => i.name !== args.name);
        return null;
      case "endpoint_profiles":
        return backend.profiles.map((name) => ({
          name,
          wire: "openai_chat",
          base_url: "http://127.0.0.1:8000/v1",
          model: "qwen",
          key_source: "none",
          key_env: null,
        }));
      case "get_settings":
        return { sampling_profile: backend.samplingProfile };
      case "set_sampling_profile": {
        const profile = args.profile as string | null;
        if (profile !== null && !backend.profiles.includes(profile)) {
          return commandError("invalid_input", `no endpoint profile '${profile}': add it in the Agent pane first`);
        }
        backend.samplingProfile = profile;
        return { sampling_profile: profile };
      }
      default:
        throw new Error(`unexpected command ${cmd}`);
    }
  };
  // The real IPC serialises every answer, so the pane never holds the backend's own objects:
  // answering with them would let an in-place change reach the pane without a fetch (or hide a
  // fetch behind an unchanged reference).
  mockIPC(async (cmd, payload) => structuredClone(await answer(cmd, payload)), { shouldMockEvents: true });
  return backend;
}

/** Makes a command fail the way a backend command error does. */
export function commandError(kind: string, message: string): never {
  // eslint-disable-next-line @typescript-eslint/only-throw-error -- a command's error value is a plain object
  throw { kind, message, details: null };
}
