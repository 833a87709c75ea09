// `npm run bench`: Switchyard against bare Node proxies, in the same run, on the same simulated
// upstream, reported as ratios to the node:http floor (DESIGN.md: performance claims live here).
// It never passes or fails on wall time; it exits non-zero only when something failed to run.
import { mkdtempSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { request } from "undici";
import { agentLanes, anthropicMessages, geminiContents, openaiChat, openaiResponses, replyText } from "./payloads.mjs";
import { createTargetClient, probe, round } from "./load.mjs";
import { loadRun, pickLoadGenerator, writeWrkScript } from "./loadgen.mjs";
import { procStats, startChild } from "./processes.mjs";
import { measureSelection } from "./selection.mjs";
import { measureAdmission } from "./admission.mjs";
import { measureUsage } from "./usage.mjs";
import { measureStreams, measureManyStreams } from "./streams.mjs";
import { measureReplay } from "./replay.mjs";
import { measureWsTurns } from "./wsTurns.mjs";
import { startRedis } from "./redis.mjs";
import { goalsOf, printReport } from "./report.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..");
const ADMIN_TOKEN = "bench";
const COMBO = "bench-combo";
/** The lines that are a Switchyard (the others are bare proxies). */
const SWITCHYARD_LINES = new Set(["switchyard", "compare", "redis"]);

class ConfigError extends Error {}

function intEnv(name, fallback, min = 0) {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new ConfigError(`${name} must be an integer >= ${min} (got "${raw}")`);
  return n;
}

function listEnv(name, fallback) {
  const raw = process.env[name] || fallback;
  const list = raw.split(",").map((s) => Number(s.trim()));
  if (list.some((n) => !Number.isInteger(n) || n < 1)) throw new ConfigError(`${name} must be a comma-separated list of positive integers (got "${raw}")`);
  return list;
}

const okJson = (r) => {
  const content = JSON.parse(r.text)?.choices?.[0]?.message?.content;
  if (typeof content !== "string" || !content) throw new Error("no choices[0].message.content");
};
const okSse = (r) => {
  if (!r.contentType.includes("text/event-stream")) throw new Error(`content-type ${r.contentType}`);
  if (!r.text.includes('"delta"') || !r.text.includes("data: [DONE]")) throw new Error("no delta frames or no [DONE]");
};
const okResponsesJson = (r) => {
  const output = JSON.parse(r.text)?.output;
  const message = Array.isArray(output) ? output.find((item) => item?.type === "message") : undefined;
  const text = message?.content?.find?.((part) => part?.type === "output_text")?.text;
  if (typeof text !== "string" || !text) throw new Error("no output message with output_text");
};
const okGeminiSse = (r) => {
  if (!r.contentType.includes("text/event-stream")) throw new Error(`content-type ${r.contentType}`);
  const chunks = r.text
    .split(/\r?\n/)
    .filter((l) => l.startsWith("data: "))
    .map((l) => JSON.parse(l.slice(6)));
  if (!chunks.some((c) => c?.candidates?.[0]?.content?.parts?.some?.((p) => typeof p?.text === "string" && p.text))) throw new Error("no candidates chunk with text");
  const last = chunks[chunks.length - 1];
  if (!last?.candidates?.[0]?.finishReason || !last.usageMetadata) throw new Error("the last chunk has no finishReason or no usageMetadata");
};
const okResponsesSse = (r) => {
  if (!r.contentType.includes("text/event-stream")) throw new Error(`content-type ${r.contentType}`);
  if (!r.text.includes("response.output_text.delta") || !r.text.includes("response.completed")) throw new Error("no response.output_text.delta or no response.completed");
};
const okAnthropicJson = (r) => {
  const text = JSON.parse(r.text)?.content?.find?.((block) => block?.type === "text")?.text;
  if (typeof text !== "string" || !text) throw new Error("no text content block");
};
const okAnthropicSse = (r) => {
  if (!r.text.includes("content_block_delta") || !r.text.includes("message_stop")) throw new Error("no content_block_delta or no message_stop");
};
const okGeminiJson = (r) => {
  const body = JSON.parse(r.text);
  if (!body?.candidates?.[0]?.content?.parts?.some?.((p) => typeof p?.text === "string" && p.text)) throw new Error("no candidate with text");
  if (!body.usageMetadata) throw new Error("no usageMetadata");
};

/**
 * Issue 33: the four client formats of one Switchyard, each a lane to the same OpenAI-format
 * upstream (`sim`) with the same agent-sized conversation (payloads.mjs `agentLanes`). A client's
 * wire format must not cost it speed: each lane's throughput is compared with the chat lane's.
 */
