#!/usr/bin/env node
// R20.3 (issue 27): runs the real coding clients offline against the bundled simulator through a
// recording proxy, and writes what they sent — trimmed to the fields a traffic class is read
// from — to tests/fixtures/clients/trafficCaptures.json, the fixture trafficClass.test.ts checks
// the classifier against. Re-run it when a client is upgraded:
//
//   node scripts/build.mjs && node scripts/ensure.mjs --clients
//   node scripts/capture-traffic.mjs [--only=claude-code,codex-cli,gemini-cli,opencode,qwen-code] [--raw=<dir>]
//
// The clients are the pinned ones the tests run, from tests/clients (another folder with the same
// layout with CAPTURE_CLIENTS_DIR, e.g. to capture a newer version). Claude Code's interactive run needs
// python3 (a pseudo-terminal). `--only` re-captures some clients and keeps the others' entries;
// `--raw` also dumps every full exchange there, for reading what a new version sends.
//
// The proxy steers the simulator so each client reaches its side paths: a prompt "use tool X"
// moves X to the front of the offered tools (the simulator calls the first one), with its
// message/prompt/description made required; a Codex tool nested in a namespace is offered flat
// and the call is answered with its namespace; a Gemini JSON-schema request (its utility calls)
// is answered with JSON of that schema. What is recorded is always what the client sent.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");
const OUT = path.join(ROOT, "tests/fixtures/clients/trafficCaptures.json");
const CLIENTS_DIR = process.env.CAPTURE_CLIENTS_DIR ?? path.join(ROOT, "tests/clients");
const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, "").split("=")));
const only = args.only ? new Set(args.only.split(",")) : null;
const TEXT_HEAD = 200;

const { startSimulator } = await import(path.join(ROOT, "dist/main/simulator/index.js"));

// ---------------------------------------------------------------------------------------------
// The steering proxy

function toolName(tool) {
  return tool?.name ?? tool?.function?.name;
}

/** Required-string arguments the simulator fills with "sim", so a pinned tool's call is valid. */
function requireTextArgs(tool) {
  const schema = tool.parameters ?? tool.input_schema ?? tool.function?.parameters;
  if (!schema?.properties) return;
  const wanted = ["message", "prompt", "description"].filter((k) => schema.properties[k]?.type === "string");
  schema.required = [...new Set([...(schema.required ?? []), ...wanted])];
}

/** Moves the tool the prompt names to the front; returns its namespace when it was nested in one. */
function pinTool(body, name) {
  if (Array.isArray(body.tools?.[0]?.functionDeclarations)) {
    const decls = body.tools.flatMap((t) => t.functionDeclarations ?? []);
    const i = decls.findIndex((d) => d.name === name);
    if (i >= 0) body.tools = [{ functionDeclarations: [decls[i], ...decls.filter((_, j) => j !== i)] }, ...body.tools.filter((t) => !t.functionDeclarations)];
    return null;
  }
  if (!Array.isArray(body.tools)) return null;
  const i = body.tools.findIndex((t) => toolName(t) === name);
  if (i >= 0) {
    body.tools.unshift(...body.tools.splice(i, 1));
    requireTextArgs(body.tools[0]);
    return null;
  }
  const holder = body.tools.find((t) => Array.isArray(t.tools) && t.tools.some((n) => toolName(n) === name));
  if (!holder) return null;
  const nested = structuredClone(holder.tools.find((n) => toolName(n) === name));
  requireTextArgs(nested);
  body.tools.unshift(nested);
  return holder.name;
}

/** A value of a JSON schema: enums take their first member, strings "sim". */
function sampleOf(schema) {
  const type = String(schema?.type ?? "string").toLowerCase();
  if (Array.isArray(schema?.enum)) return schema.enum[0];
  if (type === "object") return Object.fromEntries((schema.required ?? Object.keys(schema.properties ?? {})).map((k) => [k, sampleOf(schema.properties?.[k])]));
  if (type === "integer" || type === "number") return 10;
  if (type === "boolean") return false;
  if (type === "array") return [];
  return "sim";
}

