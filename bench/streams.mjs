// Streams measured one at a time (time to first byte and total time of a 50-chunk SSE reply, no
// queueing) and many at once (memory held by `n` concurrent streams).
import { createTargetClient, percentile, round } from "./load.mjs";
import { procStats } from "./processes.mjs";

async function timeOne(pool, req) {
  const t0 = performance.now();
  const { statusCode, body } = await pool.request({ ...req, method: "POST", headersTimeout: 30_000, bodyTimeout: 30_000 });
  let first = null;
  for await (const _chunk of body) first ??= performance.now() - t0;
  if (statusCode !== 200) throw new Error(`HTTP ${statusCode}`);
  return { ttfb: first ?? performance.now() - t0, total: performance.now() - t0 };
}

const keysOf = (targets) => ["floor", "undici", "switchyard", "compare"].filter((k) => targets[k]);

/** p50/p99 of TTFB and total per target, interleaved rounds of sequential requests. */
export async function measureStreams(targets, cfg, { requestFor, pools }) {
  const { requests, rounds } = cfg.stream;
  const KEYS = keysOf(targets);
  const samples = Object.fromEntries(KEYS.map((k) => [k, { ttfb: [], total: [] }]));
  const clients = Object.fromEntries(KEYS.map((k) => [k, createTargetClient(targets[k].url, 1)]));
  pools.push(...Object.values(clients));
  const reqs = Object.fromEntries(KEYS.map((k) => [k, requestFor(k)]));
  for (const k of KEYS) for (let i = 0; i < 50; i++) await timeOne(clients[k], reqs[k]);
  const perRound = Math.ceil(requests / rounds);
  for (let r = 0; r < rounds; r++) {
    for (const k of r % 2 === 0 ? KEYS : [...KEYS].reverse()) {
      for (let i = 0; i < perRound; i++) {
        const s = await timeOne(clients[k], reqs[k]);
        samples[k].ttfb.push(s.ttfb);
        samples[k].total.push(s.total);
      }
    }
  }
  const out = {};
  for (const k of KEYS) {
    const ttfb = Float64Array.from(samples[k].ttfb).sort();
    const total = Float64Array.from(samples[k].total).sort();
    out[k] = {
      ttfbP50: round(percentile(ttfb, 50), 3),
      ttfbP99: round(percentile(ttfb, 99), 3),
      totalP50: round(percentile(total, 50), 3),
      totalP99: round(percentile(total, 99), 3),
    };
  }
  for (const k of KEYS) {
    out[k].addedTtfbP50Ms = round(out[k].ttfbP50 - out.floor.ttfbP50, 3);
    out[k].addedTotalP50Ms = round(out[k].totalP50 - out.floor.totalP50, 3);
  }
  return out;
}

/** RSS before and after `n` streams held open at once (settled for a second after they end). */
export async function measureManyStreams(targets, n, { requestFor, pools }) {
  const out = {};
  for (const k of keysOf(targets)) {
    const pool = createTargetClient(targets[k].url, n);
    pools.push(pool);
    const req = requestFor(k);
    const before = procStats(targets[k].proc.pid).rssKb;
    await Promise.all(Array.from({ length: n }, () => timeOne(pool, req)));
    await new Promise((r) => setTimeout(r, 1000));
    const after = procStats(targets[k].proc.pid);
    out[k] = {
      rssBeforeMb: round(before / 1024, 1),
      rssAfterMb: round(after.rssKb / 1024, 1),
      growthMb: round((after.rssKb - before) / 1024, 1),
      peakMb: round(after.hwmKb / 1024, 1),
    };
  }
  return out;
}
