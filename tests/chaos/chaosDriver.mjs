// Chaos and soak driver: runs the BUILT gateway and simulators in this process (started with
// `node --expose-gc`), sends a bounded, seeded mix of requests through combos and plain provider
// models while the simulators inject faults at random, and prints one JSON report line.
// Usage: node --expose-gc tests/chaos/chaosDriver.mjs '<json options>'
//   {mode: "chaos"|"soak", rate: 0.3, requests: 200, concurrency: 12, seed: 1, streamShare: 0.5}
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { Agent, request } from "undici";
import { FAULT_KINDS, REPLY_TEXT, checkStream, jsonText, mulberry32, percentile } from "./chaosModel.mjs";

const opts = { mode: "chaos", rate: 0.3, requests: 200, concurrency: 12, seed: 1, streamShare: 0.5, warmup: 0, ...JSON.parse(process.argv[2] ?? "{}") };
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const { buildApp } = await import(path.join(root, "dist/main/app/build.js"));
const { startSimulator } = await import(path.join(root, "dist/main/simulator/index.js"));

let unhandled = 0;
let firstUnhandled = null;
process.on("unhandledRejection", (err) => {
  unhandled += 1;
  firstUnhandled ??= String(err?.stack ?? err);
});
process.on("uncaughtException", (err) => {
  unhandled += 1;
  firstUnhandled ??= String(err?.stack ?? err);
});

const ADMIN = "chaos-admin";
const random = mulberry32(opts.seed);
const home = mkdtempSync(path.join(tmpdir(), "switchyard-chaos-"));
const app = await buildApp({ port: 0, home, quiet: true, env: { SWITCHYARD_ADMIN_TOKEN: ADMIN, SWITCHYARD_STREAM_HEARTBEAT_MS: "0" } });

const faultCounts = {};
const upstreamCalls = { total: 0, faulted: 0 };
/** Connections whose key starts with "bad" fault at `rate`; the "good" ones never do. */
function pickFault(req) {
  upstreamCalls.total += 1;
  if (!req.key?.startsWith("bad") || random() >= opts.rate) return undefined;
  const kind = FAULT_KINDS[Math.floor(random() * FAULT_KINDS.length)];
  faultCounts[kind.name] = (faultCounts[kind.name] ?? 0) + 1;
  upstreamCalls.faulted += 1;
  return kind.fault;
}
const sim = await startSimulator({ port: 0, label: "chaos", recordLimit: 0, replyText: REPLY_TEXT, pickFault });

