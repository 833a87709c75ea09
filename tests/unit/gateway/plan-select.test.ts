// Stage "plan" (model → ordered targets) and the selection of a target's connections, with
// in-memory ports and the real engine on a fake clock.
import { describe, expect, it } from "vitest";
import { planRequest } from "../../../main/gateway/pipeline/plan.js";
import { candidatesFor, SelectionLog } from "../../../main/gateway/pipeline/select.js";
import { combo, connection, ports, provider, selectionRequest } from "./fixtures.js";

const alpha = provider({ id: "alpha", models: ["m1", "shared"] });
const beta = provider({ id: "beta", models: ["m2", "shared"] });

describe("plan", () => {
  const p = ports({ providers: [alpha, beta], combos: [combo("duo", ["beta/m2", "alpha/m1", "ghost/m9"])], aliases: { fast: "duo", direct: "alpha/m1" } });

  it("R1.3 provider/model names one target", () => {
    expect(planRequest("beta/m2", p.catalog)).toEqual({ targets: [{ provider: beta, model: "m2" }], combo: null });
  });

  it("R1.3 a bare model name goes to every provider that lists it, in provider order", () => {
    expect(planRequest("shared", p.catalog)?.targets.map((t) => t.provider.id)).toEqual(["alpha", "beta"]);
  });

  it("R1.3 a combo keeps its target order and drops targets nothing serves; an alias resolves through it", () => {
    const plan = planRequest("fast", p.catalog);
    expect(plan?.combo).toBe("duo");
    expect(plan?.targets.map((t) => `${t.provider.id}/${t.model}`)).toEqual(["beta/m2", "alpha/m1"]);
    expect(planRequest("direct", p.catalog)?.targets).toEqual([{ provider: alpha, model: "m1" }]);
  });

  it("R1.3 an unknown model has no plan", () => {
    expect(planRequest("nobody/x", p.catalog)).toBeNull();
    expect(planRequest("", p.catalog)).toBeNull();
  });
});

describe("select", () => {
  const twoKeys = () => [connection({ id: "a1", provider: "alpha" }), connection({ id: "a2", provider: "alpha", priority: 1 })];

  it("R4 yields eligible connections in order and skips a cooling one, remembering why", () => {
    const p = ports({ providers: [alpha], connections: twoKeys() });
    p.h.store.updateRuntime("a1", { rateLimitedUntil: p.h.clock.now() + 30_000, testStatus: "unavailable" });
    const log = new SelectionLog();
    const got = [...candidatesFor({ provider: alpha, model: "m1" }, { ...p, engine: p.h.engine, clock: p.h.clock }, log, selectionRequest(p, null))];
    expect(got.map((c) => c.connection.id)).toEqual(["a2"]);
    expect(log.exclusions).toEqual([{ target: "alpha/m1", reason: "unavailable", remainingMs: 30_000, provider: "alpha", connectionId: "a1" }]);
    expect(log.connectionCounts.get("alpha")).toBe(2);
  });

  it("R2.1 an OPEN breaker excludes the whole target with its remaining time", () => {
    const local = provider({ id: "alpha", category: "local", models: ["m1"] });
    const p = ports({ providers: [local], connections: twoKeys() });
    for (const id of ["a1", "a2"]) {
      const ctx = { provider: local, connection: p.h.store.row(id), model: "m1", probe: false };
      p.h.engine.recordFailure(ctx, p.h.engine.classify({ provider: local, model: "m1", failure: { kind: "http", status: 503, headers: {}, bodyText: "" } }));
    }
    const log = new SelectionLog();
    expect([...candidatesFor({ provider: local, model: "m1" }, { ...p, engine: p.h.engine, clock: p.h.clock }, log, selectionRequest(p, null))]).toEqual([]);
    expect(log.exclusions[0]).toMatchObject({ reason: "circuit_open", provider: "alpha" });
    expect(log.exclusions[0].remainingMs).toBeGreaterThan(0);
  });

  it("R1.7 a key limited to some connections never yields the others; a connection is tried once per model", () => {
    const p = ports({ providers: [alpha], connections: twoKeys() });
    const log = new SelectionLog();
    const deps = { ...p, engine: p.h.engine, clock: p.h.clock };
    expect([...candidatesFor({ provider: alpha, model: "m1" }, deps, log, selectionRequest(p, new Set(["a2"])))].map((c) => c.connection.id)).toEqual(["a2"]);
    expect([...candidatesFor({ provider: alpha, model: "m1" }, deps, log, selectionRequest(p, null))].map((c) => c.connection.id)).toEqual(["a1"]);
    expect(log.triedProviders).toEqual(new Set(["alpha"]));
  });

  it("R4 a target with no connection at all is excluded as inactive", () => {
    const p = ports({ providers: [alpha], connections: [] });
    const log = new SelectionLog();
    expect([...candidatesFor({ provider: alpha, model: "m1" }, { ...p, engine: p.h.engine, clock: p.h.clock }, log, selectionRequest(p, null))]).toEqual([]);
    expect(log.exclusions).toEqual([{ target: "alpha/m1", reason: "inactive", remainingMs: null, provider: "alpha" }]);
  });
});

describe("plan memo (issue 12)", () => {
  it("R1.3 a resolution is reused while the catalog is unchanged and redone once a provider or combo changes", () => {
    let providers = [alpha, beta];
    let combos = [combo("duo", ["beta/m2", "alpha/m1"])];
    const aliases = {};
    const catalog = {
      providers: () => [...providers],
      combo: (name: string) => combos.find((c) => c.name === name) ?? null,
      combos: () => [...combos],
      aliases: () => aliases,
    };
    const first = planRequest("duo", catalog);
    const second = planRequest("duo", catalog);
    expect(second?.targets).toBe(first?.targets);
    // A stage that narrows its plan's targets leaves the next request's plan alone.
    if (first) first.targets = [];
    expect(planRequest("duo", catalog)?.targets.map((t) => t.provider.id)).toEqual(["beta", "alpha"]);

    combos = [combo("duo", ["alpha/m1"])];
    expect(planRequest("duo", catalog)?.targets.map((t) => t.provider.id)).toEqual(["alpha"]);
    const gamma = provider({ id: "gamma", models: ["m3"] });
    expect(planRequest("gamma/m3", catalog)).toBeNull();
    providers = [alpha, beta, gamma];
    expect(planRequest("gamma/m3", catalog)?.targets).toEqual([{ provider: gamma, model: "m3" }]);
    // A provider edited in place by the store is a new object: its new model list counts.
    providers = [alpha, provider({ id: "beta", models: ["m4"] }), gamma];
    expect(planRequest("beta/m2", catalog)).toBeNull();
  });
});
