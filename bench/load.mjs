// The load client: a fixed number of POSTs at a fixed concurrency over one undici keep-alive
// Pool per target, each response read to its last byte. Latency is the time from sending the
// request to the end of the response body (for SSE: the whole stream).
import { Pool } from "undici";

/** One keep-alive client per target, reused by every round so connections stay warm. */
export function createTargetClient(origin, concurrency) {
  return new Pool(origin, { connections: concurrency, pipelining: 1, keepAliveTimeout: 30_000 });
}

/** Sends one request and returns {status, text}: for checking a scenario works before timing it. */
export async function probe(pool, request, timeoutMs) {
  const { statusCode, headers, body } = await pool.request({ ...request, method: "POST", headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  return { status: statusCode, contentType: String(headers["content-type"] ?? ""), text: await body.text() };
}

/**
 * Runs `count` requests, `concurrency` at a time. Returns the successful latencies (ms,
 * unsorted), the wall time, the failures and the response bytes received.
 */
export async function runLoad(pool, request, { count, concurrency, timeoutMs }) {
  const latencies = new Float64Array(count);
  let ok = 0;
  let issued = 0;
  let failed = 0;
  let bytes = 0;
  const failures = new Map();
  const options = { ...request, method: "POST", headersTimeout: timeoutMs, bodyTimeout: timeoutMs };

  async function worker() {
    while (issued < count) {
      issued += 1;
      const t0 = performance.now();
      try {
        const { statusCode, body } = await pool.request(options);
        let n = 0;
        for await (const chunk of body) n += chunk.length;
        if (statusCode !== 200) throw new Error(`HTTP ${statusCode}`);
        latencies[ok++] = performance.now() - t0;
        bytes += n;
      } catch (err) {
        failed += 1;
        const key = err?.code ?? err?.message ?? String(err);
        failures.set(key, (failures.get(key) ?? 0) + 1);
      }
    }
  }

  const start = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  const wallMs = performance.now() - start;
  return { latencies: latencies.subarray(0, ok), ok, failed, failures: Object.fromEntries(failures), bytes, wallMs };
}

/** Nearest-rank percentile of an ascending-sorted array. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** Merges per-round results of one target into totals and latency percentiles. */
export function summarise(rounds) {
  const ok = rounds.reduce((s, r) => s + r.ok, 0);
  const all = new Float64Array(ok);
  let at = 0;
  for (const r of rounds) {
    all.set(r.latencies, at);
    at += r.latencies.length;
  }
  all.sort();
  const wallMs = rounds.reduce((s, r) => s + r.wallMs, 0);
  const failures = {};
  for (const r of rounds) for (const [k, v] of Object.entries(r.failures)) failures[k] = (failures[k] ?? 0) + v;
  return {
    requests: ok,
    failed: rounds.reduce((s, r) => s + r.failed, 0),
    failures,
    wallMs: round(wallMs, 1),
    throughputRps: round(wallMs > 0 ? (ok * 1000) / wallMs : NaN, 1),
    latencyMs: {
      p50: round(percentile(all, 50), 3),
      p95: round(percentile(all, 95), 3),
      p99: round(percentile(all, 99), 3),
      max: round(all.length ? all[all.length - 1] : NaN, 3),
      mean: round(all.length ? all.reduce((s, v) => s + v, 0) / all.length : NaN, 3),
    },
    avgResponseBytes: ok ? Math.round(rounds.reduce((s, r) => s + r.bytes, 0) / ok) : 0,
  };
}

export function round(value, digits) {
  if (!Number.isFinite(value)) return null;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