const LANES = {
  chat: { path: () => "/v1/chat/completions", check: (stream) => (stream ? okSse : okJson), base: true },
  messages: { path: () => "/v1/messages", headers: { "anthropic-version": "2023-06-01" }, check: (stream) => (stream ? okAnthropicSse : okAnthropicJson) },
  responses: { path: () => "/v1/responses", check: (stream) => (stream ? okResponsesSse : okResponsesJson) },
  gemini: {
    path: (stream) => (stream ? "/v1beta/models/sim%2Fm:streamGenerateContent?alt=sse" : "/v1beta/models/sim%2Fm:generateContent"),
    check: (stream) => (stream ? okGeminiSse : okGeminiJson),
  },
};

/**
 * Issue 34 (R21.1): the Anthropic lane same-format to an Anthropic upstream, once on a held key and
 * once with the client's own login on a client-login connection: a login must cost nothing measurable.
 */
const LOGIN_LANES = {
  held: { path: () => "/v1/messages", model: "simA/m", headers: { "anthropic-version": "2023-06-01" }, check: (stream) => (stream ? okAnthropicSse : okAnthropicJson), base: true },
  login: {
    path: () => "/v1/messages",
    model: "simL/m",
    headers: { "anthropic-version": "2023-06-01", "anthropic-beta": "oauth-2025-04-20", authorization: "Bearer sk-ant-oat01-bench-login" },
    check: (stream) => (stream ? okAnthropicSse : okAnthropicJson),
  },
};

/** The lanes a scenario measures: the four client formats, or the Anthropic lane held against login. */
const laneSet = (scenario) => (scenario.lanes.set === "login" ? LOGIN_LANES : LANES);

/** Load scenarios: one request shape, measured at each of its concurrencies. */
const SCENARIOS = {
  json: { title: "JSON chat", path: "/v1/chat/completions", body: () => openaiChat({ model: "sim/m", stream: false }), check: okJson },
  sse: { title: "SSE chat", path: "/v1/chat/completions", body: () => openaiChat({ model: "sim/m", stream: true }), check: okSse },
  // A Responses client to a Responses upstream (simR): the pass-through path, compared with chat's.
  responses: { title: "JSON Responses", path: "/v1/responses", body: () => openaiResponses({ model: "simR/m", stream: false }), check: okResponsesJson },
  responsesSse: { title: "SSE Responses", path: "/v1/responses", body: () => openaiResponses({ model: "simR/m", stream: true }), check: okResponsesSse },
  // A Gemini client to a Gemini upstream (simG), the model in the path. The bare lines forward the
  // path unchanged, so theirs names the simulator's own model (`m`, the name Switchyard sends it).
  gemini: {
    title: "SSE Gemini",
    path: "/v1beta/models/m:streamGenerateContent?alt=sse",
    switchyardPath: "/v1beta/models/simG%2Fm:streamGenerateContent?alt=sse",
    body: () => geminiContents(),
    check: okGeminiSse,
  },
  large: {
    title: "JSON chat, large body",
    path: "/v1/chat/completions",
    body: (cfg) => openaiChat({ model: "sim/m", stream: false, largeBytes: cfg.largeKb * 1024 }),
    check: okJson,
  },
  claude: {
    title: "Anthropic SSE, large body",
    path: "/v1/messages",
    body: (cfg) => anthropicMessages({ model: "simA/m", stream: true, largeBytes: cfg.largeKb * 1024 }),
    extraHeaders: { "anthropic-version": "2023-06-01", "x-api-key": "client-key" },
    check: (r) => {
      if (!r.text.includes("content_block_delta") || !r.text.includes("message_stop")) throw new Error("no content_block_delta or no message_stop");
    },
  },
  // Issue 33: the floor line sends the chat lane's body; every Switchyard sends each lane's.
  lanes: {
    title: "JSON, agent-sized, each client format to one OpenAI upstream",
    path: "/v1/chat/completions",
    body: () => agentLanes({ model: "sim/m", stream: false }).chat,
    check: okJson,
    lanes: { stream: false },
  },
  lanesSse: {
    title: "SSE, agent-sized, each client format to one OpenAI upstream",
    path: "/v1/chat/completions",
    body: () => agentLanes({ model: "sim/m", stream: true }).chat,
    check: okSse,
    lanes: { stream: true },
  },
  loginSse: {
    title: "SSE, agent-sized, Anthropic to Anthropic: a held key, then the client's own login",
    path: "/v1/messages",
    body: () => agentLanes({ model: "simA/m", stream: true }).messages,
    extraHeaders: { "anthropic-version": "2023-06-01" },
    check: okAnthropicSse,
    lanes: { stream: true, set: "login" },
  },
  // Routing, admission and affinity on: a combo of three gated connections, a queue, session pins.
  features: {
    title: "JSON chat via a combo of 3, gates, queue, affinity",
    path: "/v1/chat/completions",
    body: () => openaiChat({ model: "sim/m", stream: false }),
    switchyardBody: () => openaiChat({ model: COMBO, stream: false }),
    sessions: 64,
    onlySwitchyard: true,
    check: okJson,
  },
};
const EXTRA = ["stream", "streams500", "selection", "admission", "usage", "replay", "wsTurns"];

