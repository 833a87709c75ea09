// `npm run bench`: Switchyard against a bare Node proxy, in the same run, on the same
// simulated upstream, reported as ratios (DESIGN.md: performance claims live here). It never
// passes or fails on wall time; it exits non-zero only when something failed to run.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { request } from "undici";
import { anthropicMessages, openaiChat, replyText } from "./payloads.mjs";
import { createTargetClient, probe, round, runLoad, summarise } from "./load.mjs";
import { procStats, selfCpuMs, startChild } from "./processes.mjs";
import { measureSelection } from "./selection.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..");
const ADMIN_TOKEN = "bench";

class ConfigError extends Error {}

function intEnv(name, fallback, min = 0) {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new ConfigError(`${name} must be an integer >= ${min} (got "${raw}")`);
  return n;
}

const SCENARIOS = {
  json: {
    title: "JSON chat completion",
    path: "/v1/chat/completions",
    body: () => openaiChat({ model: "sim/m", stream: false }),
    check: (r) => {
      const content = JSON.parse(r.text)?.choices?.[0]?.message?.content;
      if (typeof content !== "string" || !content) throw new Error("no choices[0].message.content");
    },
  },
  sse: {
    title: "SSE chat completion",
    path: "/v1/chat/completions",
    body: () => openaiChat({ model: "sim/m", stream: true }),
    check: (r) => {
      if (!r.contentType.includes("text/event-stream")) throw new Error(`content-type ${r.contentType}`);
      if (!r.text.includes('"delta"') || !r.text.includes("data: [DONE]")) throw new Error("no delta frames or no [DONE]");
    },
  },
  large: {
    title: "JSON chat, large body",
    path: "/v1/chat/completions",
    body: (cfg) => openaiChat({ model: "sim/m", stream: false, largeBytes: cfg.largeKb * 1024 }),
    check: (r) => {
      const content = JSON.parse(r.text)?.choices?.[0]?.message?.content;
      if (typeof content !== "string" || !content) throw new Error("no choices[0].message.content");
    },
  },
  claude: {
    title: "Anthropic SSE, large body",
    path: "/v1/messages",
    body: (cfg) => anthropicMessages({ model: "simA/m", stream: true, largeBytes: cfg.largeKb * 1024 }),
    extraHeaders: { "anthropic-version": "2023-06-01", "x-api-key": "client-key" },
    check: (r) => {
      if (!r.contentType.includes("text/event-stream")) throw new Error(`content-type ${r.contentType}`);
      if (!r.text.includes("content_block_delta") || !r.text.includes("message_stop")) throw new Error("no content_block_delta or no message_stop");
    },
  },
};

/** In-process, no HTTP: the cost of choosing a connection (bench/selection.mjs). */
const SELECTION = "selection";

function readConfig() {
  const names = [...new Set((process.env.BENCH_SCENARIOS ?? "json,sse,large,claude,selection").split(",").map((s) => s.trim()).filter(Boolean))];
  const known = [...Object.keys(SCENARIOS), SELECTION];
  for (const n of names) if (!known.includes(n)) throw new ConfigError(`BENCH_SCENARIOS: unknown scenario "${n}" (known: ${known.join(", ")})`);
  const strategy = process.env.BENCH_SELECTION_STRATEGY || "p2c";
  return {
    requests: intEnv("BENCH_REQUESTS", 2000, 1),
    concurrency: intEnv("BENCH_CONCURRENCY", 16, 1),
    // V8 needs about a thousand calls per path before the figures settle; less makes the first scenario look slow.
    warmup: intEnv("BENCH_WARMUP", 1000, 0),
    rounds: intEnv("BENCH_ROUNDS", 8, 1),
    largeKb: intEnv("BENCH_LARGE_KB", 76, 1),
    replyWords: intEnv("BENCH_REPLY_WORDS", 50, 0),
    timeoutS: intEnv("BENCH_TIMEOUT_S", 300, 10),
    requestTimeoutMs: 30_000,
    scenarios: names.filter((n) => n !== SELECTION),
    selection: names.includes(SELECTION)
      ? { connectionCounts: [1, 50, 1000], strategy, iterations: intEnv("BENCH_SELECTION_ITERATIONS", 20_000, 1), batches: intEnv("BENCH_SELECTION_BATCHES", 7, 1) }
      : null,
    skipBuild: process.env.BENCH_SKIP_BUILD === "1",
  };
}

