// The plan stage's strategy step (R11.1, D11) and nested-combo expansion, over in-memory ports:
// which data reaches a strategy (weight, modelInfo, learned quota), the per-combo in-memory book,
// and the fallback of an unknown strategy name to priority.
import { describe, expect, it } from "vitest";
import type { Combo } from "../../../shared/types.js";
import { planRequest } from "../../../main/gateway/pipeline/plan.js";
import { expandCombo, HARD_COMBO_DEPTH } from "../../../main/gateway/context/resolve.js";
import { ComboRouter } from "../../../main/gateway/pipeline/routing/comboRouter.js";
import { LearnedQuotas, quotaFromHeaders } from "../../../main/gateway/pipeline/routing/learnedQuota.js";
import type { PinnedTarget } from "../../../main/gateway/pipeline/routing/sessionTarget.js";
import { parseWindowReset } from "../../../main/engine/retryHints.js";
import { combo, ports, provider, T0 } from "./fixtures.js";

const alpha = provider({ id: "alpha", models: ["m1"], modelInfo: { m1: { inputPricePerMTok: 3, contextWindow: 200_000 } } });
const beta = provider({ id: "beta", models: ["m1"], modelInfo: { m1: { inputPricePerMTok: 1, contextWindow: 8_000 } } });

function withStrategy(c: Combo, strategy: string, weights?: number[]): Combo {
  return { ...c, strategy, targets: c.targets.map((t, i) => (weights ? { ...t, weight: weights[i] } : t)) };
}

const served = (targets: Array<{ provider: { id: string } }> | undefined) => targets?.map((t) => t.provider.id);

