// R20.3 shedding and R20.4 wait-or-switch as decisions (the pipeline's use of them:
// tests/integration/gateway/codingAgent), and the warm-cache book they read (R20.2).
import { describe, expect, it } from "vitest";
import { DEFAULT_RESILIENCE_SETTINGS } from "../../../shared/resilienceSettings.js";
import type { RequestLogEntry } from "../../../shared/types.js";
import type { Verdict } from "../../../main/engine/ports.js";
import { decideWaitOrSwitch, type WarmFailure } from "../../../main/engine/agentPolicy.js";
import { shedBackground } from "../../../main/gateway/features/trafficClasses.js";
import { WARM_CACHE_TTL_MS, WarmCaches } from "../../../main/gateway/features/warmCache/warmCaches.js";

const settings = DEFAULT_RESILIENCE_SETTINGS;
const verdict = (reason: Verdict["reason"], retryHintMs: number | null): Verdict => ({
  reason,
  scope: "connection",
  status: 429,
  retryHintMs,
  breakerEligible: false,
  failover: true,
  terminal: null,
  cooldownMs: null,
  message: "",
});
const failure = (over: Partial<WarmFailure> = {}): WarmFailure => ({
  trafficClass: "main",
  verdict: verdict("rate_limit", 2_000),
  connectionId: "a",
  warmConnectionId: "a",
  blockedMs: 2_000,
  waitedMs: 0,
  ...over,
});

describe("R20.4 wait or switch", () => {
  it("R20.4 waits for the warm connection when its block is within maxWaitMs, for as long as the block or the hint, whichever is longer", () => {
    expect(decideWaitOrSwitch(settings, failure())).toEqual({
      waitMs: 2_000,
      record: { choice: "wait", reason: "within_max_wait", connectionId: "a", hintMs: 2_000, waitedMs: 2_000, maxWaitMs: settings.waitOrSwitch.maxWaitMs },
    });
    expect(decideWaitOrSwitch(settings, failure({ blockedMs: 3_500 }))?.waitMs).toBe(3_500);
  });

  it("R20.4 switches when the wait would pass maxWaitMs (counting what the request already waited), when off, or for background work", () => {
    expect(decideWaitOrSwitch(settings, failure({ blockedMs: 9_000 }))?.record).toMatchObject({ choice: "switch", reason: "longer_than_max_wait" });
    expect(decideWaitOrSwitch(settings, failure({ waitedMs: 7_000 }))?.record).toMatchObject({ choice: "switch", reason: "longer_than_max_wait" });
    expect(decideWaitOrSwitch(settings, failure({ blockedMs: null }))?.record).toMatchObject({ choice: "switch", reason: "no_end_known" });
    expect(decideWaitOrSwitch({ ...settings, waitOrSwitch: { enabled: false, maxWaitMs: 8_000 } }, failure())?.record).toMatchObject({ choice: "switch", reason: "disabled" });
    expect(decideWaitOrSwitch(settings, failure({ trafficClass: "background" }))?.record).toMatchObject({ choice: "switch", reason: "background" });
  });

  it("R20.4 has nothing to decide off the warm connection or for a failure that is no rate limit", () => {
    expect(decideWaitOrSwitch(settings, failure({ warmConnectionId: "b" }))).toBeNull();
    expect(decideWaitOrSwitch(settings, failure({ warmConnectionId: null }))).toBeNull();
    expect(decideWaitOrSwitch(settings, failure({ verdict: verdict("auth_error", null) }))).toBeNull();
  });
});

describe("R20.3 shedding background work", () => {
  it("R20.3 a background request that meets a rate limit is shed with the hint as Retry-After; main work and other failures are not", () => {
    expect(shedBackground("background", settings, verdict("rate_limit", 3_000))).toMatchObject({ status: 429, code: "traffic_shed", retryAfterMs: 3_000 });
    expect(shedBackground("main", settings, verdict("rate_limit", 3_000))).toBeNull();
    expect(shedBackground("background", settings, verdict("auth_error", null))).toBeNull();
    expect(shedBackground("background", { ...settings, trafficClasses: { enabled: false, mainHeadroom: 1 } }, verdict("rate_limit", 3_000))).toBeNull();
  });
});

describe("R20.2 the warm-cache book", () => {
  type Row = Pick<RequestLogEntry, "status" | "connectionId" | "cacheReadTokens" | "cacheWriteTokens">;
  const row = (connectionId: string, cacheRead: number, cacheWrite = 0): Row => ({ status: 200, connectionId, cacheReadTokens: cacheRead, cacheWriteTokens: cacheWrite });

  it("R20.2 the connection that read or wrote a session's cache holds it until the cache's lifetime ends", () => {
    const book = new WarmCaches();
    book.answered("s", row("a", 0, 2_000), 0);
    expect(book.holder("s", 1_000)).toBe("a");
    book.answered("s", row("b", 1_500), 2_000);
    expect(book.holder("s", 2_001)).toBe("b");
    expect(book.holder("s", 2_000 + WARM_CACHE_TTL_MS)).toBeNull();
    expect(book.holder(null, 0)).toBeNull();
  });

  it("R20.2 an answer elsewhere without a cache ends the warm hold; a failed answer changes nothing", () => {
    const book = new WarmCaches();
    book.answered("s", row("a", 900), 0);
    book.answered("s", { ...row("b", 0), status: 429 }, 1);
    expect(book.holder("s", 2)).toBe("a");
    book.answered("s", row("b", 0), 3);
    expect(book.holder("s", 4)).toBeNull();
  });
});
