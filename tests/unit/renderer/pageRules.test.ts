// Pure rules behind the dashboard pages: durations of the error rules card (R6.3), form error
// placement (R10.1), combo target order (R11.1), the request log's live filter (R15.1/R15.2),
// the health charts' buckets (R14.2) and countdowns (R6.1).
import { describe, expect, it } from "vitest";
import type { RequestLogEntry } from "../../../shared/types.js";
import { formErrorsFrom, scopeErrors, stripPath } from "../../../renderer/src/apiErrors.js";
import { ContractCallError } from "../../../renderer/src/callError.js";
import { remainingAt } from "../../../renderer/src/countdown.js";
import { describeDuration, durationMs } from "../../../renderer/src/durations.js";
import { niceMax, providerOfEntry, providerSeries } from "../../../renderer/src/pages/health/metrics.js";
import { moveItem, providerOf, toTargets } from "../../../renderer/src/pages/combos/targets.js";
import { matchesFilters, NO_FILTERS, prependEntry } from "../../../renderer/src/stores/requestLog.js";

function entry(over: Partial<RequestLogEntry>): RequestLogEntry {
  return {
    id: "r", time: 0, clientFormat: "openai", model: "sim/m1", combo: null, provider: "sim", connectionId: "c", status: 200,
    errorCode: null, latencyMs: 10, ttfbMs: 5, stream: false, inputTokens: null, outputTokens: null, attempts: [], ...over,
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
  it("R14.2 buckets requests, errors and mean latency per provider over the last hour", () => {
    const end = 10 * 3_600_000;
    const entries = [
      entry({ id: "1", time: end - 1_000, latencyMs: 100 }),
      entry({ id: "2", time: end - 2_000, latencyMs: 300, status: 503 }),
      entry({ id: "3", time: end - 3_599_000, provider: "b", latencyMs: 50 }),
      entry({ id: "4", time: end - 3_700_000, provider: "old" }),
    ];
    const { series } = providerSeries(entries, end);
    expect(series.map((s) => s.provider)).toEqual(["b", "sim"]);
    const sim = series[1]!;
    expect(sim.requests).toHaveLength(12);
    expect(sim.requests[11]).toBe(2);
    expect(sim.errors[11]).toBe(1);
    expect(sim.latency[11]).toBe(200);
    expect(sim.latency[0]).toBeNull();
    expect(series[0]!.requests[0]).toBe(1);
  });

  it("R14.2 the window ends at the newest entry when the engine clock runs ahead", () => {
    const { end } = providerSeries([entry({ time: 5_000_000 })], 1_000);
    expect(end).toBe(5_000_000);
  });

  it("R14.2 names the provider of a request that never reached one", () => {
    expect(providerOfEntry(entry({ provider: null, attempts: [{ provider: "x", connectionId: null, model: "m", status: 500, verdict: null, latencyMs: 1 }] }))).toBe("x");
    expect(providerOfEntry(entry({ provider: null, model: "flaky/m1" }))).toBe("flaky");
    expect(providerOfEntry(entry({ provider: null, model: "fast" }))).toBe("unrouted");
    expect([0, 1, 3, 7, 12, 180, 1_001].map(niceMax)).toEqual([1, 1, 5, 10, 20, 200, 2_000]);
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