function geminiJsonAnswer(schema) {
  const text = JSON.stringify(sampleOf(schema));
  return JSON.stringify({
    candidates: [{ content: { role: "model", parts: [{ text }] }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
  });
}

/** The body to forward and any simulator fault header that scripts its answer. */
function steer(text, namespaces) {
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    return { text };
  }
  const schema = body.generationConfig?.responseJsonSchema ?? body.generationConfig?.responseSchema;
  if (schema) return { text, fault: JSON.stringify({ body: geminiJsonAnswer(schema) }) };
  const m = /use tool (\w+)/.exec(lastUserText(body));
  if (!m) return { text };
  const namespace = pinTool(body, m[1]);
  if (namespace) namespaces.set(m[1], namespace);
  return { text: JSON.stringify(body) };
}

function startCaptureProxy(target) {
  const upstream = new URL(target);
  const exchanges = [];
  const namespaces = new Map();
  const state = { cap: Infinity };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const x = { method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), status: null };
      exchanges.push(x);
      if (exchanges.length > state.cap) {
        // Ends a client that would loop (opencode compacting a tiny window again and again).
        res.writeHead(400, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { type: "invalid_request_error", message: "capture request cap reached" } }));
        return;
      }
      const { text, fault } = steer(x.body, namespaces);
      const headers = { ...req.headers, host: upstream.host, "content-length": String(Buffer.byteLength(text)) };
      delete headers["transfer-encoding"];
      if (fault) headers["x-sim-fault"] = fault;
      const out = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, (up) => {
        x.status = up.statusCode;
        const back = { ...up.headers };
        delete back["content-length"];
        res.writeHead(up.statusCode ?? 502, back);
        up.on("data", (chunk) => {
          let s = chunk.toString("utf8");
          for (const [name, ns] of namespaces) s = s.replaceAll(`"name":"${name}"`, `"name":"${name}","namespace":"${ns}"`);
          res.write(s);
        });
        up.on("end", () => res.end());
      });
      out.on("error", () => res.destroy());
      out.end(text);
    });
  });
  // Codex's WebSocket transport is not used here: refuse upgrades so it stays on HTTP.
  server.on("upgrade", (_req, socket) => socket.end("HTTP/1.1 426 Upgrade Required\r\ncontent-length: 0\r\n\r\n"));
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        exchanges,
        state,
        close: () => new Promise((done) => (server.closeAllConnections(), server.close(() => done()))),
      }),
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// Running a client

/** Types keystrokes into a program on a pseudo-terminal: [[secondsToWait, "text"], …]. */
const TTY_DRIVER = `
import os, pty, sys, time, json, select, signal, fcntl, termios, struct
steps, cmd = json.loads(sys.argv[1]), sys.argv[2:]
pid, fd = pty.fork()
if pid == 0:
    os.environ["TERM"] = "xterm-256color"
    os.execvp(cmd[0], cmd)
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 160, 0, 0))
def pump(seconds):
    end = time.time() + seconds
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                if not os.read(fd, 65536): return False
            except OSError: return False
    return True
for delay, text in steps:
    if not pump(delay): break
    for ch in text:
        os.write(fd, ch.encode()); time.sleep(0.02)
pump(3)
os.kill(pid, signal.SIGKILL)
`;