describe("combo routing in the plan stage (R11.1)", () => {
  const router = () => new ComboRouter(new LearnedQuotas(), () => 0);
  const routing = (r: ComboRouter, random = () => 0.5, sessionKey: string | null = null) => ({
    router: r,
    format: "openai" as const,
    body: { messages: [] },
    now: T0,
    random,
    sessionKey,
  });

  it("R11.1 the combo's strategy orders the targets: cost-optimized reads modelInfo prices", () => {
    const p = ports({ providers: [alpha, beta], combos: [withStrategy(combo("c", ["alpha/m1", "beta/m1"]), "cost-optimized")] });
    expect(served(planRequest("c", p.catalog, routing(router()))?.targets)).toEqual(["beta", "alpha"]);
  });

  it("R11.1 D11 cost-optimized prices a target without modelInfo prices from the shipped catalogue (R18.1); modelInfo still wins, an unknown model stays unpriced", () => {
    const anthropic = { format: "anthropic" as const, baseUrl: "https://api.anthropic.com" };
    const opus = provider({ id: "opus", ...anthropic, models: ["claude-opus-4-1"] });
    const haiku = provider({ id: "haiku", ...anthropic, models: ["claude-haiku-4-5"] });
    const own = provider({ id: "own", ...anthropic, models: ["in-house-model"] });
    const order = (providers: ReturnType<typeof provider>[]) => {
      const c = withStrategy(combo("c", ["own/in-house-model", "opus/claude-opus-4-1", "haiku/claude-haiku-4-5"]), "cost-optimized");
      return served(planRequest("c", ports({ providers, combos: [c] }).catalog, routing(router()))?.targets);
    };
    // The catalogue: Haiku 4.5 at $1 per million input tokens, Opus 4.1 at $15; the in-house model is in no catalogue.
    expect(order([own, opus, haiku])).toEqual(["haiku", "opus", "own"]);
    const cheapOpus = { ...opus, modelInfo: { "claude-opus-4-1": { inputPricePerMTok: 0.5 } } };
    expect(order([own, cheapOpus, haiku])).toEqual(["opus", "haiku", "own"]);
  });

  it("R11.1 context-optimized reads modelInfo contextWindow", () => {
    const p = ports({ providers: [alpha, beta], combos: [withStrategy(combo("c", ["beta/m1", "alpha/m1"]), "context-optimized")] });
    expect(served(planRequest("c", p.catalog, routing(router()))?.targets)).toEqual(["alpha", "beta"]);
  });

  it("R11.1 cache-optimized keeps a session on the target that last answered it; another session starts from the combo order", () => {
    const c = withStrategy(combo("c", ["alpha/m1", "beta/m1"]), "cache-optimized");
    const p = ports({ providers: [alpha, beta], combos: [c] });
    const r = router();
    const lead = (session: string | null) =>
      planRequest(
        "c",
        p.catalog,
        routing(r, () => 0.5, session),
      )?.targets[0];
    const first = lead("s1");
    expect(first?.provider.id).toBe("alpha");
    r.settled("c", planRequest("c", p.catalog, routing(r))!.targets[1], "conn-b", { ok: true, ttfbMs: 10 }, T0, "s1");
    expect(lead("s1")?.provider.id).toBe("beta");
    expect(lead("s2")?.provider.id).toBe("alpha");
    // A failed answer does not move the session.
    r.settled("c", planRequest("c", p.catalog, routing(r))!.targets[0], "conn-a", { ok: false, ttfbMs: 10 }, T0, "s1");
    expect(lead("s1")?.provider.id).toBe("beta");
  });

  it("R11.1 only a strategy that reads the session's previous target remembers it: a combo switched from p2c to cache-optimized starts afresh", () => {
    const r = router();
    const asP2c = ports({ providers: [alpha, beta], combos: [withStrategy(combo("c", ["alpha/m1", "beta/m1"]), "p2c")] });
    planRequest(
      "c",
      asP2c.catalog,
      routing(r, () => 0.5, "s1"),
    );
    r.settled(
      "c",
      planRequest("c", asP2c.catalog, routing(r))!.targets.find((t) => t.provider.id === "beta")!,
      "conn-b",
      { ok: true, ttfbMs: 10 },
      T0,
      "s1",
    );
    const asCache = ports({ providers: [alpha, beta], combos: [withStrategy(combo("c", ["alpha/m1", "beta/m1"]), "cache-optimized")] });
    const lead = () =>
      planRequest(
        "c",
        asCache.catalog,
        routing(r, () => 0.5, "s1"),
      )?.targets[0];
    expect(lead()?.provider.id).toBe("alpha");
    r.settled("c", planRequest("c", asCache.catalog, routing(r))!.targets[1], "conn-b", { ok: true, ttfbMs: 10 }, T0, "s1");
    expect(lead()?.provider.id).toBe("beta");
  });

  it("R11.1 an unknown stored strategy name routes as priority", () => {
    const p = ports({ providers: [alpha, beta], combos: [withStrategy(combo("c", ["alpha/m1", "beta/m1"]), "coin-flip")] });
    expect(served(planRequest("c", p.catalog, routing(router()))?.targets)).toEqual(["alpha", "beta"]);
  });

  it("R11.1 weighted reads the target's weight: weight 0 never leads while another is positive", () => {
    const p = ports({ providers: [alpha, beta], combos: [withStrategy(combo("c", ["alpha/m1", "beta/m1"]), "weighted", [0, 5])] });
    const r = router();
    for (const x of [0, 0.3, 0.99])
      expect(
        served(
          planRequest(
            "c",
            p.catalog,
            routing(r, () => x),
          )?.targets,
        )?.[0],
      ).toBe("beta");
  });

  it("R11.1 round-robin state lives per combo in memory: two combos keep separate cursors", () => {
    const p = ports({
      providers: [alpha, beta],
      combos: [withStrategy(combo("one", ["alpha/m1", "beta/m1"]), "round-robin"), withStrategy(combo("two", ["alpha/m1", "beta/m1"]), "round-robin")],
    });
    const r = router();
    const lead = (name: string) => served(planRequest(name, p.catalog, routing(r))?.targets)?.[0];
    expect([lead("one"), lead("one"), lead("two"), lead("one"), lead("two")]).toEqual(["alpha", "beta", "alpha", "alpha", "beta"]);
    expect(served(planRequest("one", p.catalog, routing(router()))?.targets)?.[0]).toBe("alpha");
  });

  it("R11.1 least-used reads the book the pipeline fills with dispatched()", () => {
    const c = withStrategy(combo("c", ["alpha/m1", "beta/m1"]), "least-used");
    const p = ports({ providers: [alpha, beta], combos: [c] });
    const r = router();
    r.dispatched("c", { provider: alpha, model: "m1", weight: 1 });
    expect(served(planRequest("c", p.catalog, routing(r))?.targets)).toEqual(["beta", "alpha"]);
  });

  it("R11.1 headroom reads the quota learned from response headers of a target's connection", () => {
    const quotas = new LearnedQuotas();
    const r = new ComboRouter(quotas, () => 0);
    const p = ports({ providers: [alpha, beta], combos: [withStrategy(combo("c", ["alpha/m1", "beta/m1"]), "headroom")] });
    quotas.learn("alpha", "a1", "m1", { "x-ratelimit-remaining-requests": "1", "x-ratelimit-limit-requests": "100", "x-ratelimit-reset-requests": "30s" }, T0);
    quotas.learn("beta", "b1", "m1", { "anthropic-ratelimit-requests-remaining": "90", "anthropic-ratelimit-requests-limit": "100" }, T0);
    expect(served(planRequest("c", p.catalog, routing(r))?.targets)).toEqual(["beta", "alpha"]);
  });
});

