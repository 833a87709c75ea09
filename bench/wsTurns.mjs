// R26.5's `wsTurns` case: one Codex-shaped conversation of N turns (a ~20 KB developer message,
// a dozen tools, each turn a user message and the assistant's answer added to the history), played
// against one Switchyard over HTTP (every turn POSTs the whole history, streamed) and over the
// Responses WebSocket (one socket; each turn a `response.create` with previous_response_id and only
// its new input), in alternating rounds on the same process and the same simulated Responses
// upstream. The figure is Switchyard's own CPU time per turn (/proc), and the turn's wall time;
// nothing passes or fails on them.
import { mkdtempSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Agent, request } from "undici";
import WebSocket from "ws";
import { round } from "./load.mjs";
import { procStats, startChild } from "./processes.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..");
const ADMIN_TOKEN = "bench";
const MODEL = "resp/m";

async function admin(base, method, urlPath, body) {
  const res = await fetch(base + urlPath, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`wsTurns: ${method} ${urlPath} -> HTTP ${res.status}: ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

/** Codex's first input item: its base instructions as a developer message (about 20 KB). */
function developerMessage() {
  let text = "You are Codex, a coding agent running in a terminal. ";
  for (let i = 1; text.length < 20_000; i++) text += `Rule ${i}: read the repository before editing, keep changes small, run the tests, and explain what you changed. `;
  return { type: "message", role: "developer", content: [{ type: "input_text", text }] };
}

const TOOLS = Array.from({ length: 12 }, (_, i) => ({
  type: "function",
  name: `tool_${i}`,
  description: `Tool number ${i}: does one thing to the workspace and returns its output.`,
  parameters: { type: "object", properties: { path: { type: "string" }, text: { type: "string" } }, required: ["path"] },
}));

const userMessage = (turn) => ({
  type: "message",
  role: "user",
  content: [{ type: "input_text", text: `Turn ${turn}: please look at file_${turn}.ts and tell me what it does.` }],
});

/** The Responses body of a turn, as Codex sends it (store false, streamed). */
const bodyOf = (input, extra = {}) => ({
  model: MODEL,
  input,
  tools: TOOLS,
  tool_choice: "auto",
  parallel_tool_calls: false,
  store: false,
  stream: true,
  prompt_cache_key: "bench-ws",
  ...extra,
});

/** The response object of an SSE stream's response.completed event. */
function completedOf(text) {
  const at = text.indexOf('"type":"response.completed"');
  if (at === -1) throw new Error(`wsTurns: no response.completed in ${text.slice(-300)}`);
  const start = text.lastIndexOf("data:", at);
  const end = text.indexOf("\n", at);
  return JSON.parse(text.slice(start + 5, end === -1 ? undefined : end).trim()).response;
}

/** One conversation over HTTP: every turn sends the whole history. */
async function httpConversation(base, dispatcher, turns) {
  let history = [developerMessage()];
  const ms = [];
  for (let turn = 1; turn <= turns; turn++) {
    const input = [...history, userMessage(turn)];
    const t0 = performance.now();
    const res = await request(`${base}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", "session-id": "bench-ws-http", originator: "codex_exec" },
      body: JSON.stringify(bodyOf(input)),
      dispatcher,
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`wsTurns: HTTP turn ${turn} -> ${res.statusCode}: ${text.slice(0, 300)}`);
    const response = completedOf(text);
    ms.push(performance.now() - t0);
    history = [...input, ...response.output];
  }
  return ms;
}

/** One conversation over one socket: each turn names the previous response and sends only its new input. */
async function socketConversation(base, turns) {
  const ws = new WebSocket(`${base.replace(/^http/, "ws")}/v1/responses`, { headers: { "session-id": "bench-ws-socket", originator: "codex_exec" }, perMessageDeflate: true });
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  let waiting = null;
  ws.on("message", (data) => {
    const text = Buffer.isBuffer(data) ? data.toString("utf8") : Buffer.concat(data).toString("utf8");
    // Only the final event is parsed: the client's cost is not the figure.
    if (text.startsWith('{"type":"response.completed"') || text.startsWith('{"type":"error"') || text.startsWith('{"type":"response.failed"')) waiting?.(text);
  });
  const ms = [];
  let previous = null;
  try {
    for (let turn = 1; turn <= turns; turn++) {
      const input = previous === null ? [developerMessage(), userMessage(turn)] : [userMessage(turn)];
      const frame = { type: "response.create", ...bodyOf(input, previous === null ? {} : { previous_response_id: previous }) };
      delete frame.stream;
      const t0 = performance.now();
      const done = new Promise((resolve) => (waiting = resolve));
      ws.send(JSON.stringify(frame));
      const text = await done;
      const event = JSON.parse(text);
      if (event.type !== "response.completed") throw new Error(`wsTurns: socket turn ${turn} -> ${text.slice(0, 300)}`);
      ms.push(performance.now() - t0);
      previous = event.response.id;
    }
  } finally {
    ws.close();
  }
  return ms;
}