// ---- what this process started, so it can end exactly that -------------------------------

const started = { children: [], simulator: null, pools: [], home: null, stopping: false };

async function cleanup() {
  await Promise.allSettled(started.pools.map((p) => p.close()));
  await Promise.allSettled(started.children.map((c) => c.stop()));
  if (started.simulator) await started.simulator.close().catch(() => {});
  if (started.home) rmSync(started.home, { recursive: true, force: true });
  started.children = [];
  started.simulator = null;
  started.pools = [];
  started.home = null;
}

process.on("exit", () => {
  for (const c of started.children) c.killNow();
  if (started.home) rmSync(started.home, { recursive: true, force: true });
});
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.once(sig, () => {
    started.stopping = true;
    process.stderr.write(`\nbench: ${sig}, stopping what it started\n`);
    cleanup().finally(() => process.exit(130));
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

async function startEverything(cfg) {
  const simPath = path.join(root, "dist", "main", "simulator", "index.js");
  const cliPath = path.join(root, "dist", "main", "cli.js");
  for (const p of [simPath, cliPath]) if (!existsSync(p)) throw new Error(`${path.relative(root, p)} is missing: build first (node scripts/build.mjs)`);

  const { startSimulator } = await import(pathToFileURL(simPath).href);
  const simOptions = { port: 0, recordLimit: 0 };
  if (cfg.replyWords > 0) simOptions.replyText = replyText(cfg.replyWords);
  started.simulator = await startSimulator(simOptions);
  const sim = started.simulator;

  const bare = startChild("bare proxy", process.execPath, [path.join(here, "bareProxy.mjs"), sim.url], {
    cwd: root,
    ready: /^bare proxy listening on (http:\/\/127\.0\.0\.1:\d+)/,
  });
  started.children.push(bare.handle);

  started.home = mkdtempSync(path.join(tmpdir(), "switchyard-bench-"));
  const sy = startChild("switchyard", process.execPath, [...(process.env.BENCH_SY_NODE_ARGS ? process.env.BENCH_SY_NODE_ARGS.split(" ") : []), cliPath, "serve", "--port", "0", "--home", started.home], {
    cwd: root,
    env: { SWITCHYARD_ADMIN_TOKEN: ADMIN_TOKEN },
    ready: /^Switchyard listening on (http:\/\/127\.0\.0\.1:\d+)/,
  });
  started.children.push(sy.handle);

  const [bareMatch, syMatch] = await Promise.all([bare.started, sy.started]);
  const targets = {
    bare: { name: "bare", url: bareMatch[1], proc: bare.handle },
    switchyard: { name: "switchyard", url: syMatch[1], proc: sy.handle },
  };

  const base = targets.switchyard.url;
  await admin(base, "POST", "/api/providers", { id: "sim", format: "openai", baseUrl: `${sim.url}/v1`, category: "apikey", models: ["m"] });
  await admin(base, "POST", "/api/connections", { provider: "sim", apiKey: "k" });
  if (cfg.scenarios.includes("claude")) {
    await admin(base, "POST", "/api/providers", { id: "simA", format: "anthropic", baseUrl: sim.url, category: "apikey", models: ["m"] });
    await admin(base, "POST", "/api/connections", { provider: "simA", apiKey: "k" });
  }

  for (const t of Object.values(targets)) {
    t.pool = createTargetClient(t.url, cfg.concurrency);
    started.pools.push(t.pool);
  }
  return { sim, targets };
}

// ---- measuring -----------------------------------------------------------------------------------

function assertAlive(targets) {
  for (const t of Object.values(targets)) {
    if (t.proc.exited) throw new Error(`${t.proc.name} exited during the run (code ${t.proc.exited.code}, signal ${t.proc.exited.signal})\n${t.proc.tail()}`);
  }
}

function requestFor(scenario, cfg, target) {
  const body = JSON.stringify(scenario.body(cfg));
  // The bare proxy talks to the simulator as it is; the same key reaches it either way.
  const auth = target === "bare" ? { authorization: "Bearer k" } : {};
  return {
    path: scenario.path,
    body,
    headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)), ...auth, ...(scenario.extraHeaders ?? {}) },
  };
}

