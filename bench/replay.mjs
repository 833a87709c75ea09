// Issue 27's replay: a 30-turn Claude Code-shaped session (thinking, tools, the whole history sent
// back each turn) through a priority combo of two Anthropic accounts whose first one answers a
// single 429 (Retry-After 2 s) at turn 10, while every main turn competes with Claude Code's
// background calls for each account's two concurrency slots. It runs twice on fresh processes:
// "on" (the defaults) and "off" (reasoning provenance, traffic classes and wait-or-switch patched
// off). The figures are what a user of the session feels: refusals, the prompt cache kept or lost,
// the prefix tokens sent again, and the main turn's latency. Nothing passes or fails on them.
import { mkdtempSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Agent, request } from "undici";
import { percentile, round } from "./load.mjs";
import { startChild } from "./processes.mjs";
import { BACKGROUND_HEADERS, MAIN_HEADERS, backgroundBody, mainBody, nextUserMessage, readAnthropicStream } from "./replayConversation.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..");
const ADMIN_TOKEN = "bench";
const MAIN_MODEL = "claude-sim";
const FAST_MODEL = "claude-haiku-sim";
const ACCOUNTS = [
  ["acct-a", "key-a"],
  ["acct-b", "key-b"],
];
/** The "off" run: issue 27's three behaviours patched off before the first turn. */
const OFF_SETTINGS = { reasoningProvenance: { enabled: false }, trafficClasses: { enabled: false }, waitOrSwitch: { enabled: false } };

async function admin(base, method, urlPath, body) {
  const res = await fetch(base + urlPath, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null, text };
}

async function mustAdmin(base, method, urlPath, body) {
  const r = await admin(base, method, urlPath, body);
  if (r.status >= 300) throw new Error(`replay: ${method} ${urlPath} -> HTTP ${r.status}: ${r.text.slice(0, 500)}`);
  return r.json;
}

/** Two accounts (one connection each, two slots each), both serving both models; a priority combo per model. */
async function configure(base, sim, mode) {
  const ids = {};
  for (const [provider, key] of ACCOUNTS) {
    await mustAdmin(base, "POST", "/api/providers", { id: provider, format: "anthropic", baseUrl: sim.url, category: "apikey", models: [MAIN_MODEL, FAST_MODEL] });
    ids[provider] = (await mustAdmin(base, "POST", "/api/connections", { provider, name: key, apiKey: key, maxConcurrent: 2 })).id;
  }
  for (const [name, model] of [
    ["agent", MAIN_MODEL],
    ["agent-fast", FAST_MODEL],
  ])
    await mustAdmin(base, "POST", "/api/combos", { name, strategy: "priority", targets: ACCOUNTS.map(([p]) => ({ model: `${p}/${model}`, connectionId: ids[p] })) });
  const accountOf = Object.fromEntries(ACCOUNTS.map(([p]) => [ids[p], p.slice(-1)]));
  if (mode === "on") return { accountOf, settings: { applied: true } };
  // Until a build knows these settings, the PATCH is refused: the run goes on with the defaults and says so.
  const r = await admin(base, "PATCH", "/api/resilience", OFF_SETTINGS);
  if (r.status >= 300) return { accountOf, settings: { applied: false, error: `HTTP ${r.status}: ${r.text.slice(0, 300)}` } };
  // A document that does not echo them off means a build that drops what it does not know.
  const kept = Object.keys(OFF_SETTINGS).filter((name) => r.json?.[name]?.enabled !== false);
  return { accountOf, settings: kept.length ? { applied: false, error: `the patched document still has ${kept.join(", ")} on` } : { applied: true } };
}

async function post(dispatcher, base, urlPath, headers, body) {
  const t0 = performance.now();
  try {
    const res = await request(base + urlPath, { method: "POST", headers, body: JSON.stringify(body), dispatcher, headersTimeout: 60_000, bodyTimeout: 60_000 });
    const text = await res.body.text();
    const header = (name) => (Array.isArray(res.headers[name]) ? res.headers[name][0] : res.headers[name]);
    return { status: res.statusCode, text, ms: performance.now() - t0, connectionId: header("x-omniroute-selected-connection-id"), attempts: header("x-switchyard-attempts") };
  } catch (err) {
    return { status: 0, text: String(err?.message ?? err), ms: performance.now() - t0 };
  }
}

