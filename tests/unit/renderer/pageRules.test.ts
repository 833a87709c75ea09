// Pure rules behind the dashboard pages: durations of the error rules card (R6.3), form error
// placement (R10.1), combo target order (R11.1), the request log's live filter (R15.1/R15.2),
// the health charts' series and reload throttle (R14.2) and countdowns (R6.1).
import { afterEach, describe, expect, it, vi } from "vitest";
import type { RequestStats, RequestStatsBucket } from "../../../shared/apiTypes.js";
import type { RequestLogEntry } from "../../../shared/types.js";
import { formErrorsFrom, scopeErrors, stripPath } from "../../../renderer/src/apiErrors.js";
import { ContractCallError } from "../../../renderer/src/callError.js";
import { remainingAt } from "../../../renderer/src/countdown.js";
import { describeDuration, durationMs } from "../../../renderer/src/durations.js";
import { niceMax, seriesFromStats } from "../../../renderer/src/pages/health/metrics.js";
import { moveItem, providerOf, toTargets } from "../../../renderer/src/pages/combos/targets.js";
import { matchesFilters, NO_FILTERS, prependEntry } from "../../../renderer/src/stores/requestLog.js";
import { createThrottle } from "../../../renderer/src/stores/throttle.js";

function entry(over: Partial<RequestLogEntry>): RequestLogEntry {
  return {
    id: "r",
    time: 0,
    clientFormat: "openai",
    model: "sim/m1",
    combo: null,
    provider: "sim",
    connectionId: "c",
    status: 200,
    errorCode: null,
    latencyMs: 10,
    ttfbMs: 5,
    stream: false,
    inputTokens: null,
    outputTokens: null,
    attempts: [],
    ...over,
  };
}

describe("error rule durations", () => {
  it("R6.3 offers Default, 30 min, 1 h, 5 h, 24 h and custom 1–43 200 minutes", () => {
    expect(durationMs({ choice: "default", customMinutes: "" })).toEqual({ ok: true, ms: undefined });
    expect(durationMs({ choice: "30m", customMinutes: "" })).toEqual({ ok: true, ms: 1_800_000 });
    expect(durationMs({ choice: "1h", customMinutes: "" })).toEqual({ ok: true, ms: 3_600_000 });
    expect(durationMs({ choice: "5h", customMinutes: "" })).toEqual({ ok: true, ms: 18_000_000 });
    expect(durationMs({ choice: "24h", customMinutes: "" })).toEqual({ ok: true, ms: 86_400_000 });
    expect(durationMs({ choice: "custom", customMinutes: "1" })).toEqual({ ok: true, ms: 60_000 });
    expect(durationMs({ choice: "custom", customMinutes: "43200" })).toEqual({ ok: true, ms: 2_592_000_000 });
    for (const bad of ["0", "43201", "1.5", "", "x"]) expect(durationMs({ choice: "custom", customMinutes: bad }).ok).toBe(false);
    expect([undefined, 1_800_000, 5_400_000, 1_500].map(describeDuration)).toEqual(["Default", "30 min", "90 min", "1,500 ms"]);
  });
});

describe("form errors", () => {
  it("R10.1 puts an error with a path next to its field, without repeating the path", () => {
    const err = new ContractCallError("invalid_request", "providerErrorRules.2.status: a rule needs a status", 400, "providerErrorRules.2.status");
    expect(formErrorsFrom(err)).toEqual({ fields: { "providerErrorRules.2.status": "a rule needs a status" }, general: null });
    expect(scopeErrors(formErrorsFrom(err), "providerErrorRules.2")).toEqual({ fields: { status: "a rule needs a status" }, general: null });
    expect(scopeErrors(formErrorsFrom(err), "providerErrorRules.1")).toEqual({ fields: {}, general: "providerErrorRules.2.status: a rule needs a status" });
    expect(formErrorsFrom(new ContractCallError("not_found", "no such provider", 404))).toEqual({ fields: {}, general: "no such provider" });
    expect(stripPath("other: x", "a.b")).toBe("other: x");
  });
});

describe("combo targets", () => {
  it("R11.1 moves a target to a new position and leaves out-of-range moves alone", () => {
    expect(moveItem(["a", "b", "c"], 2, 0)).toEqual(["c", "a", "b"]);
    expect(moveItem(["a", "b", "c"], 0, 1)).toEqual(["b", "a", "c"]);
    expect(moveItem(["a", "b", "c"], 0, 3)).toEqual(["a", "b", "c"]);
    expect(moveItem(["a", "b", "c"], -1, 0)).toEqual(["a", "b", "c"]);
  });

  it("R11.1 sends model, pinned connection and weight only when given", () => {
    const drafts = [
      { key: "1", model: " sim/m1 ", connectionId: "", weight: "" },
      { key: "2", model: "b/m2", connectionId: "c-2", weight: "3" },
    ];
    expect(toTargets(drafts)).toEqual([{ model: "sim/m1" }, { model: "b/m2", connectionId: "c-2", weight: 3 }]);
    expect(providerOf("sim/m1")).toBe("sim");
    expect(providerOf("fast")).toBeNull();
  });
});

