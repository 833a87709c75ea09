import { describe, expect, it } from "vitest";
import { classifyUpstreamFailure } from "../../../main/engine/classifier.js";
import { egressFamilyOf, EgressSiblingCooldowns, locksEgressBucket, planSiblingCooldowns } from "../../../main/engine/egressBucket.js";
import { connection, fail, failureInput, harness, provider, settingsWith, T0 } from "./fixtures.js";

const opencode = provider({ id: "opencode" });
const verdictOf = (status: number, bodyText = "slow down") =>
  classifyUpstreamFailure(failureInput({ provider: opencode, status, bodyText }), { settings: settingsWith(), now: T0 });

describe("egress-bucketed lock (R12.5)", () => {
  it("R12.5 the opencode family is recognised by id or by its host; others are not bucketed", () => {
    expect(egressFamilyOf(opencode)).toBe("opencode");
    expect(egressFamilyOf(provider({ id: "oc-zen", baseUrl: "https://opencode.ai/zen/v1" }))).toBe("opencode");
    expect(egressFamilyOf(provider({ id: "openai", baseUrl: "https://api.openai.com/v1" }))).toBeNull();
  });

  it("R12.5 only a 429 classified rate_limit or quota_exhausted locks the bucket", () => {
    expect(locksEgressBucket(opencode, verdictOf(429))).toBe(true);
    expect(locksEgressBucket(opencode, verdictOf(429, "monthly usage limit reached, quota exceeded"))).toBe(true);
    expect(locksEgressBucket(opencode, verdictOf(503))).toBe(false);
    expect(locksEgressBucket(opencode, verdictOf(429, "too many concurrent requests"))).toBe(false);
    expect(locksEgressBucket(provider({ id: "other" }), verdictOf(429))).toBe(false);
  });

  it("R12.5 siblings already terminal, cooling longer or opted out of cooling are untouched; the rest cool, never terminal", () => {
    const verdict = verdictOf(429);
    const row = (id: string, over: Partial<ReturnType<typeof connection>> = {}) => {
      const c = connection({ id, ...over });
      return { connection: c, runtime: c };
    };
    const planned = planSiblingCooldowns(
      [
        row("fresh"),
        row("shorter", { testStatus: "unavailable", rateLimitedUntil: T0 + 1_000 }),
        row("longer", { testStatus: "unavailable", rateLimitedUntil: T0 + 900_000 }),
        row("banned", { testStatus: "banned" }),
        row("credits", { testStatus: "credits_exhausted" }),
        row("optout", { disableCooling: true }),
      ],
      verdict,
      T0 + 600_000,
      T0,
    );
    expect(planned.map((p) => p.connectionId)).toEqual(["fresh", "shorter"]);
    expect(planned[0]?.patch).toMatchObject({ testStatus: "unavailable", rateLimitedUntil: T0 + 600_000 });
  });

  it("R12.5 a sibling cooldown is seen by selection until it ends, lazily", () => {
    const book = new EgressSiblingCooldowns();
    book.set("c2", T0 + 5_000);
    expect(book.remainingMs("c2", T0)).toBe(5_000);
    expect(book.remainingMs("c2", T0 + 5_000)).toBe(0);
    expect(book.remainingMs("c3", T0)).toBe(0);
  });

  it("R12.5 an egress-bucketed 429 cools the connection even with model lockout on, then its IP siblings until the same instant", () => {
    const h = harness({
      connections: [connection({ id: "c1" }), connection({ id: "c2" }), connection({ id: "c3", testStatus: "banned" })],
      settings: { modelLockout: { enabled: true } },
    });
    const verdict = fail(h, { provider: opencode, status: 429, bodyText: "slow down", headers: { "retry-after": "600" } });
    expect(h.engine.listModelCooldowns().items).toEqual([]);
    const until = h.store.row("c1").rateLimitedUntil;
    expect(until).toBe(T0 + 600_000);
    const ctx = { provider: opencode, connection: h.store.row("c1"), model: "m", probe: false };
    expect(h.engine.coolEgressSiblings(ctx, verdict, [h.store.row("c1"), h.store.row("c2"), h.store.row("c3")])).toEqual(["c2"]);
    expect(h.store.row("c2")).toMatchObject({ testStatus: "unavailable", rateLimitedUntil: until });
    expect(h.store.row("c3").testStatus).toBe("banned");
    expect(h.engine.selectConnections(opencode, "m", [h.store.row("c2")]).excluded[0]?.reason).toBe("cooling_down");
  });
});