const ORDER = ["bare", "switchyard"];

/** Checks both targets answer the scenario correctly; returns the per-target requests. */
async function prepareScenario(name, cfg, targets) {
  const scenario = SCENARIOS[name];
  const reqs = Object.fromEntries(ORDER.map((t) => [t, requestFor(scenario, cfg, t)]));
  for (const t of ORDER) {
    const r = await probe(targets[t].pool, reqs[t], cfg.requestTimeoutMs);
    if (r.status !== 200) throw new Error(`${name} via ${t}: HTTP ${r.status}: ${r.text.slice(0, 500)}`);
    try {
      scenario.check(r);
    } catch (err) {
      throw new Error(`${name} via ${t}: unexpected response (${err.message}): ${r.text.slice(0, 500)}`);
    }
  }
  return reqs;
}

/** `count` requests per target, so JIT, pools and caches are warm before timing; failures are returned. */
async function warmUp(reqs, cfg, targets, phase, count) {
  const failures = [];
  if (count === 0) return failures;
  for (const t of ORDER) {
    const w = await runLoad(targets[t].pool, reqs[t], { concurrency: cfg.concurrency, timeoutMs: cfg.requestTimeoutMs, count });
    if (w.failed) failures.push({ target: t, phase, failed: w.failed, failures: w.failures });
  }
  assertAlive(targets);
  return failures;
}

async function measureScenario(name, reqs, cfg, targets, earlierFailures) {
  const scenario = SCENARIOS[name];
  const order = ORDER;
  const load = { concurrency: cfg.concurrency, timeoutMs: cfg.requestTimeoutMs };
  const failures = [...earlierFailures, ...(await warmUp(reqs, cfg, targets, "warm-up", Math.ceil(cfg.warmup / 5)))];

  const before = Object.fromEntries(order.map((t) => [t, procStats(targets[t].proc.pid)]));
  const clientCpu0 = selfCpuMs();
  const rounds = { bare: [], switchyard: [] };
  const perRound = Math.ceil(cfg.requests / cfg.rounds);
  let left = cfg.requests;
  for (let i = 0; i < cfg.rounds && left > 0; i++) {
    const count = Math.min(perRound, left);
    left -= count;
    // A-B then B-A, so neither target always runs first (drift, GC, CPU frequency).
    for (const t of i % 2 === 0 ? order : [...order].reverse()) rounds[t].push(await runLoad(targets[t].pool, reqs[t], { ...load, count }));
  }
  const clientCpuMs = selfCpuMs() - clientCpu0;
  assertAlive(targets);
  const after = Object.fromEntries(order.map((t) => [t, procStats(targets[t].proc.pid)]));

  const result = { title: scenario.title, requestBytes: Buffer.byteLength(reqs.switchyard.body), targets: {} };
  for (const t of order) {
    const s = summarise(rounds[t]);
    if (s.failed) failures.push({ target: t, phase: "measured", failed: s.failed, failures: s.failures });
    s.cpuMsPerRequest = round((after[t].cpuMs - before[t].cpuMs) / Math.max(1, s.requests), 4);
    s.rssMb = { before: mb(before[t].rssKb), after: mb(after[t].rssKb), peak: mb(after[t].hwmKb) };
    result.targets[t] = s;
  }
  const b = result.targets.bare;
  const y = result.targets.switchyard;
  result.ratios = {
    throughput: ratio(y.throughputRps, b.throughputRps),
    p50: ratio(y.latencyMs.p50, b.latencyMs.p50),
    p95: ratio(y.latencyMs.p95, b.latencyMs.p95),
    p99: ratio(y.latencyMs.p99, b.latencyMs.p99),
    cpuPerRequest: ratio(y.cpuMsPerRequest, b.cpuMsPerRequest),
  };
  result.addedLatencyMs = { p50: round(y.latencyMs.p50 - b.latencyMs.p50, 3), p99: round(y.latencyMs.p99 - b.latencyMs.p99, 3) };
  result.loadClientCpuMs = round(clientCpuMs, 1);
  result.failures = failures;
  return result;
}