/** A port nothing listens on: the "refused" provider's connections get ECONNREFUSED. */
async function closedPort() {
  const srv = createServer();
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

const agent = new Agent({ connections: opts.concurrency * 2, keepAliveTimeout: 10_000 });
async function admin(verb, route, body) {
  const r = await request(app.url + route, {
    method: verb,
    dispatcher: agent,
    headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.body.text();
  if (r.statusCode >= 300) throw new Error(`${verb} ${route}: ${r.statusCode} ${text}`);
  return text ? JSON.parse(text) : null;
}

async function setup() {
  // Short budgets so a stalled upstream costs about a second, not the production minutes; short
  // connection cooldowns so the faulty connections come back at once and keep failing at `rate`
  // (with the default 3 s base and backoff they would sit out most of a short run).
  await admin("PATCH", "/api/resilience", {
    streamRecovery: { contentStallTimeoutMs: 1_000, idleTimeoutMs: 1_000, attemptDeadlineMs: 1_500 },
    connectionCooldown: { apikey: { baseCooldownMs: 100, maxBackoffSteps: 0 } },
  });
  const refused = await closedPort();
  const providers = [
    { id: "oa", format: "openai", baseUrl: `${sim.url}/v1` },
    { id: "an", format: "anthropic", baseUrl: sim.url },
    { id: "gone", format: "openai", baseUrl: `http://127.0.0.1:${refused}/v1` },
  ];
  for (const p of providers) {
    await admin("POST", "/api/providers", { ...p, category: "apikey", models: ["m1"] });
    const keys = p.id === "gone" ? ["bad-gone"] : [`bad1-${p.id}`, `bad2-${p.id}`, `good-${p.id}`];
    // The healthy connection comes last, so failover is exercised on every fault.
    for (const [i, key] of keys.entries()) await admin("POST", "/api/connections", { id: `${p.id}-${i}`, provider: p.id, apiKey: key, priority: i });
  }
  await admin("POST", "/api/combos", { name: "chaos-combo", strategy: "priority", targets: [{ model: "gone/m1" }, { model: "oa/m1" }, { model: "an/m1" }] });
}

const ROUTES = ["chaos-combo", "oa/m1", "an/m1"];
function requestFor(i) {
  const model = ROUTES[i % ROUTES.length];
  const via = model === "chaos-combo" ? "combo" : "provider";
  const client = Math.floor(i / ROUTES.length) % 2 === 0 ? "openai" : "anthropic";
  const stream = random() < opts.streamShare;
  const messages = [{ role: "user", content: `chaos request ${i}` }];
  const body = client === "openai" ? { model, stream, messages } : { model, stream, max_tokens: 64, messages };
  return { via, client, stream, url: `${app.url}${client === "openai" ? "/v1/chat/completions" : "/v1/messages"}`, body };
}

/**
 * Per-request figures in columns allocated up front: the load generator shares the gateway's
 * process, so it must not itself grow the heap the soak measures.
 */
const OK = 1,
  STREAM = 2,
  MID = 4,
  EOF = 8,
  CUT = 16,
  COMBO = 32;
function createResults(capacity) {
  const ms = new Float64Array(capacity);
  const attempts = new Uint16Array(capacity);
  const flags = new Uint8Array(capacity);
  const violations = [];
  let size = 0;
  return {
    violations,
    size: () => size,
    reset() {
      size = 0;
      violations.length = 0;
    },
    add(out) {
      if (size >= capacity) throw new Error("chaosDriver: more results than requests");
      ms[size] = out.ms;
      attempts[size] = Math.min(out.attempts, 65_535);
      flags[size] =
        (out.ok ? OK : 0) | (out.stream ? STREAM : 0) | (out.midStreamError ? MID : 0) | (out.eofGiveUp ? EOF : 0) | (out.cutShort ? CUT : 0) | (out.via === "combo" ? COMBO : 0);
      if (!out.ok && !out.midStreamError && !out.eofGiveUp && violations.length < 5) violations.push(out);
      size += 1;
    },
    count(pred) {
      let n = 0;
      for (let i = 0; i < size; i++) if (pred(flags[i])) n += 1;
      return n;
    },
    summary(pred) {
      const sel = [];
      let ok = 0;
      let tries = 0;
      for (let i = 0; i < size; i++) {
        if (!pred(flags[i])) continue;
        sel.push(ms[i]);
        ok += flags[i] & OK;
        tries += attempts[i];
      }
      sel.sort((a, b) => a - b);
      const n = sel.length;
      return { requests: n, successRate: n ? ok / n : 1, attemptsPerRequest: n ? tries / n : 0, p50Ms: Math.round(percentile(sel, 0.5)), p99Ms: Math.round(percentile(sel, 0.99)) };
    },
  };
}
const results = createResults(Math.max(opts.requests, opts.warmup));
async function one(i) {
  const spec = requestFor(i);
  const started = performance.now();
  const out = { via: spec.via, client: spec.client, stream: spec.stream, ok: false, problem: null, attempts: 0, ms: 0 };
  try {
    const r = await request(spec.url, {
      method: "POST",
      dispatcher: agent,
      headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify(spec.body),
      headersTimeout: 60_000,
      bodyTimeout: 60_000,
    });
    const text = await r.body.text();
    out.attempts = Number(r.headers["x-switchyard-attempts"] ?? 0);
    if (!r.headers["x-switchyard-request-id"]) out.problem = "no request id";
    else if (r.statusCode !== 200) {
      out.problem = `status ${r.statusCode}: ${text.slice(0, 200)}`;
      // D13: a stream that ends before its first event is retried once per request, then answered 502.
      out.eofGiveUp = spec.stream && r.statusCode === 502 && text.includes('"code":"STREAM_EARLY_EOF"') && out.attempts >= 2;
    } else if (!spec.stream) {
      const json = JSON.parse(text);
      out.ok = spec.client === "openai" ? Array.isArray(json.choices) : json.type === "message";
      if (!out.ok) out.problem = `bad JSON answer: ${text.slice(0, 200)}`;
      else out.cutShort = jsonText(spec.client, json) !== REPLY_TEXT;
    } else {
      const verdict = checkStream(spec.client, text);
      out.ok = verdict.ok;
      out.midStreamError = verdict.midStreamError;
      out.problem = verdict.problem;
      out.cutShort = verdict.ok && verdict.text !== REPLY_TEXT;
    }
  } catch (err) {
    out.problem = `transport: ${err?.code ?? ""} ${err?.message ?? err}`;
  }
  out.ms = performance.now() - started;
  results.add(out);
}

async function run(count, offset) {
  let next = 0;
  await Promise.all(
    Array.from({ length: opts.concurrency }, async () => {
      while (next < count) await one(offset + next++);
    }),
  );
}

function openFds() {
  return readdirSync("/proc/self/fd").length;
}
function rssMb() {
  const line = readFileSync("/proc/self/status", "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmRSS:"));
  return Number(line?.match(/\d+/)?.[0] ?? 0) / 1024;
}
async function settled() {
  await sleep(1_500);
  globalThis.gc?.();
  await sleep(50);
  globalThis.gc?.();
  return { heapMb: process.memoryUsage().heapUsed / 1048576, rssMb: rssMb(), fds: openFds() };
}

await setup();
const started = performance.now();
if (opts.warmup > 0) await run(opts.warmup, 0);
results.reset();
const before = await settled();
await run(opts.requests, opts.warmup);
const wallMs = performance.now() - started;
const after = await settled();
const health = await admin("GET", "/api/monitoring/health");
const busyQueues = (health.queues ?? []).filter((q) => (q.inFlight ?? 0) !== 0 || (q.queued ?? 0) !== 0);

const has = (bit) => (f) => (f & bit) !== 0;
const report = {
  mode: opts.mode,
  rate: opts.rate,
  seed: opts.seed,
  requests: results.size(),
  wallMs: Math.round(wallMs),
  upstreamCalls,
  faultCounts,
  all: results.summary(() => true),
  combo: results.summary(has(COMBO)),
  provider: results.summary((f) => !has(COMBO)(f)),
  nonStreamFailures: results.count((f) => !(f & STREAM) && !(f & OK)),
  earlyStreamFailures: results.count((f) => (f & STREAM) !== 0 && !(f & (OK | MID | EOF))),
  earlyEofGiveUps: results.count(has(EOF)),
  midStreamErrors: results.count(has(MID)),
  // Answers that ended as complete but carry less than the upstream's full text (reported, see docs/reliability.md).
  cutShortNonStream: results.count((f) => (f & (OK | CUT)) === (OK | CUT) && !(f & STREAM)),
  cutShortStreams: results.count((f) => (f & (OK | CUT | STREAM)) === (OK | CUT | STREAM)),
  violations: results.violations,
  unhandled,
  firstUnhandled,
  queues: health.queues ?? null,
  busyQueues,
  memory: { before, after, heapGrowthMb: after.heapMb - before.heapMb, fdGrowth: after.fds - before.fds },
};

await agent.close();
await sim.close();
await app.close();
rmSync(home, { recursive: true, force: true });
console.log(JSON.stringify(report));