function readConfig() {
  const names = [
    ...new Set(
      (
        process.env.BENCH_SCENARIOS ??
        "json,sse,responses,responsesSse,gemini,large,claude,lanes,lanesSse,loginSse,features,stream,streams500,selection,admission,usage,replay,wsTurns"
      )
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  const known = [...Object.keys(SCENARIOS), ...EXTRA];
  for (const n of names) if (!known.includes(n)) throw new ConfigError(`BENCH_SCENARIOS: unknown scenario "${n}" (known: ${known.join(", ")})`);
  const json = listEnv("BENCH_CONCURRENCY", "1,32,128,256");
  const other = listEnv("BENCH_STREAM_CONCURRENCY", "32");
  return {
    scenarios: names.filter((n) => SCENARIOS[n]),
    concurrencies: {
      json,
      sse: other,
      responses: other,
      responsesSse: other,
      gemini: other,
      large: other,
      claude: other,
      lanes: other,
      lanesSse: other,
      loginSse: other,
      features: listEnv("BENCH_FEATURES_CONCURRENCY", "32,256"),
    },
    durationS: intEnv("BENCH_DURATION_S", 3, 1),
    warmupS: intEnv("BENCH_WARMUP_S", 2, 0),
    rounds: intEnv("BENCH_ROUNDS", 3, 1),
    largeKb: intEnv("BENCH_LARGE_KB", 76, 1),
    replyWords: intEnv("BENCH_REPLY_WORDS", 50, 0),
    timeoutS: intEnv("BENCH_TIMEOUT_S", 900, 10),
    // After everything, the lines sit idle this long and their RSS is read again ("settled"): what a
    // quiet tray app keeps once Switchyard's memory reducer had its chance (0 skips it).
    settleS: intEnv("BENCH_SETTLE_S", 30, 0),
    stream: names.includes("stream") ? { requests: intEnv("BENCH_STREAM_REQUESTS", 300, 1), rounds: intEnv("BENCH_ROUNDS", 3, 1) } : null,
    streams500: names.includes("streams500") ? { streams: intEnv("BENCH_MANY_STREAMS", 500, 1) } : null,
    selection: names.includes("selection")
      ? {
          connectionCounts: [1, 50, 1000],
          strategy: process.env.BENCH_SELECTION_STRATEGY || "p2c",
          iterations: intEnv("BENCH_SELECTION_ITERATIONS", 20_000, 1),
          batches: intEnv("BENCH_SELECTION_BATCHES", 7, 1),
        }
      : null,
    admission: names.includes("admission") ? { samples: intEnv("BENCH_ADMISSION_SAMPLES", 20_000, 1), rounds: intEnv("BENCH_ROUNDS", 3, 1) } : null,
    usage: names.includes("usage") ? { rows: intEnv("BENCH_USAGE_ROWS", 1_000_000, 1), queries: intEnv("BENCH_USAGE_QUERIES", 21, 2) } : null,
    // The 429 comes at turn 10, so a replay has at least that many turns.
    replay: names.includes("replay") ? { turns: intEnv("BENCH_REPLAY_TURNS", 30, 10) } : null,
    // R26.5: a Codex conversation over HTTP and over the Responses WebSocket, CPU per turn.
    wsTurns: names.includes("wsTurns") ? { turns: intEnv("BENCH_WS_TURNS", 20, 2), rounds: intEnv("BENCH_WS_ROUNDS", 12, 1) } : null,
    skipBuild: process.env.BENCH_SKIP_BUILD === "1",
    syNodeArgs: process.env.BENCH_SY_NODE_ARGS ? process.env.BENCH_SY_NODE_ARGS.split(" ").filter(Boolean) : [],
    dist: process.env.BENCH_DIST ? path.resolve(process.env.BENCH_DIST) : path.join(root, "dist"),
    // Another build of Switchyard measured as one more line of every case (old against new, same run).
    compareDist: process.env.BENCH_COMPARE_DIST ? path.resolve(process.env.BENCH_COMPARE_DIST) : null,
  };
}

// ---- what this process started, so it can end exactly that -------------------------------

const started = { children: [], simulator: null, pools: [], dirs: [], stopping: false };

async function cleanup() {
  await Promise.allSettled(started.pools.map((p) => p.close()));
  await Promise.allSettled(started.children.map((c) => c.stop()));
  if (started.simulator) await started.simulator.close().catch(() => {});
  for (const d of started.dirs) rmSync(d, { recursive: true, force: true });
  Object.assign(started, { children: [], simulator: null, pools: [], dirs: [] });
}

process.on("exit", () => {
  for (const c of started.children) c.killNow();
  for (const d of started.dirs) rmSync(d, { recursive: true, force: true });
});
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.once(sig, () => {
    started.stopping = true;
    process.stderr.write(`\nbench: ${sig}, stopping what it started\n`);
    // Exits whatever cleanup ends with: a rejection would only be reported after the exit.
    void cleanup().finally(() => process.exit(130));
  });
}

// ---- setup ------------------------------------------------------------------------------------

async function admin(base, method, urlPath, body) {
  const res = await request(base + urlPath, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${urlPath} -> HTTP ${res.statusCode}: ${text.slice(0, 500)}`);
  return text ? JSON.parse(text) : null;
}

/** Providers, connections and, for `features`, the combo, gates, queue and affinity (API.md). */
async function configureSwitchyard(base, sim) {
  await admin(base, "POST", "/api/providers", { id: "sim", format: "openai", baseUrl: `${sim.url}/v1`, category: "apikey", models: ["m"] });
  await admin(base, "POST", "/api/connections", { provider: "sim", apiKey: "k" });
  await admin(base, "POST", "/api/providers", { id: "simA", format: "anthropic", baseUrl: sim.url, category: "apikey", models: ["m"] });
  await admin(base, "POST", "/api/connections", { provider: "simA", apiKey: "k" });
  // R21.1: the same upstream through a client-login connection (each request brings its login).
  await admin(base, "POST", "/api/providers", { id: "simL", format: "anthropic", baseUrl: sim.url, category: "oauth", models: ["m"] });
  await admin(base, "POST", "/api/connections", { provider: "simL", name: "bench login", credential: "client" });
  // Switchyard appends /responses to a Responses baseUrl, as it appends /chat/completions for sim.
  await admin(base, "POST", "/api/providers", { id: "simR", format: "openai-responses", baseUrl: `${sim.url}/v1`, category: "apikey", models: ["m"] });
  await admin(base, "POST", "/api/connections", { provider: "simR", apiKey: "k" });
  // Gemini's baseUrl goes up to the version; Switchyard appends /models/<m>:streamGenerateContent.
  await admin(base, "POST", "/api/providers", { id: "simG", format: "gemini", baseUrl: `${sim.url}/v1beta`, category: "apikey", models: ["m"] });
  await admin(base, "POST", "/api/connections", { provider: "simG", apiKey: "k" });
  const targets = [];
  for (const i of [1, 2, 3]) {
    await admin(base, "POST", "/api/providers", { id: `simF${i}`, format: "openai", baseUrl: `${sim.url}/v1`, category: "apikey", models: ["m"] });
    const c = await admin(base, "POST", "/api/connections", { provider: `simF${i}`, apiKey: "k", maxConcurrent: 64 });
    targets.push({ model: `simF${i}/m`, connectionId: c.id, weight: i });
  }
  await admin(base, "POST", "/api/combos", { name: COMBO, strategy: "p2c", targets });
  await admin(base, "PATCH", "/api/resilience", { requestQueue: { maxQueueDepth: 1000, maxWaitMs: 30_000 } });
  await admin(base, "PATCH", "/api/settings", { sessionAffinityTtlMs: 3_600_000 });
}

async function startEverything(cfg) {
  const simPath = path.join(cfg.dist, "main", "simulator", "index.js");
  const cliPath = path.join(cfg.dist, "main", "cli.js");
  for (const p of [simPath, cliPath]) if (!existsSync(p)) throw new Error(`${p} is missing: build first (node scripts/build.mjs)`);
  const { startSimulator } = await import(pathToFileURL(simPath).href);
  const simOptions = { port: 0, recordLimit: 0 };
  if (cfg.replyWords > 0) simOptions.replyText = replyText(cfg.replyWords);
  started.simulator = await startSimulator(simOptions);
  const sim = started.simulator;

  const home = mkdtempSync(path.join(tmpdir(), "switchyard-bench-"));
  started.dirs.push(home);
  const specs = [
    ["floor", "bare http", [path.join(here, "bareHttp.mjs"), sim.url], {}, /^bare http listening on (http:\/\/127\.0\.0\.1:\d+)/],
    ["undici", "bare undici", [path.join(here, "bareProxy.mjs"), sim.url], {}, /^bare proxy listening on (http:\/\/127\.0\.0\.1:\d+)/],
    [
      "switchyard",
      "switchyard",
      [...cfg.syNodeArgs, cliPath, "serve", "--port", "0", "--home", home],
      { SWITCHYARD_ADMIN_TOKEN: ADMIN_TOKEN },
      /^Switchyard listening on (http:\/\/127\.0\.0\.1:\d+)/,
    ],
  ];
  // The features case also runs with Redis on (issue 25), when a redis-server can be had.
  const redisUrl = cfg.scenarios.includes("features") ? await startRedis(started.children) : null;
  if (redisUrl) {
    const redisHome = mkdtempSync(path.join(tmpdir(), "switchyard-bench-"));
    started.dirs.push(redisHome);
    specs.push([
      "redis",
      "switchyard (Redis)",
      [...cfg.syNodeArgs, cliPath, "serve", "--port", "0", "--home", redisHome],
      { SWITCHYARD_ADMIN_TOKEN: ADMIN_TOKEN, SWITCHYARD_REDIS_URL: redisUrl },
      /^Switchyard listening on (http:\/\/127\.0\.0\.1:\d+)/,
    ]);
  } else if (cfg.scenarios.includes("features")) process.stdout.write("bench: no redis-server, so no `features redis` line\n");
  if (cfg.compareDist) {
    const compareHome = mkdtempSync(path.join(tmpdir(), "switchyard-bench-"));
    started.dirs.push(compareHome);
    specs.push([
      "compare",
      "switchyard (compare)",
      [path.join(cfg.compareDist, "main", "cli.js"), "serve", "--port", "0", "--home", compareHome],
      { SWITCHYARD_ADMIN_TOKEN: ADMIN_TOKEN },
      /^Switchyard listening on (http:\/\/127\.0\.0\.1:\d+)/,
    ]);
  }
  const procs = specs.map(([key, name, args, env, ready]) => {
    const child = startChild(name, process.execPath, args, { cwd: root, env, ready });
    started.children.push(child.handle);
    return { key, child };
  });
  const matches = await Promise.all(procs.map((p) => p.child.started));
  const targets = {};
  procs.forEach((p, i) => (targets[p.key] = { name: p.key, url: matches[i][1], proc: p.child.handle }));
  await configureSwitchyard(targets.switchyard.url, sim);
  if (targets.compare) await configureSwitchyard(targets.compare.url, sim);
  if (targets.redis) await configureSwitchyard(targets.redis.url, sim);
  return { sim, targets };
}

// ---- load cases --------------------------------------------------------------------------------

function requestFor(scenario, cfg, line) {
  const sy = SWITCHYARD_LINES.has(line);
  const body = JSON.stringify(sy && scenario.switchyardBody ? scenario.switchyardBody(cfg) : scenario.body(cfg));
  // The bare proxies talk to the simulator as it is; the same key reaches it either way.
  const auth = sy ? {} : { authorization: "Bearer k" };
  return {
    path: (sy && scenario.switchyardPath) || scenario.path,
    body,
    headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)), ...auth, ...(scenario.extraHeaders ?? {}) },
  };
}

/** One lane's request (issue 33): its format's body, path and headers. */
function laneRequest(lanes, lane, stream) {
  const spec = lanes[lane];
  const body = JSON.stringify(spec.model ? agentLanes({ model: spec.model, stream }).messages : agentLanes({ model: "sim/m", stream })[lane]);
  return {
    path: spec.path(stream),
    body,
    headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)), ...(spec.headers ?? {}) },
  };
}

/** The lines of a lanes scenario: the floor, then each lane of each Switchyard build (`compare chat`, …). */
function laneLines(scenario, targets) {
  const lines = [{ key: "floor", target: "floor", req: null }];
  for (const build of targets.compare ? ["switchyard", "compare"] : ["switchyard"]) {
    const lanes = laneSet(scenario);
    for (const lane of Object.keys(lanes)) {
      lines.push({
        key: build === "switchyard" ? lane : `${build} ${lane}`,
        target: build,
        req: laneRequest(lanes, lane, scenario.lanes.stream),
        check: lanes[lane].check(scenario.lanes.stream),
      });
    }
  }
  return lines;
}

/** The lines of a scenario (floor first), each checked once for a correct answer. */
async function prepareScenario(name, cfg, targets, scriptDir) {
  const scenario = SCENARIOS[name];
  if (scenario.lanes) return prepareLines(name, scenario, cfg, targets, scriptDir, laneLines(scenario, targets));
  const keys = scenario.onlySwitchyard ? ["floor", "switchyard"] : ["floor", "undici", "switchyard"];
  if (targets.compare) keys.push("compare");
  if (targets.redis && name === "features") keys.push("redis");
  const specs = keys.map((key) => ({ key, target: key, req: null }));
  return prepareLines(name, scenario, cfg, targets, scriptDir, specs);
}

/**
 * Each line's request (its own, or the scenario's for its target), checked once. A line is one
 * target (`floor`, `switchyard`, …), or for lanes one client format of a Switchyard target.
 */
async function prepareLines(name, scenario, cfg, targets, scriptDir, specs) {
  const lines = [];
  for (const { key: lineKey, target: key, req: ownReq, check } of specs) {
    const req = ownReq ?? requestFor(scenario, cfg, key);
    const pool = createTargetClient(targets[key].url, 1);
    started.pools.push(pool);
    const r = await probe(pool, { ...req, headers: { ...req.headers, ...(scenario.sessions ? { "x-session-id": "probe" } : {}) } }, 30_000);
    if (r.status !== 200) throw new Error(`${name} via ${lineKey}: HTTP ${r.status}: ${r.text.slice(0, 500)}`);
    try {
      (check ?? scenario.check)(r);
    } catch (err) {
      throw new Error(`${name} via ${lineKey}: unexpected response (${err.message}): ${r.text.slice(0, 500)}`);
    }
    req.sessions = SWITCHYARD_LINES.has(key) ? (scenario.sessions ?? 0) : 0;
    req.script = writeWrkScript(scriptDir, `${name}-${lineKey.replace(/ /g, "-")}`, req, req.sessions);
    const featureLine = { switchyard: "features", compare: "compare features", redis: "features redis" }[key];
    lines.push({ key: name === "features" && featureLine ? featureLine : lineKey, target: targets[key], req });
  }
  return lines;
}

function assertAlive(targets) {
  for (const t of Object.values(targets)) {
    if (t.proc.exited) throw new Error(`${t.proc.name} exited during the run (code ${t.proc.exited.code}, signal ${t.proc.exited.signal})\n${t.proc.tail()}`);
  }
}

/**
 * One scenario at one concurrency: every line in each round, the order reversed every other round.
 * Ratios pair each line's run with the floor's run of the same round and take the median over the
 * rounds: on a shared machine one slow phase can halve a single run, and a pooled ratio would carry
 * it whole into the result, while the median of paired ratios lets one bad round go.
 */
async function measureCase(gen, lines, concurrency, cfg, targets) {
  if (cfg.warmupS > 0) for (const l of lines) await loadRun(gen, l.target.url, l.req, { connections: concurrency, seconds: cfg.warmupS });
  const acc = Object.fromEntries(lines.map((l) => [l.key, { runs: [], cpuMs: 0 }]));
  for (let i = 0; i < cfg.rounds; i++) {
    for (const l of i % 2 === 0 ? lines : [...lines].reverse()) {
      const before = procStats(l.target.proc.pid).cpuMs;
      const r = await loadRun(gen, l.target.url, l.req, { connections: concurrency, seconds: cfg.durationS });
      r.cpuMs = procStats(l.target.proc.pid).cpuMs - before;
      acc[l.key].cpuMs += r.cpuMs;
      acc[l.key].runs.push(r);
    }
  }
  assertAlive(targets);
  const out = {};
  for (const [key, { runs, cpuMs }] of Object.entries(acc)) {
    const requests = runs.reduce((s, r) => s + r.requests, 0);
    const seconds = runs.reduce((s, r) => s + r.seconds, 0);
    const mean = (f) => round(runs.reduce((s, r) => s + r[f], 0) / runs.length, 3);
    out[key] = {
      requests,
      rps: round(requests / seconds, 1),
      p50: mean("p50"),
      p90: mean("p90"),
      p99: mean("p99"),
      cpuMsPerRequest: round(cpuMs / Math.max(1, requests), 4),
      errors: runs.reduce((s, r) => s + r.errors, 0),
    };
  }
  const floorRuns = acc.floor.runs;
  const floor = out.floor;
  for (const [key, s] of Object.entries(out)) {
    const paired = acc[key].runs.map((r, i) => {
      const f = floorRuns[i];
      return {
        throughput: ratio(r.requests / r.seconds, f.requests / f.seconds),
        p50: ratio(r.p50, f.p50),
        p99: ratio(r.p99, f.p99),
        cpuPerRequest: ratio(r.cpuMs / Math.max(1, r.requests), f.cpuMs / Math.max(1, f.requests)),
      };
    });
    s.ratio = Object.fromEntries(["throughput", "p50", "p99", "cpuPerRequest"].map((k) => [k, median(paired.map((p) => p[k]))]));
    s.roundRatios = paired.map((p) => p.throughput);
    s.roundCpuMsPerRequest = acc[key].runs.map((r) => round(r.cpuMs / Math.max(1, r.requests), 4));
    s.addedMs = { p50: round(s.p50 - floor.p50, 3), p99: round(s.p99 - floor.p99, 3) };
  }
  return out;
}

/**
 * `features redis` against `features`: each round's throughput ratio of the two (their floor run
 * cancels out), the median over the rounds, as for every ratio to the floor.
 */
function addRedisRatio(lines) {
  const on = lines["features redis"];
  const off = lines.features;
  if (on && off) on.ratio.vsRedisOff = median(on.roundRatios.map((r, i) => ratio(r, off.roundRatios[i])));
}

/**
 * Issue 33: each lane against the chat lane of the same build, and the new build's lanes against the
 * compare build's (each round's ratio of the two, whose floor run cancels out; the median over the
 * rounds, as for every ratio to the floor).
 */
function addLaneRatios(lines, lanes) {
  const baseLane = Object.keys(lanes).find((lane) => lanes[lane].base);
  const vs = (a, b) => (a && b ? median(a.roundRatios.map((r, i) => ratio(r, b.roundRatios[i]))) : null);
  // The CPU of one request of `b` over one of `a`, round by round: less moved by other work on the machine than throughput.
  const cpuVs = (a, b) => (a && b ? median(a.roundCpuMsPerRequest.map((cpu, i) => ratio(b.roundCpuMsPerRequest[i], cpu))) : null);
  const both = (line, chat) => {
    line.ratio.vsChat = vs(line, chat);
    line.ratio.cpuVsChat = cpuVs(line, chat);
  };
  for (const lane of Object.keys(lanes)) {
    if (lines[lane]) both(lines[lane], lines[baseLane]);
    const old = lines[`compare ${lane}`];
    if (old) {
      both(old, lines[`compare ${baseLane}`]);
      lines[lane].ratio.vsCompare = vs(lines[lane], old);
      lines[lane].ratio.cpuVsCompare = cpuVs(lines[lane], old);
    }
  }
}

/** The middle value (the mean of the two middle ones for an even count); null when any is null. */
function median(values) {
  if (values.some((v) => v === null)) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return round(sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2, 3);
}

const mb = (kb) => round(kb / 1024, 1);
const ratio = (a, b) => (a === null || b === null || !b ? null : round(a / b, 3));

function rssOf(targets) {
  return Object.fromEntries(Object.keys(targets).map((k) => [k, mb(procStats(targets[k].proc.pid).rssKb)]));
}

async function measureHttp(cfg, results) {
  const gen = pickLoadGenerator(root);
  results.loadGenerator = gen.name;
  const { targets } = await startEverything(cfg);
  const scriptDir = mkdtempSync(path.join(tmpdir(), "switchyard-bench-wrk-"));
  started.dirs.push(scriptDir);
  results.rssMb = { idle: rssOf(targets) };
  for (const name of cfg.scenarios) {
    const lines = await prepareScenario(name, cfg, targets, scriptDir);
    for (const c of cfg.concurrencies[name]) {
      process.stdout.write(`bench: ${name} at concurrency ${c}…\n`);
      const measured = await measureCase(gen, lines, c, cfg, targets);
      addRedisRatio(measured);
      if (SCENARIOS[name].lanes) addLaneRatios(measured, laneSet(SCENARIOS[name]));
      results.cases.push({ scenario: name, title: SCENARIOS[name].title, concurrency: c, requestBytes: Buffer.byteLength(lines[0].req.body), lines: measured });
    }
  }
  if (cfg.stream) {
    process.stdout.write("bench: stream time to first byte and total, one at a time…\n");
    results.stream = await measureStreams(targets, cfg, { requestFor: (line) => requestFor(SCENARIOS.sse, cfg, line), pools: started.pools });
  }
  results.rssMb.afterLoad = rssOf(targets);
  if (cfg.streams500) {
    process.stdout.write(`bench: ${cfg.streams500.streams} concurrent streams…\n`);
    results.manyStreams = await measureManyStreams(targets, cfg.streams500.streams, { requestFor: (line) => requestFor(SCENARIOS.sse, cfg, line), pools: started.pools });
  }
  if (cfg.settleS > 0) {
    process.stdout.write(`bench: ${cfg.settleS} s idle, then RSS again…\n`);
    await new Promise((r) => setTimeout(r, cfg.settleS * 1000));
    results.rssMb.settled = rssOf(targets);
  }
  assertAlive(targets);
  await cleanup();
}

async function main() {
  const cfg = readConfig();
  const watchdog = setTimeout(() => {
    started.stopping = true;
    process.stderr.write(`bench: still running after BENCH_TIMEOUT_S=${cfg.timeoutS}s; stopping\n`);
    void cleanup().finally(() => process.exit(1)); // exits whatever cleanup ends with, as on a signal
  }, cfg.timeoutS * 1000);
  watchdog.unref();
  if (!cfg.skipBuild && !process.env.BENCH_DIST) {
    // A no-op when dist/ is newer than the sources; exits non-zero itself when the build fails.
    const { build } = await import(pathToFileURL(path.join(root, "scripts", "build.mjs")).href);
    build();
  }
  const t0 = performance.now();
  const results = {
    when: new Date().toISOString(),
    node: process.versions.node,
    machine: { cpus: availableParallelism(), cpuModel: cpus()[0]?.model ?? "unknown", totalMemMb: Math.round(totalmem() / 2 ** 20) },
    loadAverage: { start: loadavg().map((v) => round(v, 2)) },
    // Builds are named relative to the checkout, so the results file carries no machine path.
    config: { ...cfg, syNodeArgs: undefined, dist: path.relative(root, cfg.dist) || ".", compareDist: cfg.compareDist && path.relative(root, cfg.compareDist) },
    cases: [],
  };
  // Before the proxies start, so that nothing else of the bench's own competes for the CPU.
  if (cfg.selection) {
    process.stdout.write("bench: selection (choosing a connection, in-process)…\n");
    results.selection = await measureSelection(path.dirname(cfg.dist), cfg.selection);
  }
  if (cfg.admission) {
    process.stdout.write("bench: admission (the admit stage of a request that does not wait, in-process)…\n");
    results.admission = await measureAdmission(path.dirname(cfg.dist), cfg.admission);
  }
  if (cfg.usage) {
    process.stdout.write(`bench: usage report over ${cfg.usage.rows} logged requests (rollups, in-process)…\n`);
    results.usage = await measureUsage(path.dirname(cfg.dist), cfg.usage);
  }
  if (cfg.scenarios.length || cfg.stream || cfg.streams500) await measureHttp(cfg, results);
  if (cfg.replay) {
    process.stdout.write(`bench: replay of a ${cfg.replay.turns}-turn Claude Code session, issue 27's behaviour on, then off…\n`);
    const track = { onChild: (handle) => started.children.push(handle), onDir: (dir) => started.dirs.push(dir) };
    results.replay = await measureReplay(cfg.dist, { ...cfg.replay, track });
  }
  if (cfg.wsTurns) {
    process.stdout.write(`bench: wsTurns, a ${cfg.wsTurns.turns}-turn Codex conversation over HTTP and over the Responses WebSocket, ${cfg.wsTurns.rounds} rounds…\n`);
    const track = { onChild: (handle) => started.children.push(handle), onDir: (dir) => started.dirs.push(dir) };
    results.wsTurns = await measureWsTurns(cfg.dist, { ...cfg.wsTurns, track });
  }
  results.loadAverage.end = loadavg().map((v) => round(v, 2));
  results.durationS = round((performance.now() - t0) / 1000, 1);
  results.goals = goalsOf(results);
  printReport(results);
  const outFile = process.env.BENCH_OUT ? path.resolve(process.env.BENCH_OUT) : path.join(here, "results.json");
  writeFileSync(outFile, JSON.stringify(results, null, 2) + "\n");
  console.log(`\nResults: ${path.relative(process.cwd(), outFile) || outFile} (measured in ${results.durationS}s)`);
  const failed = results.cases.flatMap((c) =>
    Object.entries(c.lines)
      .filter(([, s]) => s.errors)
      .map(([k, s]) => `${c.scenario}@${c.concurrency} ${k}: ${s.errors}`),
  );
  if (failed.length) {
    console.error(`\nbench: failed requests: ${failed.join("; ")}`);
    process.exitCode = 1;
  }
  clearTimeout(watchdog);
}

main().catch(async (err) => {
  // After a signal, the errors are only the echoes of closing things mid-request.
  if (started.stopping) return;
  console.error(`bench: ${err instanceof ConfigError ? err.message : (err?.stack ?? err)}`);
  await cleanup();
  process.exit(1);
});