describe("request log", () => {
  it("R15.1 live entries follow the same filters as GET /api/logs", () => {
    const e = entry({ provider: "sim", model: "sim/m1", status: 429 });
    expect(matchesFilters(e, NO_FILTERS)).toBe(true);
    expect(matchesFilters(e, { ...NO_FILTERS, provider: "sim" })).toBe(true);
    expect(matchesFilters(e, { ...NO_FILTERS, provider: "other" })).toBe(false);
    expect(matchesFilters(e, { ...NO_FILTERS, model: "sim/m1", status: "429" })).toBe(true);
    expect(matchesFilters(e, { ...NO_FILTERS, status: "200" })).toBe(false);
  });

  it("R15.2 a live entry goes on top, once, and the list stays one page long", () => {
    const list = [entry({ id: "b", time: 2 }), entry({ id: "a", time: 1 })];
    expect(prependEntry(list, entry({ id: "c", time: 3 })).map((e) => e.id)).toEqual(["c", "b", "a"]);
    expect(prependEntry(list, entry({ id: "b", time: 2 })).map((e) => e.id)).toEqual(["b", "a"]);
    expect(prependEntry(list, entry({ id: "c", time: 3 }), 2).map((e) => e.id)).toEqual(["c", "b"]);
  });
});

describe("health charts", () => {
  const HOUR = 3_600_000;
  const BUCKET = 300_000;
  /** Stats as GET /api/monitoring/stats answers at `until`: 12 aligned buckets, the last one current. */
  function stats(until: number, providers: Record<string, Record<number, Partial<RequestStatsBucket>>>): RequestStats {
    const since = Math.floor(until / BUCKET) * BUCKET - 11 * BUCKET;
    return {
      windowMs: HOUR,
      bucketMs: BUCKET,
      since,
      until,
      providers: Object.entries(providers).map(([provider, filled]) => ({
        provider,
        buckets: Array.from({ length: 12 }, (_, i) => ({
          start: since + i * BUCKET,
          requests: 0,
          errors: 0,
          latencyMsSum: 0,
          meanLatencyMs: null,
          ...filled[i],
        })),
      })),
    };
  }

  it("R14.2 turns the backend's buckets into per-provider series of requests, errors and mean latency", () => {
    const until = 10 * HOUR + 60_000;
    const series = seriesFromStats(
      stats(until, {
        b: { 0: { requests: 1, latencyMsSum: 50, meanLatencyMs: 50 } },
        sim: { 11: { requests: 2, errors: 1, latencyMsSum: 400, meanLatencyMs: 200 } },
      }),
      0,
    );
    expect(series.map((s) => s.provider)).toEqual(["b", "sim"]);
    const sim = series[1];
    expect(sim.requests).toHaveLength(12);
    expect(sim.requests[11]).toBe(2);
    expect(sim.errors[11]).toBe(1);
    expect(sim.latency[11]).toBe(200);
    expect(sim.latency[0]).toBeNull();
    expect(series[0].requests[0]).toBe(1);
  });

  it("R14.2 slides the window by whole buckets as local time passes, dropping providers left without requests", () => {
    const until = 10 * HOUR + 60_000;
    const data = stats(until, {
      b: { 0: { requests: 1, latencyMsSum: 50, meanLatencyMs: 50 } },
      sim: { 11: { requests: 2, errors: 1, latencyMsSum: 400, meanLatencyMs: 200 } },
    });
    // Still inside the current bucket: nothing moves.
    expect(seriesFromStats(data, 3 * 60_000).map((s) => s.requests[11])).toEqual([0, 2]);
    // One boundary later the oldest bucket (b's only request) is gone and an empty one is current.
    const later = seriesFromStats(data, 5 * 60_000);
    expect(later.map((s) => s.provider)).toEqual(["sim"]);
    expect(later[0].requests.slice(10)).toEqual([2, 0]);
    expect(later[0].latency.slice(10)).toEqual([200, null]);
    // A clock read before the data arrived does not move the window backwards.
    expect(seriesFromStats(data, -10 * 60_000).map((s) => s.requests[11])).toEqual([0, 2]);
    expect(seriesFromStats(data, 2 * HOUR)).toEqual([]);
  });

  it("R14.2 rounds the chart axis up to 1, 2 or 5 times a power of ten", () => {
    expect([0, 1, 3, 7, 12, 180, 1_001].map(niceMax)).toEqual([1, 1, 5, 10, 20, 200, 2_000]);
  });
});

describe("health chart reloads", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("R14.2 a burst of request events reloads the stats at most once per second, and the last event is never dropped", () => {
    vi.useFakeTimers({ now: 0 });
    let runs = 0;
    const throttle = createThrottle(() => (runs += 1), 1_000);
    throttle.request();
    expect(runs).toBe(1);
    for (let i = 0; i < 50; i++) {
      vi.advanceTimersByTime(10);
      throttle.request();
    }
    expect(runs).toBe(1);
    vi.advanceTimersByTime(499);
    expect(runs).toBe(1);
    vi.advanceTimersByTime(1);
    expect(runs).toBe(2);
    // A load made for another reason (the first one, a stream reopen) starts the interval too.
    vi.advanceTimersByTime(5_000);
    throttle.ran();
    throttle.request();
    expect(runs).toBe(2);
    vi.advanceTimersByTime(1_000);
    expect(runs).toBe(3);
    throttle.request();
    throttle.cancel();
    vi.advanceTimersByTime(5_000);
    expect(runs).toBe(3);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("countdowns", () => {
  it("R6.1 counts down from the server's remainingMs by the local time elapsed since loading", () => {
    expect(remainingAt(120_000, 1_000, 1_000)).toBe(120_000);
    expect(remainingAt(120_000, 1_000, 31_000)).toBe(90_000);
    expect(remainingAt(5_000, 1_000, 60_000)).toBe(0);
    expect(remainingAt(5_000, 2_000, 1_000)).toBe(5_000);
  });
});