const mb = (kb) => round(kb / 1024, 1);
const ratio = (a, b) => (a === null || b === null || !b ? null : round(a / b, 3));

// ---- reporting -----------------------------------------------------------------------------------

function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  return rows.map((r) => r.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join("  ")).join("\n");
}

const fmt = (v, d = 2) => (v === null || v === undefined ? "-" : Number(v).toFixed(d));

function report(results, rss, cfg) {
  const detail = [["scenario", "target", "req/s", "p50 ms", "p95 ms", "p99 ms", "cpu ms/req", "RSS MB", "failed"]];
  for (const [name, r] of Object.entries(results.scenarios)) {
    for (const t of ["bare", "switchyard"]) {
      const s = r.targets[t];
      detail.push([t === "bare" ? `${name} (${fmt(r.requestBytes / 1024, 1)} KB)` : "", t, fmt(s.throughputRps, 0), fmt(s.latencyMs.p50), fmt(s.latencyMs.p95), fmt(s.latencyMs.p99), fmt(s.cpuMsPerRequest, 3), fmt(s.rssMb.after, 1), s.failed]);
    }
  }
  const ratios = [["scenario", "throughput", "p50", "p95", "p99", "cpu/req", "+p50 ms", "+p99 ms"]];
  for (const [name, r] of Object.entries(results.scenarios)) {
    ratios.push([name, `x${fmt(r.ratios.throughput, 3)}`, `x${fmt(r.ratios.p50)}`, `x${fmt(r.ratios.p95)}`, `x${fmt(r.ratios.p99)}`, `x${fmt(r.ratios.cpuPerRequest)}`, fmt(r.addedLatencyMs.p50), fmt(r.addedLatencyMs.p99)]);
  }
  console.log(`\n${cfg.requests} requests per target per scenario, concurrency ${cfg.concurrency}, ${cfg.rounds} alternating rounds, ${cfg.warmup} + ${Math.ceil(cfg.warmup / 5)} warm-up; ${results.machine.cpus} CPUs, Node ${process.versions.node}`);
  // The bench itself keeps about two CPUs busy, so only the load before it started says whether others were running.
  const before = results.loadAverage.start[0];
  console.log(`load average (1 min) before the run: ${before}${before > results.machine.cpus * 0.5 ? " (the machine was busy with other work: expect noisy figures)" : ""}\n`);
  console.log(table(detail));
  console.log("\nSwitchyard / bare proxy (throughput: higher is better, 1.0 = no loss; latency and cpu: lower is better, 1.0 = no overhead)\n");
  console.log(table(ratios));
  const rssRows = [["RSS MB", "after setup", "after warm-up", "at the end", "growth", "growth after warm-up", "peak"]];
  for (const t of ["bare", "switchyard"]) {
    const r = rss[t];
    rssRows.push([t, fmt(r.start, 1), fmt(r.warm, 1), fmt(r.end, 1), fmt(r.growth, 1), fmt(r.growthAfterWarmUp, 1), fmt(r.peak, 1)]);
  }
  rssRows.push(["switchyard / bare", `x${fmt(rss.switchyard.start / rss.bare.start)}`, `x${fmt(rss.switchyard.warm / rss.bare.warm)}`, `x${fmt(rss.switchyard.end / rss.bare.end)}`, "", "", `x${fmt(rss.switchyard.peak / rss.bare.peak)}`]);
  console.log("\n" + table(rssRows));
}

function reportSelection(sel) {
  const rows = [["choosing a connection", "connections", "µs/request", "min", "max", `within ${sel.goalUs} µs`]];
  for (const r of sel.results) rows.push([r.case, r.connections, fmt(r.usPerRequest), fmt(r.minUs), fmt(r.maxUs), r.withinGoal ? "yes" : "NO"]);
  const { iterations, batches } = sel.results[0];
  console.log(`\nSelection: plan + first candidate, in-process on dist/ (median of ${batches} batches of ${iterations}; the goal is informational)\n`);
  console.log(table(rows));
}

