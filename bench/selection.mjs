// The cost of choosing a connection (issue 9: within 20 µs per request with 1 000 connections).
// In-process, on the built stages: plan (resolution + the combo's strategy order) and select
// (the real resilience engine on a real clock) up to the first candidate. The ports are in
// memory, as the store's read cache serves them between writes, so no SQLite is timed.
import path from "node:path";
import { pathToFileURL } from "node:url";

export const SELECTION_GOAL_US = 20;

const PROVIDER = "p";
const MODELS = ["m1", "m2", "m3"];

function provider() {
  return {
    id: PROVIDER,
    format: "openai",
    baseUrl: "http://127.0.0.1:9/v1",
    category: "apikey",
    models: MODELS,
    quotaFamilies: {},
    passthroughModels: false,
    rateLimitCooldownSeconds: null,
    priority: 0,
    options: {},
    modelInfo: { m1: { inputPricePerMTok: 3 }, m2: { inputPricePerMTok: 1 }, m3: { inputPricePerMTok: 0.5 } },
    createdAt: 0,
    updatedAt: 0,
  };
}

function connection(i) {
  return {
    id: `c${i}`,
    provider: PROVIDER,
    name: `key ${i}`,
    priority: i % 5,
    weight: 1,
    active: true,
    hasSecret: true,
    maxConcurrent: null,
    rateLimitOverrides: {},
    rateLimitProtection: null,
    providerSpecificData: {},
    disableCooling: false,
    testStatus: "active",
    rateLimitedUntil: null,
    backoffLevel: 0,
    lastError: null,
    lastErrorType: null,
    errorCode: null,
    lastErrorAt: null,
    authFailureCount: 0,
    createdAt: 0,
    updatedAt: 0,
  };
}

async function load(root) {
  const dist = (p) => import(pathToFileURL(path.join(root, "dist", "main", p)).href);
  const [engineMod, settingsMod, appSettingsMod, planMod, selectMod, routingMod, clockMod] = await Promise.all([
    dist("engine/index.js"),
    dist("../shared/resilienceSettings.js"),
    dist("../shared/schemas/appSettings.js"),
    dist("gateway/request/plan.js"),
    dist("gateway/request/select.js"),
    dist("gateway/routing/index.js"),
    dist("app/clock.js"),
  ]);
  return { ...engineMod, ...settingsMod, ...appSettingsMod, ...planMod, ...selectMod, ...routingMod, ...clockMod };
}

/** Everything one request's choice needs, wired as main/app/build.ts wires it, on in-memory ports. */
function world(m, connectionCount, strategy) {
  const clock = m.createClock(false);
  const settings = m.DEFAULT_RESILIENCE_SETTINGS;
  const appSettings = m.normaliseAppSettings({});
  const p = provider();
  // The store lists a provider's connections by priority (then creation), and so does this port.
  const conns = Array.from({ length: connectionCount }, (_, i) => connection(i)).sort((a, b) => a.priority - b.priority);
  const combo = { name: "bench", strategy, targets: MODELS.map((x, i) => ({ model: `${PROVIDER}/${x}`, weight: 3 - i })), config: {}, createdAt: 0, updatedAt: 0 };
  const byId = new Map(conns.map((c) => [c.id, c]));
  const breakerRows = new Map();
  const engine = m.createResilienceEngine({
    clock,
    breakers: { loadAll: () => [...breakerRows.values()], save: (s) => void breakerRows.set(s.provider, s), delete: (id) => void breakerRows.delete(id) },
    // By id from a map, as the store's read cache answers it.
    connections: { updateRuntime: () => {}, get: (id) => byId.get(id) ?? null },
    getSettings: () => settings,
    getAppSettings: () => appSettings,
    emit: () => {},
  });
  const catalog = { providers: () => [p], combo: (name) => (name === combo.name ? combo : null), combos: () => [combo], aliases: () => appSettings.aliases };
  const connections = { listByProvider: (id) => (id === PROVIDER ? conns : []), secret: () => "k" };
  const routing = m.createRouting(() => settings);
  // Latency samples and settled outcomes, so that strategies reading them have something to weigh.
  const now = clock.now();
  for (const [i, x] of MODELS.entries()) {
    const target = { provider: p, model: x, weight: 3 - i };
    for (let k = 0; k < 20; k++) {
      routing.router.dispatched(combo.name, target);
      routing.router.settled(combo.name, target, `c${k % connectionCount}`, { ok: true, ttfbMs: 200 + 50 * i + k }, now);
    }
  }
  return { clock, engine, catalog, connections, routing, deps: { engine, connections, clock } };
}

/** One request's choice: the plan, then the first candidate of its first target. */
function chooser(m, w, model) {
  const body = { model, messages: [{ role: "user", content: "hi" }] };
  return () => {
    const plan = m.planRequest(model, w.catalog, { router: w.routing.router, body, now: w.clock.now(), random: w.routing.random });
    const first = m.candidatesFor(plan.targets[0], w.deps, new m.SelectionLog(), null, null).next();
    if (first.done) throw new Error(`no candidate for ${model}`);
    return first.value.connection;
  };
}

function timeBatch(choose, iterations) {
  let sink = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) sink += choose().id.length;
  const ns = Number(process.hrtime.bigint() - t0);
  if (sink === 0) throw new Error("nothing was chosen");
  return ns / iterations / 1000;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

/**
 * µs per request for each connection count, direct model and combo; median of `batches` batches
 * of `iterations` after a warm-up of the same size, so V8 has optimised the path before timing.
 */
export async function measureSelection(root, cfg) {
  const m = await load(root);
  const cases = [];
  for (const n of cfg.connectionCounts) {
    cases.push({ name: `direct ${PROVIDER}/m1`, connections: n, choose: chooser(m, world(m, n, "priority"), `${PROVIDER}/m1`) });
    cases.push({ name: `combo of 3, ${cfg.strategy}`, connections: n, choose: chooser(m, world(m, n, cfg.strategy), "bench") });
  }
  const results = [];
  for (const c of cases) {
    timeBatch(c.choose, cfg.iterations);
    const batches = Array.from({ length: cfg.batches }, () => timeBatch(c.choose, cfg.iterations));
    const us = median(batches);
    results.push({
      case: c.name,
      connections: c.connections,
      iterations: cfg.iterations,
      batches: cfg.batches,
      usPerRequest: round(us),
      minUs: round(Math.min(...batches)),
      maxUs: round(Math.max(...batches)),
      withinGoal: us <= SELECTION_GOAL_US,
    });
  }
  return { goalUs: SELECTION_GOAL_US, strategy: cfg.strategy, results };
}

const round = (v) => Math.round(v * 1000) / 1000;
