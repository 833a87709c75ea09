// What admission adds to a request that does not wait (issue 10: at most 0.1 ms at p50).
// In-process on the built admit stage, no HTTP: each sample is one `await admit()` and its
// release with an attempt observation, as the pipeline does it (the job-expiration signal the
// upstream call listens to is made inside admit). Three worlds:
//   noop      the stage with no admission control (createAdmission), the baseline;
//   unlimited a connection with nothing configured (not protected, no cap);
//   limited   a queue-protected apikey connection with a connection cap, a model cap and a
//             bounded queue depth, never full (so nothing waits, but every gate is taken).
// `node bench/admission.mjs` prints the figures; `measureAdmission()` returns them.
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";

export const ADMISSION_GOAL_US = 100;

const here = path.dirname(fileURLToPath(import.meta.url));
const defaultRoot = path.resolve(here, "..");

function provider(category) {
  return {
    id: "p",
    format: "openai",
    baseUrl: "http://127.0.0.1:9/v1",
    category,
    models: ["m1"],
    quotaFamilies: {},
    passthroughModels: false,
    rateLimitCooldownSeconds: null,
    options: {},
    createdAt: 0,
    updatedAt: 0,
  };
}

function connection(fields) {
  return {
    id: "c1",
    provider: "p",
    name: "key",
    priority: 0,
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
    ...fields,
  };
}

async function load(root) {
  const dist = (p) => import(pathToFileURL(path.join(root, "dist", p)).href);
  const [control, admit, settings] = await Promise.all([
    dist("main/gateway/pipeline/admission/control.js"),
    dist("main/gateway/pipeline/admit.js"),
    dist("shared/resilienceSettings.js"),
  ]);
  return { ...control, ...admit, ...settings };
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

async function sample(stage, request, count) {
  const observed = { headers: { "x-ratelimit-remaining-requests": "99", "x-ratelimit-reset-requests": "1s" }, verdict: null };
  const times = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const admission = await stage.admit(request);
    if (!admission.admitted) throw new Error(`refused: ${admission.refusal.code}`);
    admission.release(observed);
    times[i] = performance.now() - t0;
  }
  return Array.from(times).sort((a, b) => a - b);
}

/** Runs `rounds` interleaved rounds of each world and keeps each world's best p50 (least disturbed). */
export async function measureAdmission(root = defaultRoot, { samples = 20_000, rounds = 5 } = {}) {
  const m = await load(root);
  const settings = { ...m.DEFAULT_RESILIENCE_SETTINGS, requestQueue: { ...m.DEFAULT_RESILIENCE_SETTINGS.requestQueue, maxQueueDepth: 100 } };
  const clock = { now: () => Date.now() };
  const signal = new AbortController().signal;
  const worlds = {
    noop: { stage: m.createAdmission(), request: { provider: provider("oauth"), connection: connection({}), model: "m1", signal } },
    unlimited: { stage: m.createAdmissionControl({ clock, settings: () => settings }), request: { provider: provider("oauth"), connection: connection({}), model: "m1", signal } },
    limited: {
      stage: m.createAdmissionControl({ clock, settings: () => settings, onChange: () => undefined }),
      request: { provider: provider("apikey"), connection: connection({ maxConcurrent: 4, rateLimitOverrides: { modelConcurrency: { m1: 2 } } }), model: "m1", signal },
    },
  };
  const best = { noop: Infinity, unlimited: Infinity, limited: Infinity };
  const p99 = { noop: Infinity, unlimited: Infinity, limited: Infinity };
  for (let round = 0; round < rounds; round++) {
    for (const [name, w] of Object.entries(worlds)) {
      const sorted = await sample(w.stage, w.request, samples);
      best[name] = Math.min(best[name], percentile(sorted, 0.5) * 1000);
      p99[name] = Math.min(p99[name], percentile(sorted, 0.99) * 1000);
    }
  }
  for (const w of Object.values(worlds)) await w.stage.close?.();
  const us = (x) => Math.round(x * 100) / 100;
  const added = { unlimited: us(best.unlimited - best.noop), limited: us(best.limited - best.noop) };
  return {
    unit: "µs",
    samples,
    rounds,
    p50: { noop: us(best.noop), unlimited: us(best.unlimited), limited: us(best.limited) },
    p99: { noop: us(p99.noop), unlimited: us(p99.unlimited), limited: us(p99.limited) },
    addedP50: added,
    goalUs: ADMISSION_GOAL_US,
    withinGoal: added.unlimited <= ADMISSION_GOAL_US && added.limited <= ADMISSION_GOAL_US,
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const figures = await measureAdmission();
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
}