// ---- main ------------------------------------------------------------------------------------------

/** The HTTP scenarios: both proxies, warm-ups, the measured rounds and RSS. */
async function measureHttp(cfg, results) {
  const { targets } = await startEverything(cfg);
  const rssStart = { bare: procStats(targets.bare.proc.pid), switchyard: procStats(targets.switchyard.proc.pid) };
  // Every code path runs once before anything is timed, so the first scenario is not the one paying for JIT.
  const prepared = {};
  const firstWarmFailures = {};
  process.stdout.write(`bench: checking and warming up ${cfg.scenarios.join(", ")}…\n`);
  for (const name of cfg.scenarios) {
    prepared[name] = await prepareScenario(name, cfg, targets);
    firstWarmFailures[name] = await warmUp(prepared[name], cfg, targets, "first warm-up", cfg.warmup);
  }
  const rssWarm = { bare: procStats(targets.bare.proc.pid), switchyard: procStats(targets.switchyard.proc.pid) };
  for (const name of cfg.scenarios) {
    process.stdout.write(`bench: ${name} (${SCENARIOS[name].title})…\n`);
    results.scenarios[name] = await measureScenario(name, prepared[name], cfg, targets, firstWarmFailures[name]);
  }
  const rssEnd = { bare: procStats(targets.bare.proc.pid), switchyard: procStats(targets.switchyard.proc.pid) };
  const rss = {};
  for (const t of ["bare", "switchyard"]) {
    rss[t] = {
      start: mb(rssStart[t].rssKb),
      warm: mb(rssWarm[t].rssKb),
      end: mb(rssEnd[t].rssKb),
      growth: mb(rssEnd[t].rssKb - rssStart[t].rssKb),
      growthAfterWarmUp: mb(rssEnd[t].rssKb - rssWarm[t].rssKb),
      peak: mb(rssEnd[t].hwmKb),
    };
  }
  results.rssMb = rss;
  await cleanup();
}

async function main() {
  const cfg = readConfig();
  const watchdog = setTimeout(() => {
    started.stopping = true;
    process.stderr.write(`bench: still running after BENCH_TIMEOUT_S=${cfg.timeoutS}s; stopping\n`);
    cleanup().finally(() => process.exit(1));
  }, cfg.timeoutS * 1000);
  watchdog.unref();

  if (!cfg.skipBuild) {
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
    config: { requests: cfg.requests, concurrency: cfg.concurrency, warmup: cfg.warmup, rounds: cfg.rounds, largeKb: cfg.largeKb, replyWords: cfg.replyWords, scenarios: cfg.scenarios, selection: cfg.selection },
    scenarios: {},
  };
  // Before the proxies start, so that nothing else of the bench's own competes for the CPU.
  if (cfg.selection) {
    process.stdout.write("bench: selection (choosing a connection, in-process)…\n");
    results.selection = await measureSelection(root, cfg.selection);
  }
  if (cfg.scenarios.length) await measureHttp(cfg, results);
  results.loadAverage.end = loadavg().map((v) => round(v, 2));
  results.durationS = round((performance.now() - t0) / 1000, 1);
  results.failures = Object.entries(results.scenarios).flatMap(([name, r]) => r.failures.map((f) => ({ scenario: name, ...f })));

  if (cfg.scenarios.length) report(results, results.rssMb, cfg);
  if (results.selection) reportSelection(results.selection);
  const outDir = path.join(here, "results");
  mkdirSync(outDir, { recursive: true });
  const outFile = path.join(outDir, "latest.json");
  writeFileSync(outFile, JSON.stringify(results, null, 2) + "\n");
  console.log(`\nResults: ${path.relative(process.cwd(), outFile) || outFile} (measured in ${results.durationS}s)`);

  if (results.failures.length) {
    console.error(`\nbench: ${results.failures.reduce((s, f) => s + f.failed, 0)} requests failed:\n${JSON.stringify(results.failures, null, 2)}`);
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