describe("a pinned session in the plan stage (R7.1)", () => {
  const gamma = provider({ id: "gamma", models: ["m1", "m2"] });
  const router = () => new ComboRouter(new LearnedQuotas(), () => 0);
  const routing = (r: ComboRouter, pin: PinnedTarget | null, body: Record<string, unknown> = { messages: [] }) => ({
    router: r,
    format: "openai" as const,
    body,
    now: T0,
    random: () => 0.5,
    sessionKey: "s1",
    pin,
  });
  const lead = (name: string, p: ReturnType<typeof ports>, r: ComboRouter, pin: PinnedTarget | null, body?: Record<string, unknown>) => {
    const t = planRequest(name, p.catalog, routing(r, pin, body))?.targets[0];
    return t && `${t.provider.id}/${t.model}`;
  };

  it("R7.1 the pinned target leads whatever the strategy; the pin's model chooses among one provider's targets; a bare model name keeps the pinned provider", () => {
    const p = ports({
      providers: [alpha, beta, gamma],
      combos: [
        withStrategy(combo("rr", ["alpha/m1", "beta/m1"]), "round-robin"),
        withStrategy(combo("prio", ["alpha/m1", "beta/m1"]), "priority"),
        withStrategy(combo("models", ["gamma/m1", "gamma/m2"]), "round-robin"),
      ],
    });
    const r = router();
    const onBeta = { provider: "beta", connectionId: "b1", model: "m1" };
    expect([lead("rr", p, r, onBeta), lead("rr", p, r, onBeta), lead("rr", p, r, onBeta)]).toEqual(["beta/m1", "beta/m1", "beta/m1"]);
    expect(lead("prio", p, r, onBeta)).toBe("beta/m1");
    expect(lead("prio", p, r, null)).toBe("alpha/m1");
    const onM2 = { provider: "gamma", connectionId: "g1", model: "m2" };
    expect([lead("models", p, r, onM2), lead("models", p, r, onM2)]).toEqual(["gamma/m2", "gamma/m2"]);
    // A pin restored from the store knows its account only: the strategy's first target of that provider.
    expect(lead("m1", p, r, { provider: "beta", connectionId: "b1" })).toBe("beta/m1");
    expect(lead("m1", p, r, null)).toBe("alpha/m1");
  });

  it("R7.1 a target that names another connection is not the pinned one; context-relay still moves a conversation its target cannot hold", () => {
    const pinnedElsewhere = { ...combo("named", ["alpha/m1", "beta/m1"]), strategy: "round-robin", targets: [{ model: "alpha/m1" }, { model: "beta/m1", connectionId: "b2" }] };
    const p = ports({
      providers: [alpha, beta],
      combos: [pinnedElsewhere, withStrategy(combo("relay", ["alpha/m1", "beta/m1"]), "context-relay"), withStrategy(combo("cache", ["alpha/m1", "beta/m1"]), "cache-optimized")],
    });
    const r = router();
    const onBeta = { provider: "beta", connectionId: "b1", model: "m1" };
    expect([lead("named", p, r, onBeta), lead("named", p, r, onBeta)]).toEqual(["alpha/m1", "beta/m1"]);
    expect(lead("relay", p, r, onBeta)).toBe("beta/m1");
    // beta's 8 000-token window cannot hold this conversation: context-relay relays it to alpha.
    expect(lead("relay", p, r, onBeta, { messages: [{ role: "user", content: "word ".repeat(20_000) }] })).toBe("alpha/m1");
    expect(lead("cache", p, r, onBeta)).toBe("beta/m1");
  });
});