async function startSwitchyard(dist, track) {
  const home = mkdtempSync(path.join(tmpdir(), "switchyard-bench-ws-"));
  track.onDir?.(home);
  // BENCH_SY_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=D") as for the load cases.
  const nodeArgs = (process.env.BENCH_SY_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const child = startChild("switchyard (wsTurns)", process.execPath, [...nodeArgs, path.join(dist, "main", "cli.js"), "serve", "--port", "0", "--home", home], {
    cwd: root,
    // BENCH_WS_DEFLATE=1: the server negotiates permessage-deflate (the client always offers it, as Codex does).
    env: { SWITCHYARD_ADMIN_TOKEN: ADMIN_TOKEN, SWITCHYARD_WS_DEFLATE: process.env.BENCH_WS_DEFLATE === "1" ? "1" : "0" },
    ready: /^Switchyard listening on (http:\/\/127\.0\.0\.1:\d+)/,
  });
  track.onChild?.(child.handle);
  const match = await child.started;
  return { base: match[1], handle: child.handle, home };
}

const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : null;
};

/**
 * `dist` is the built tree (dist/). `rounds` conversations each way, alternating which goes first, after
 * one warm-up conversation each way that is not counted.
 */
export async function measureWsTurns(dist, { turns = 20, rounds = 3, track = {} } = {}) {
  for (const p of [path.join(dist, "main", "simulator", "index.js"), path.join(dist, "main", "cli.js")])
    if (!existsSync(p)) throw new Error(`${p} is missing: build first (node scripts/build.mjs)`);
  const { startSimulator } = await import(pathToFileURL(path.join(dist, "main", "simulator", "index.js")).href);
  const sim = await startSimulator({ port: 0, recordLimit: 0 });
  const dispatcher = new Agent({ connections: 4, keepAliveTimeout: 10_000 });
  let sy = null;
  try {
    sy = await startSwitchyard(dist, track);
    await admin(sy.base, "POST", "/api/providers", { id: "resp", format: "openai-responses", baseUrl: `${sim.url}/v1`, category: "apikey", models: ["m"] });
    await admin(sy.base, "POST", "/api/connections", { provider: "resp", name: "key", apiKey: "bench-key" });
    const pid = sy.handle.pid;
    const cpu = { http: [], websocket: [] };
    const wall = { http: [], websocket: [] };
    const play = { http: () => httpConversation(sy.base, dispatcher, turns), websocket: () => socketConversation(sy.base, turns) };
    // BENCH_WS_ONLY=http|websocket plays one way only (to profile it alone).
    const ways = ["http", "websocket"].filter((w) => !process.env.BENCH_WS_ONLY || process.env.BENCH_WS_ONLY === w);
    for (const way of ways) await play[way]();
    for (let round_ = 0; round_ < rounds; round_++) {
      // Each round the other way goes first, so neither always runs on a warmer process.
      for (const way of round_ % 2 ? [...ways].reverse() : ways) {
        const before = procStats(pid).cpuMs;
        const ms = await play[way]();
        cpu[way].push((procStats(pid).cpuMs - before) / turns);
        wall[way].push(sum(ms) / turns);
      }
    }
    if (sy.handle.exited) throw new Error(`switchyard (wsTurns) exited during the run\n${sy.handle.tail()}`);
    const figure = (way) => ({
      // All rounds' CPU over all their turns: /proc counts in 10 ms ticks, which one round's sum would round off.
      cpuMsPerTurn: round(sum(cpu[way]) / cpu[way].length, 3),
      cpuMsPerTurnRounds: cpu[way].map((v) => round(v, 3)),
      wallMsPerTurn: round(median(wall[way]), 2),
    });
    const http = figure("http");
    const websocket = figure("websocket");
    return { turns, rounds, http, websocket, cpuRatio: round(websocket.cpuMsPerTurn / http.cpuMsPerTurn, 3) };
  } finally {
    await dispatcher.close();
    if (sy) {
      await sy.handle.stop();
      rmSync(sy.home, { recursive: true, force: true });
    }
    await sim.close();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const figures = await measureWsTurns(path.join(root, "dist"), { turns: Number(process.env.BENCH_WS_TURNS) || 20, rounds: Number(process.env.BENCH_WS_ROUNDS) || 12 });
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
}