function runClient({ cmd, args: argv, env, cwd, timeoutMs }) {
  return new Promise((resolve) => {
    const child = spawn(cmd, argv, { cwd, env: { PATH: process.env.PATH, ...env }, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const timer = setTimeout(() => child.pid !== undefined && process.kill(-child.pid, "SIGKILL"), timeoutMs);
    child.on("error", (err) => resolve({ code: null, out: String(err) }));
    child.on("close", (code) => (clearTimeout(timer), resolve({ code, out })));
  });
}

const bin = (name) => path.join(CLIENTS_DIR, "node_modules/.bin", name);
const versionOf = (pkgDir) => JSON.parse(readFileSync(path.join(pkgDir, "package.json"), "utf8")).version;

function write(file, text) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

// ---------------------------------------------------------------------------------------------
// Scenarios, per client: what to run, and what each request it sends is (read off the captures)

/** The last text part of the last user message: what the user — or the client, for a side request — wrote last. */
const lastUserText = (body) => {
  const list = body.messages ?? body.contents ?? (Array.isArray(body.input) ? body.input : []);
  const last = [...list].reverse().find((m) => m.role === "user");
  const content = last?.content ?? last?.parts ?? "";
  if (typeof content === "string") return content;
  return [...content].reverse().find((p) => typeof p.text === "string")?.text ?? "";
};
const systemText = (body) => {
  const s =
    body.system ??
    body.instructions ??
    body.systemInstruction?.parts ??
    body.messages?.find((m) => m.role === "system")?.content ??
    body.input?.find?.((m) => m.role === "developer")?.content ??
    "";
  return typeof s === "string" ? s : s.map((b) => b.text ?? "").join("\n");
};
const lastItem = (body) => (body.messages ?? body.contents ?? body.input ?? []).at(-1) ?? {};
const hasToolResult = (body) => {
  const last = lastItem(body);
  return (
    last.role === "tool" ||
    last.type === "function_call_output" ||
    (Array.isArray(last.content) && last.content.some((b) => b.type === "tool_result")) ||
    (last.parts ?? []).some((p) => p.functionResponse)
  );
};

function claudeCodeLabel(x, body) {
  if (x.url.startsWith("/v1/messages/count_tokens")) {
    return lastUserText(body) === "foo" ? ["count_tokens probe of one tool's size (/context)", "count"] : ["count_tokens of one system-prompt section (/context)", "count"];
  }
  const sys = systemText(body);
  const user = lastUserText(body);
  if (sys.includes("You are naming a coding session")) return [`session title (${body.model})`, "background"];
  if (user.startsWith("[SUGGESTION MODE:")) return ["prompt suggestion after the turn (--prompt-suggestions)", "background"];
  if (user.startsWith("CRITICAL: Respond with TEXT ONLY")) return ["/compact summary request", "compaction"];
  if (x.headers["x-claude-code-agent-id"]) return ["Agent tool's subagent turn", "subagent"];
  if (hasToolResult(body)) return ["main turn carrying a tool result", "main"];
  if (user.includes("[SYSTEM NOTIFICATION - NOT USER INPUT]")) return ["main turn woken by a finished background agent", "main"];
  const entry = /cc_entrypoint=([\w-]+)/.exec(sys)?.[1];
  const thinking = body.thinking?.type === "disabled" ? ", thinking off" : "";
  return [`main turn (${entry}, ${body.model}, ${(body.tools ?? []).length} tools${thinking})`, "main"];
}

function codexLabel(x, body) {
  const kind = /"request_kind":"(\w+)"/.exec(x.headers["x-codex-turn-metadata"] ?? "")?.[1];
  const sub = x.headers["x-openai-subagent"];
  if (kind === "compaction") {
    return lastItem(body).type === "compaction_trigger"
      ? ["remote compaction v2 (provider named OpenAI): compaction_trigger item", "compaction"]
      : ["local compaction: CONTEXT CHECKPOINT COMPACTION prompt", "compaction"];
  }
  if (sub === "memory_consolidation") return ["memory consolidation (memories feature)", "background"];
  if (sub === "review") return ["codex exec review", "subagent"];
  if (sub) return [`child thread (x-openai-subagent: ${sub})`, "subagent"];
  if (hasToolResult(body)) return ["turn carrying a tool output", "main"];
  if (lastUserText(body).startsWith("<subagent_notification>")) return ["parent turn woken by the child's completion", "main"];
  return ["user turn", "main"];
}

function geminiLabel(x, body) {
  if (x.url.includes(":countTokens")) return ["countTokens", "count"];
  const sys = systemText(body).trimStart();
  const user = lastUserText(body);
  if (sys.startsWith("You are a specialized Task Routing AI")) return ["model router's complexity classifier (-m auto)", "background"];
  if (user.startsWith("Analyze *only* the content and structure of your immediately preceding response")) return ["next-speaker check", "background"];
  if (sys.startsWith("You are a specialized system component responsible for distilling chat history")) {
    return user.startsWith("Critically evaluate the <state_snapshot>")
      ? ["/compress, its self-check pass", "compaction"]
      : ["/compress, the <state_snapshot> summary", "compaction"];
  }
  if (hasToolResult(body)) return ["turn carrying a tool result", "main"];
  return ["user turn", "main"];
}

function opencodeLabel(x, body) {
  const sys = systemText(body);
  if (sys.startsWith("You are a title generator")) return ["session title", "background"];
  if (sys.startsWith("You are a context summarization agent")) return ["session compaction summary", "compaction"];
  if (x.headers["x-parent-session-id"]) return ["task tool's subagent session", "subagent"];
  if (hasToolResult(body)) return ["turn carrying a tool result", "main"];
  return ["user turn", "main"];
}

function qwenLabel(x, body) {
  const sys = systemText(body);
  const mode = x.url.startsWith("/v1/messages") ? "Anthropic mode" : "OpenAI mode";
  if (sys.startsWith("You are now acting as the managed memory extraction subagent")) return [`memory extraction after the turn (${mode})`, "background"];
  if (sys.startsWith("You are the component that summarizes a conversation")) return [`auto-compaction summary (${mode})`, "compaction"];
  if (sys.startsWith("You are a general-purpose subagent")) return [`agent tool's subagent (${mode})`, "subagent"];
  if (hasToolResult(body)) return [`turn carrying a tool result (${mode})`, "main"];
  return [`user turn (${mode})`, "main"];
}

const CLAUDE_ENV = (proxy) => ({ ANTHROPIC_BASE_URL: proxy, ANTHROPIC_API_KEY: "sk-ant-capture-key-00000000", DISABLE_TELEMETRY: "1", DISABLE_AUTOUPDATER: "1" });
const CLAUDE_MODEL = ["--model", "claude-sonnet-4-5"];

/** A launch that types `steps` into `cmd` on a pseudo-terminal (python3's pty module). */
function ttyLaunch(home, steps, cmd, argv) {
  write(path.join(home, "drive_tty.py"), TTY_DRIVER);
  return { cmd: "python3", args: [path.join(home, "drive_tty.py"), JSON.stringify(steps), cmd, ...argv] };
}

function claudeTui(home, proxy) {
  const cwd = path.join(home, "proj");
  mkdirSync(cwd, { recursive: true });
  // Onboarding, the key prompt and the folder-trust dialog answered beforehand.
  const state = {
    hasCompletedOnboarding: true,
    theme: "dark",
    customApiKeyResponses: { approved: ["capture-key-00000000"] },
    projects: { [cwd]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } },
  };
  write(path.join(home, ".claude.json"), JSON.stringify(state));
  const steps = [
    [8, "Say hello to the gateway"],
    [1, "\r"],
    [12, "/context"],
    [2, "\r"],
    [10, "/compact"],
    [2, "\r"],
    [20, ""],
  ];
  return {
    ...ttyLaunch(home, steps, bin("claude"), CLAUDE_MODEL),
    cwd,
    // Side tasks on a small-fast model of their own, so the capture shows which requests use it.
    env: { ...CLAUDE_ENV(proxy), ANTHROPIC_SMALL_FAST_MODEL: "claude-haiku-4-5" },
  };
}

const claudePrint =
  (extra, env = {}) =>
  (home, proxy) => ({ cmd: bin("claude"), args: ["-p", ...extra], cwd: home, env: { ...CLAUDE_ENV(proxy), ...env } });

function codexHome(home, proxy, { top = [], name = "Switchyard" } = {}) {
  const toml = [
    'model = "gpt-sim"',
    'model_provider = "switchyard"',
    ...top,
    "",
    "[model_providers.switchyard]",
    `name = "${name}"`,
    `base_url = "${proxy}/v1"`,
    'env_key = "SWITCHYARD_API_KEY"',
    'wire_api = "responses"',
    "",
  ];
  write(path.join(home, "config.toml"), toml.join("\n"));
  return { CODEX_HOME: home, SWITCHYARD_API_KEY: "codex-capture-key" };
}

const codexExec = (prompt, opts) => (home, proxy) => ({ cmd: bin("codex"), args: ["exec", "--skip-git-repo-check", prompt], cwd: home, env: codexHome(home, proxy, opts) });

function codexReview(home, proxy) {
  const repo = path.join(home, "repo");
  mkdirSync(repo, { recursive: true });
  write(path.join(repo, "a.txt"), "hi\n");
  const git = "git init -q && git add a.txt && git -c user.name=a -c user.email=a@b commit -qm init && echo changed >> a.txt";
  return { cmd: "bash", args: ["-c", `${git} && exec "$0" exec review --uncommitted`, bin("codex")], cwd: repo, env: codexHome(home, proxy) };
}

function codexMemories(home, proxy) {
  const env = codexHome(home, proxy, {
    top: ["", "[features]", "memories = true", "", "[memories]", "generate_memories = true", "use_memories = true", "min_rollout_idle_hours = 0"],
  });
  // Memories are made from earlier sessions: a second session starts the consolidation.
  return {
    cmd: "bash",
    args: ["-c", '"$0" exec --skip-git-repo-check "Say hello" >/dev/null 2>&1; sleep 2; "$0" exec --skip-git-repo-check "Say hello again"; sleep 10', bin("codex")],
    cwd: home,
    env,
  };
}

function geminiSetup(home, proxy, settings) {
  write(path.join(home, ".gemini/settings.json"), JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } }, ...settings }));
  return { GOOGLE_GEMINI_BASE_URL: proxy, GEMINI_API_KEY: "gemini-capture-key", GEMINI_CLI_TRUST_WORKSPACE: "true" };
}