const errorText = (r) => {
  try {
    return JSON.parse(r.text)?.error?.message ?? r.text.slice(0, 200);
  } catch {
    return r.text.slice(0, 200);
  }
};

/** One main turn: its status, latency to the stream's end, usage and the assistant message (null unless it streamed whole). */
async function mainTurn(ctx, turn, state) {
  const r = await post(ctx.dispatcher, ctx.base, "/v1/messages", MAIN_HEADERS, mainBody("agent", state.history, state.pending));
  const out = { turn, status: r.status, ms: round(r.ms, 1), account: ctx.accountOf[r.connectionId] ?? "-", share: null, prompt: null, cacheRead: null, error: null, message: null };
  if (r.status !== 200) return { ...out, error: r.status ? errorText(r) : r.text };
  const { message, usage, error } = readAnthropicStream(r.text);
  if (error) return { ...out, error };
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const prompt = (usage.input_tokens ?? 0) + cacheRead + (usage.cache_creation_input_tokens ?? 0);
  return { ...out, message, cacheRead, prompt, share: prompt ? round(cacheRead / prompt, 3) : null };
}

/** A background call's outcome: shed when Switchyard answered it without trying an upstream. */
async function backgroundCall(ctx, turn, i) {
  const r = await post(ctx.dispatcher, ctx.base, "/v1/messages", BACKGROUND_HEADERS, backgroundBody("agent-fast", turn, i));
  if (r.status === 200) return "ok";
  return r.status && r.attempts === "0" ? `shed ${r.status}` : `failed ${r.status}`;
}

/**
 * The session, turn by turn. Each turn fires its background calls first, then the main turn, as
 * Claude Code fires its title and name calls as the prompt is sent. A refused turn leaves the
 * history as it was, and the next turn sends the same user message again (the user retrying).
 */
async function playSession(ctx, cfg) {
  const state = { history: [], pending: nextUserMessage(1, null) };
  const turns = [];
  const background = [];
  for (let turn = 1; turn <= cfg.turns; turn++) {
    ctx.fault.turn = turn;
    if (turn === cfg.faultTurn) ctx.fault.armed = true;
    const calls = Array.from({ length: cfg.background }, (_, i) => backgroundCall(ctx, turn, i));
    const main = await mainTurn(ctx, turn, state);
    background.push(...(await Promise.all(calls)));
    if (main.message) {
      state.history.push(state.pending, main.message);
      state.pending = nextUserMessage(turn + 1, main.message);
    }
    turns.push(main);
  }
  return { turns, background };
}

