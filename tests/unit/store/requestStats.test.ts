// RequestLogRepo.stats (R14.2, R15.1): the Health charts' aggregation, done by one GROUP BY over
// the stored log rather than over the newest page the log API returns.
import { afterEach, describe, expect, it } from "vitest";
import type { RequestLogEntry } from "../../../shared/types.js";
import { openHarness, type StoreHarness } from "./storeFixture.js";

const T0 = 1_700_000_100_000; // a multiple of the 5-minute bucket below
const BUCKET = 300_000;

let seq = 0;
function entry(overrides: Partial<RequestLogEntry> = {}): RequestLogEntry {
  seq += 1;
  return {
    id: `stat-${seq}`,
    time: T0,
    clientFormat: "openai",
    model: "p/m",
    combo: null,
    provider: "p",
    connectionId: "c1",
    status: 200,
    errorCode: null,
    latencyMs: 100,
    ttfbMs: 10,
    stream: false,
    inputTokens: null,
    outputTokens: null,
    attempts: [],
    ...overrides,
  };
}

describe("request log stats", () => {
  let h: StoreHarness;
  afterEach(() => h.cleanup());

  it("R14.2 groups requests per bucket and provider with error counts and latency sums", () => {
    h = openHarness();
    const logs = h.store.logs;
    logs.append(entry({ time: T0, latencyMs: 100 }));
    logs.append(entry({ time: T0 + BUCKET - 1, latencyMs: 300, status: 503, errorCode: "upstream_error" }));
    // A stream that failed after its 200 went out is an error too.
    logs.append(entry({ time: T0 + 10, latencyMs: 50, status: 200, errorCode: "upstream_stream_error" }));
    logs.append(entry({ time: T0 + BUCKET, latencyMs: 70, status: 429 }));
    logs.append(entry({ time: T0 + 5, provider: "q", latencyMs: 20 }));
    logs.append(entry({ time: T0 + 2 * BUCKET + 1, provider: "q", latencyMs: 30, status: 499 }));
    expect(logs.stats({ since: T0, bucketMs: BUCKET })).toEqual([
      { bucketStart: T0, provider: "p", requests: 3, errors: 2, latencyMsSum: 450 },
      { bucketStart: T0, provider: "q", requests: 1, errors: 0, latencyMsSum: 20 },
      { bucketStart: T0 + BUCKET, provider: "p", requests: 1, errors: 1, latencyMsSum: 70 },
      { bucketStart: T0 + 2 * BUCKET, provider: "q", requests: 1, errors: 1, latencyMsSum: 30 },
    ]);
  });

  it("R14.2 counts from `since` (inclusive) to `until` (exclusive) and buckets from `since`", () => {
    h = openHarness();
    const logs = h.store.logs;
    logs.append(entry({ time: T0 - 1 }));
    logs.append(entry({ time: T0 }));
    logs.append(entry({ time: T0 + 2 * BUCKET - 1 }));
    logs.append(entry({ time: T0 + 2 * BUCKET }));
    expect(logs.stats({ since: T0, bucketMs: BUCKET, until: T0 + 2 * BUCKET }).map((r) => [r.bucketStart, r.requests])).toEqual([
      [T0, 1],
      [T0 + BUCKET, 1],
    ]);
    // Buckets start at `since`, whatever its alignment.
    expect(logs.stats({ since: T0 - 1, bucketMs: BUCKET }).map((r) => [r.bucketStart, r.requests])).toEqual([
      [T0 - 1, 2],
      [T0 - 1 + 2 * BUCKET, 2],
    ]);
    expect(logs.stats({ since: T0 + 3 * BUCKET, bucketMs: BUCKET })).toEqual([]);
  });

  it("R14.2 keeps requests that never reached a provider in a group of their own", () => {
    h = openHarness();
    h.store.logs.append(entry({ provider: null, connectionId: null, status: 503, errorCode: "provider_circuit_open", latencyMs: 2 }));
    h.store.logs.append(entry({ provider: null, connectionId: null, status: 404, errorCode: "model_not_found", latencyMs: 1 }));
    h.store.logs.append(entry());
    expect(h.store.logs.stats({ since: T0, bucketMs: BUCKET })).toEqual([
      { bucketStart: T0, provider: null, requests: 2, errors: 2, latencyMsSum: 3 },
      { bucketStart: T0, provider: "p", requests: 1, errors: 0, latencyMsSum: 100 },
    ]);
  });

  it("R15.1 counts every stored row, beyond the 1 000 the log API lists, including rows still buffered", () => {
    h = openHarness();
    for (let i = 0; i < 2_500; i++) h.store.logs.append(entry({ time: T0 + i, status: i % 10 === 0 ? 500 : 200, latencyMs: 2 }));
    const [row] = h.store.logs.stats({ since: T0, bucketMs: BUCKET });
    expect(row).toEqual({ bucketStart: T0, provider: "p", requests: 2_500, errors: 250, latencyMsSum: 5_000 });
  });

  it("R15.1 reads the time range through the existing (time, seq) index", () => {
    h = openHarness();
    const plan = h
      .raw()
      .prepare("EXPLAIN QUERY PLAN SELECT provider, COUNT(*) FROM request_log WHERE time >= ? AND time < ? GROUP BY provider")
      .all(T0, T0 + BUCKET) as Array<{ detail: string }>;
    expect(plan.map((p) => p.detail).join("\n")).toMatch(/SEARCH request_log USING INDEX request_log_newest \(time>\? AND time<\?\)/);
  });

  it("R14.2 refuses a bucket size that is not a positive integer", () => {
    h = openHarness();
    expect(() => h.store.logs.stats({ since: T0, bucketMs: 0 })).toThrow(RangeError);
    expect(() => h.store.logs.stats({ since: T0, bucketMs: 1.5 })).toThrow(RangeError);
    expect(() => h.store.logs.stats({ since: Number.NaN, bucketMs: BUCKET })).toThrow(RangeError);
  });
});