const gemini =
  (model, prompt, settings = {}) =>
  (home, proxy) => ({ cmd: bin("gemini"), args: ["-m", model, "-p", prompt], cwd: home, env: geminiSetup(home, proxy, settings) });

/** Two turns in the interactive CLI, then its /compress command. */
function geminiCompress(home, proxy) {
  const env = geminiSetup(home, proxy, {});
  const steps = [
    [10, "Say hello"],
    [1, "\r"],
    [10, "Say hello again"],
    [1, "\r"],
    [10, "/compress"],
    [2, "\r"],
    [15, ""],
  ];
  return { ...ttyLaunch(home, steps, bin("gemini"), ["-m", "gemini-2.5-pro"]), cwd: home, env };
}

const opencode =
  (prompt, modelExtra = {}, configExtra = {}) =>
  (home, proxy) => {
    const cwd = path.join(home, "proj");
    const provider = { sy: { npm: "@ai-sdk/openai-compatible", options: { baseURL: `${proxy}/v1`, apiKey: "opencode-capture-key" }, models: { "gpt-sim": modelExtra } } };
    write(path.join(cwd, "opencode.json"), JSON.stringify({ provider, model: "sy/gpt-sim", ...configExtra }));
    const env = { OPENCODE_DISABLE_MODELS_FETCH: "1", OPENCODE_DISABLE_AUTOUPDATE: "1", OPENCODE_DISABLE_DEFAULT_PLUGINS: "1", OPENCODE_DISABLE_SHARE: "1" };
    return { cmd: bin("opencode"), args: ["run", "-m", "sy/gpt-sim", prompt], cwd, env };
  };