describe("learned quota headers (R11.1 data sources)", () => {
  it("R11.1 OpenAI x-ratelimit-*-requests with a duration reset, Anthropic with an RFC 3339 instant", () => {
    expect(quotaFromHeaders({ "x-ratelimit-remaining-requests": "7", "x-ratelimit-limit-requests": "10", "x-ratelimit-reset-requests": "1m30s" }, T0)).toEqual({
      remaining: 7,
      limit: 10,
      resetAt: T0 + 90_000,
    });
    const at = "2030-01-01T00:00:00.000Z";
    expect(quotaFromHeaders({ "anthropic-ratelimit-requests-remaining": "3", "anthropic-ratelimit-requests-reset": at }, T0)).toEqual({ remaining: 3, resetAt: Date.parse(at) });
    expect(quotaFromHeaders({ "content-type": "application/json" }, T0)).toBeNull();
    expect(parseWindowReset("250ms", T0)).toBe(T0 + 250);
    expect(parseWindowReset("nonsense", T0)).toBeNull();
  });

  it("R11.1 a window past its reset is forgotten; a pinned target reads its own connection's window", () => {
    const q = new LearnedQuotas();
    q.learn("alpha", "a1", "m1", { "x-ratelimit-remaining-requests": "5", "x-ratelimit-reset-requests": "10s" }, T0);
    expect(q.forTarget("alpha", "m1", undefined, T0)?.remaining).toBe(5);
    expect(q.forTarget("alpha", "m1", "a1", T0)?.remaining).toBe(5);
    expect(q.forTarget("alpha", "m1", "a2", T0)).toBeUndefined();
    expect(q.forTarget("alpha", "m1", undefined, T0 + 10_000)).toBeUndefined();
  });
});

describe("nested combos (D11)", () => {
  it("D11 a target naming a combo expands in place, weights multiply, a pin stays on its target", () => {
    const inner = { ...combo("inner", ["beta/m1"]), targets: [{ model: "beta/m1", weight: 2, connectionId: "b1" }] };
    const outer = { ...combo("outer", ["alpha/m1", "inner"]), targets: [{ model: "alpha/m1" }, { model: "inner", weight: 3 }] };
    const p = ports({ providers: [alpha, beta], combos: [outer, inner] });
    const plan = planRequest("outer", p.catalog);
    expect(plan?.combo).toBe("outer");
    expect(plan?.targets.map((t) => [t.provider.id, t.weight, t.connectionId])).toEqual([
      ["alpha", 1, undefined],
      ["beta", 6, "b1"],
    ]);
  });

  it("D11 a stored cycle or a chain past the hard cap resolves without looping", () => {
    const combos = new Map<string, Combo>();
    combos.set("x", combo("x", ["alpha/m1", "y"]));
    combos.set("y", combo("y", ["beta/m1", "x"]));
    const catalog = { providers: [alpha, beta], aliases: {}, getCombo: (n: string) => combos.get(n) ?? null };
    expect(served(expandCombo(combos.get("x")!, catalog))).toEqual(["alpha", "beta"]);
    const chain = new Map<string, Combo>();
    for (let i = 0; i < 15; i++) chain.set(`c${i}`, combo(`c${i}`, i === 14 ? ["alpha/m1"] : [`c${i + 1}`]));
    const deep = { providers: [alpha], aliases: {}, getCombo: (n: string) => chain.get(n) ?? null };
    expect(expandCombo(chain.get("c0")!, deep)).toEqual([]);
    expect(served(expandCombo(chain.get(`c${15 - HARD_COMBO_DEPTH}`)!, deep))).toEqual(["alpha"]);
  });
});