/** The request log's rows (written in batches: polled until every request is in), tallied by issue 27's fields when rows carry them. */
async function logFigures(base, expected) {
  let rows = [];
  for (let i = 0; i < 40; i++) {
    rows = (await mustAdmin(base, "GET", "/api/logs?limit=1000")) ?? [];
    if (rows.length >= expected) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  // Rows leave these fields out when they are empty, so they count from the build whose rows carry issue 27's cacheReadShare.
  const counted = rows.some((r) => "cacheReadShare" in r);
  const count = (keep) => (counted ? rows.filter(keep).length : null);
  const tally = {};
  for (const r of rows) if (r.trafficClass) tally[r.trafficClass] = (tally[r.trafficClass] ?? 0) + 1;
  return {
    rows: rows.length,
    cacheMove: count((r) => r.cacheMove),
    waitOrSwitchWait: count((r) => r.waitOrSwitch?.some?.((w) => w.choice === "wait")),
    provenance: count((r) => r.provenance),
    trafficClass: counted ? tally : null,
  };
}

function tallyOf(values) {
  const out = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}

/** Re-sent prefix tokens: for each answered turn after the first, what of the previous answered turn's prompt it did not read from the cache. */
function resentTokens(turns) {
  let previous = null;
  let sum = 0;
  for (const t of turns) {
    if (t.prompt === null) continue;
    if (previous !== null) sum += Math.max(0, previous - t.cacheRead);
    previous = t.prompt;
  }
  return sum;
}

function figures(session, settings, logs, fault) {
  const { turns, background } = session;
  const refused = turns.filter((t) => t.status >= 400 && t.status < 500);
  const ms = Float64Array.from(turns.map((t) => t.ms)).sort();
  const bg = tallyOf(background);
  const count = (prefix) => background.filter((b) => b.startsWith(prefix)).length;
  return {
    settings,
    faultAtTurn: fault.firedAt,
    refusals: refused.length,
    refusalsByStatus: tallyOf(refused.map((t) => t.status)),
    firstRefusal: refused[0] ? { turn: refused[0].turn, status: refused[0].status, message: String(refused[0].error).slice(0, 200) } : null,
    otherFailures: turns.filter((t) => t.error && !(t.status >= 400 && t.status < 500)).length,
    servedBy: turns.map((t) => (t.error ? "x" : t.account)).join(""),
    cacheReadShare: turns.map((t) => t.share),
    resentPrefixTokens: resentTokens(turns),
    mainLatencyMs: { p50: round(percentile(ms, 50), 1), p95: round(percentile(ms, 95), 1), max: round(ms[ms.length - 1], 1) },
    background: { sent: background.length, ok: bg.ok ?? 0, shed: count("shed"), failed: count("failed"), byOutcome: bg },
    logs,
  };
}

async function startSwitchyard(dist, mode, track) {
  const home = mkdtempSync(path.join(tmpdir(), "switchyard-bench-replay-"));
  track.onDir?.(home);
  const child = startChild(`switchyard (replay ${mode})`, process.execPath, [path.join(dist, "main", "cli.js"), "serve", "--port", "0", "--home", home], {
    cwd: root,
    env: { SWITCHYARD_ADMIN_TOKEN: ADMIN_TOKEN },
    ready: /^Switchyard listening on (http:\/\/127\.0\.0\.1:\d+)/,
  });
  track.onChild?.(child.handle);
  const match = await child.started;
  return { base: match[1], handle: child.handle, home };
}

/** One run on a fresh simulator and a fresh Switchyard. */
async function runOnce(dist, mode, cfg, track) {
  const { startSimulator } = await import(pathToFileURL(path.join(dist, "main", "simulator", "index.js")).href);
  const fault = { armed: false, turn: 0, firedAt: null };
  // Every answer takes latencyMs, so slots stay taken; the armed 429 goes to the first main-model call on account a.
  const pickFault = (entry) => {
    if (!fault.armed || entry.key !== "key-a" || entry.model !== MAIN_MODEL) return { latencyMs: cfg.latencyMs };
    Object.assign(fault, { armed: false, firedAt: fault.turn });
    return { status: 429, retryAfter: cfg.retryAfterS, latencyMs: cfg.latencyMs };
  };
  const sim = await startSimulator({ port: 0, recordLimit: 0, pickFault });
  let sy = null;
  const dispatcher = new Agent({ connections: 16, keepAliveTimeout: 10_000 });
  try {
    sy = await startSwitchyard(dist, mode, track);
    const { accountOf, settings } = await configure(sy.base, sim, mode);
    const t0 = performance.now();
    const session = await playSession({ base: sy.base, dispatcher, accountOf, fault }, cfg);
    const durationS = round((performance.now() - t0) / 1000, 1);
    if (sy.handle.exited) throw new Error(`switchyard (replay ${mode}) exited during the run\n${sy.handle.tail()}`);
    // Turn 1 meets no fault and no foreign history: when it fails, the setup is wrong, not a figure.
    const first = session.turns[0];
    if (first.error) throw new Error(`replay ${mode}: turn 1 failed (HTTP ${first.status}): ${first.error}`);
    const logs = await logFigures(sy.base, cfg.turns * (1 + cfg.background));
    return { ...figures(session, settings, logs, fault), durationS };
  } finally {
    await dispatcher.close();
    if (sy) {
      await sy.handle.stop();
      rmSync(sy.home, { recursive: true, force: true });
    }
    await sim.close();
  }
}

/**
 * `dist` is the built tree (dist/); `track.onChild` / `track.onDir` let the caller end and remove
 * what was started if it is interrupted.
 */
export async function measureReplay(dist, { turns = 30, background = 4, faultTurn = 10, latencyMs = 150, retryAfterS = 2, track = {} } = {}) {
  for (const p of [path.join(dist, "main", "simulator", "index.js"), path.join(dist, "main", "cli.js")])
    if (!existsSync(p)) throw new Error(`${p} is missing: build first (node scripts/build.mjs)`);
  const cfg = { turns, background, faultTurn, latencyMs, retryAfterS };
  const on = await runOnce(dist, "on", cfg, track);
  const off = await runOnce(dist, "off", cfg, track);
  return { ...cfg, on, off };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const figuresOut = await measureReplay(path.join(root, "dist"));
  process.stdout.write(`${JSON.stringify(figuresOut, null, 2)}\n`);
}