const qwen =
  (prompt, { anthropic = false, settings } = {}) =>
  (home, proxy) => {
    if (settings) write(path.join(home, ".qwen/settings.json"), JSON.stringify(settings));
    const env = anthropic
      ? { ANTHROPIC_BASE_URL: proxy, ANTHROPIC_API_KEY: "qwen-capture-key", ANTHROPIC_MODEL: "claude-sim" }
      : { OPENAI_BASE_URL: `${proxy}/v1`, OPENAI_API_KEY: "qwen-capture-key", OPENAI_MODEL: "qwen-sim" };
    return { cmd: bin("qwen"), args: ["-p", prompt, "--yolo", ...(anthropic ? ["--auth-type", "anthropic"] : [])], cwd: home, env };
  };

const CLIENTS = [
  {
    client: "claude-code",
    version: () => versionOf(path.join(CLIENTS_DIR, "node_modules/@anthropic-ai/claude-code")),
    label: claudeCodeLabel,
    scenarios: [
      ["print-plain", claudePrint(["Say hello", "--max-turns", "1", ...CLAUDE_MODEL], { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" })],
      ["print-tool", claudePrint(["Please use tool Glob to look around", "--tools", "Glob", "--allowedTools", "Glob", "--max-turns", "3", ...CLAUDE_MODEL])],
      ["print-agent", claudePrint(["Please use tool Agent to look around", "--max-turns", "3", ...CLAUDE_MODEL])],
      ["print-suggestion", claudePrint(["Say hello", "--output-format", "stream-json", "--verbose", "--prompt-suggestions", "--max-turns", "1", ...CLAUDE_MODEL])],
      ["print-haiku-no-tools", claudePrint(["Say hello", "--tools", "", "--max-turns", "1", "--model", "claude-haiku-4-5"])],
      ["print-no-thinking-no-tools", claudePrint(["Say hello", "--tools", "", "--max-turns", "1", ...CLAUDE_MODEL], { MAX_THINKING_TOKENS: "0" })],
      ["interactive", claudeTui, 120_000],
    ],
  },
  {
    client: "codex-cli",
    version: () => versionOf(path.join(CLIENTS_DIR, "node_modules/@openai/codex")),
    label: codexLabel,
    scenarios: [
      ["plain", codexExec("Say hello")],
      ["tool", codexExec("Please use tool exec_command to look around")],
      ["local-compaction", codexExec("Please use tool exec_command to look around", { top: ["model_auto_compact_token_limit = 2000"] })],
      ["remote-compaction", codexExec("Please use tool exec_command to look around", { top: ["model_auto_compact_token_limit = 2000"], name: "OpenAI" })],
      ["spawn-agent", codexExec("Please use tool spawn_agent to look around")],
      ["review", codexReview],
      ["memories", codexMemories],
    ],
  },
  {
    client: "gemini-cli",
    version: () => versionOf(path.join(CLIENTS_DIR, "node_modules/@google/gemini-cli")),
    label: geminiLabel,
    scenarios: [
      ["plain", gemini("gemini-2.5-pro", "Say hello")],
      ["tool-next-speaker", gemini("gemini-2.5-pro", "Please use tool list_directory to look around", { model: { skipNextSpeakerCheck: false } })],
      ["auto-router", gemini("auto", "Say hello")],
      ["interactive-compress", geminiCompress, 90_000],
    ],
  },
  {
    client: "opencode",
    version: () => versionOf(path.join(CLIENTS_DIR, "node_modules/opencode-ai")),
    label: opencodeLabel,
    scenarios: [
      ["plain", opencode("Say hello")],
      ["task-subagent", opencode("Please use tool task to look around", {}, { agent: { sim: { description: "A helper agent for captures", mode: "subagent" } } })],
      ["compaction", opencode("Please use tool glob to look around", { limit: { context: 2000, output: 100 } }), 90_000, 6],
    ],
  },
  {
    client: "qwen-code",
    version: () => versionOf(path.join(CLIENTS_DIR, "node_modules/@qwen-code/qwen-code")),
    label: qwenLabel,
    scenarios: [
      ["openai-plain", qwen("Say hello")],
      ["anthropic-plain", qwen("Say hello", { anthropic: true })],
      ["agent", qwen("Please use tool agent to look around")],
      [
        "compaction",
        qwen("Please use tool glob to look around", { settings: { context: { autoCompactThreshold: 0.5 }, model: { generationConfig: { contextWindowSize: 12000 } } } }),
      ],
    ],
  },
];

// ---------------------------------------------------------------------------------------------
// Trimming a request to its signal fields, without keys, ids or machine paths

const KEPT_HEADERS = [
  "user-agent",
  "anthropic-beta",
  "anthropic-version",
  "anthropic-dangerous-direct-browser-access",
  "x-app",
  "x-claude-code-session-id",
  "x-claude-code-agent-id",
  "originator",
  "session-id",
  "thread-id",
  "x-codex-parent-thread-id",
  "x-openai-subagent",
  "x-openai-memgen-request",
  "x-codex-beta-features",
  "x-codex-turn-metadata",
  "x-session-id",
  "x-session-affinity",
  "x-parent-session-id",
  "x-goog-api-client",
  "x-gemini-api-privileged-user-id",
];
const ID_HEADERS = new Set([
  "x-claude-code-session-id",
  "x-claude-code-agent-id",
  "session-id",
  "thread-id",
  "x-codex-parent-thread-id",
  "x-session-id",
  "x-session-affinity",
  "x-parent-session-id",
  "x-gemini-api-privileged-user-id",
]);
/** The turn-metadata fields that say what a Codex request is; the rest are ids and timings. */
const CODEX_METADATA_KEPT = ["agent_name", "request_kind", "history_initialization", "thread_source", "turn_trigger"];

function placeholders() {
  const ids = new Map();
  return (value) => {
    if (!ids.has(value)) ids.set(value, `<id-${ids.size + 1}>`);
    return ids.get(value);
  };
}

/** Machine paths and the session ids opencode writes into its task results. */
const scrub = (s) => s.replace(/\/tmp\/[^\s"'`)<>]*/g, "<tmp>").replace(/\bses_[A-Za-z0-9]+/g, "<session>");
const cut = (s) => (typeof s === "string" ? scrub(s.slice(0, TEXT_HEAD)) : s);

function trimHeaders(headers, idOf) {
  const out = {};
  for (const name of KEPT_HEADERS) {
    const value = headers[name];
    if (value === undefined) continue;
    if (ID_HEADERS.has(name)) out[name] = idOf(value);
    else if (name === "x-codex-turn-metadata") {
      const meta = JSON.parse(value);
      out[name] = JSON.stringify(Object.fromEntries(CODEX_METADATA_KEPT.filter((k) => k in meta).map((k) => [k, meta[k]])));
    } else out[name] = value;
  }
  return out;
}

function trimContent(content) {
  if (!Array.isArray(content)) return cut(content);
  const keep = content.length > 3 ? [content[0], ...content.slice(-2)] : content;
  return keep.map((b) => (typeof b.text === "string" ? { ...b, text: cut(b.text) } : b.type === "tool_result" ? { type: "tool_result", content: "…" } : { type: b.type }));
}

function trimMessage(m) {
  if (!m || typeof m !== "object") return m;
  const out = { ...(m.type ? { type: m.type } : {}), ...(m.role ? { role: m.role } : {}) };
  if ("content" in m) out.content = trimContent(m.content);
  if (Array.isArray(m.parts))
    out.parts = m.parts.map((p) =>
      typeof p.text === "string" ? { text: cut(p.text) } : p.functionResponse ? { functionResponse: { name: p.functionResponse.name } } : { functionCall: {} },
    );
  if (m.type === "function_call_output") out.output = "…";
  return out;
}

const FLAGS = ["model", "max_tokens", "stream", "temperature", "tool_choice"];
const pick = (body, keys) => Object.fromEntries(keys.filter((k) => body[k] !== undefined).map((k) => [k, body[k]]));
const toolNames = (tools) => (tools ?? []).map((t) => t.name ?? t.function?.name ?? t.type);

const TRIMMERS = {
  anthropic: (b) => ({
    ...pick(b, FLAGS),
    ...(b.thinking ? { thinking: { type: b.thinking.type } } : {}),
    ...(b.output_config ? { output_config: { format: { type: b.output_config.format?.type } } } : {}),
    ...(b.context_management ? { context_management: { edits: (b.context_management.edits ?? []).map((e) => ({ type: e.type })) } } : {}),
    ...(b.system !== undefined ? { system: typeof b.system === "string" ? cut(b.system) : b.system.slice(0, 4).map((s) => ({ type: "text", text: cut(s.text) })) } : {}),
    messages: [trimMessage(b.messages?.at(-1))],
    tools: toolNames(b.tools).map((name) => ({ name })),
  }),
  openai: (b) => ({
    ...pick(b, FLAGS),
    messages: [b.messages?.[0]?.role === "system" ? trimMessage(b.messages[0]) : null, trimMessage(b.messages?.at(-1))].filter(Boolean),
    ...(b.tools ? { tools: toolNames(b.tools).map((name) => ({ type: "function", function: { name } })) } : {}),
  }),
  "openai-responses": (b) => ({
    ...pick(b, FLAGS),
    ...(b.instructions ? { instructions: cut(b.instructions) } : {}),
    input: [b.input?.[0]?.role === "developer" ? trimMessage(b.input[0]) : null, trimMessage(b.input?.at(-1))].filter(Boolean),
    ...(b.tools ? { tools: b.tools.map((t) => ({ type: t.type, ...(t.name ? { name: t.name } : {}) })) } : {}),
  }),
  gemini: (b) => ({
    ...(b.systemInstruction ? { systemInstruction: { parts: (b.systemInstruction.parts ?? []).slice(0, 2).map((p) => ({ text: cut(p.text) })) } } : {}),
    contents: [trimMessage(b.contents?.at(-1))],
    ...(b.tools ? { tools: [{ functionDeclarations: b.tools.flatMap((t) => t.functionDeclarations ?? []).map((d) => ({ name: d.name })) }] } : {}),
    ...(b.generationConfig?.responseMimeType ? { generationConfig: { responseMimeType: b.generationConfig.responseMimeType } } : {}),
  }),
};

function formatOf(url) {
  if (url.startsWith("/v1/messages")) return "anthropic";
  if (url.startsWith("/v1/responses")) return "openai-responses";
  if (url.startsWith("/v1beta/") || url.startsWith("/v1/models/")) return "gemini";
  return "openai";
}

// ---------------------------------------------------------------------------------------------

async function captureClient(spec, sim) {
  const version = spec.version();
  const entries = [];
  const seen = new Set();
  for (const [scenario, prepare, timeoutMs = 90_000, cap = Infinity] of spec.scenarios) {
    const proxy = await startCaptureProxy(sim.url);
    proxy.state.cap = cap;
    const home = mkdtempSync(path.join(tmpdir(), `capture-${spec.client}-`));
    const launch = prepare(home, proxy.url);
    const run = await runClient({ ...launch, env: { HOME: home, ...launch.env }, timeoutMs });
    await new Promise((r) => setTimeout(r, 500));
    await proxy.close();
    rmSync(home, { recursive: true, force: true });
    if (args.raw) write(path.join(args.raw, `${spec.client}-${scenario}.json`), JSON.stringify({ code: run.code, out: run.out.slice(-4000), exchanges: proxy.exchanges }, null, 1));
    const idOf = placeholders();
    const posts = proxy.exchanges.filter((x) => x.method === "POST").slice(0, cap);
    console.log(`${spec.client} ${scenario}: exit ${run.code}, ${posts.length} requests`);
    for (const x of posts) {
      const body = JSON.parse(x.body);
      const [what, expected] = spec.label(x, body);
      if (seen.has(what)) continue;
      seen.add(what);
      const format = formatOf(x.url);
      entries.push({
        client: spec.client,
        clientVersion: version,
        scenario,
        what,
        expected,
        format,
        route: `POST ${x.url}`,
        headers: trimHeaders(x.headers, idOf),
        body: TRIMMERS[format](body),
      });
    }
  }
  return entries;
}

// A fixed reply text: the default one names the client's key, which would end up in later turns.
const sim = await startSimulator({ port: 0, label: "sim", replyText: "Hello from the simulator." });
let kept = [];
try {
  kept = only ? JSON.parse(readFileSync(OUT, "utf8")).captures.filter((c) => !only.has(c.client)) : [];
} catch {
  // no fixture yet
}
const captured = [];
for (const spec of CLIENTS) if (!only || only.has(spec.client)) captured.push(...(await captureClient(spec, sim)));
await sim.close();
const note = "Written by scripts/capture-traffic.mjs from real client runs against the simulator; bodies trimmed to the fields a traffic class is read from (R20.3).";
// One capture a line: small enough to keep in the repo, and a re-capture diffs request by request.
write(OUT, `{"note": ${JSON.stringify(note)},\n"captures": [\n${[...kept, ...captured].map((c) => JSON.stringify(c)).join(",\n")}\n]}\n`);
console.log(`${OUT}: ${kept.length + captured.length} captures`);
