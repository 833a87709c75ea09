// Issue 11 over real HTTP against the simulator: operator rules decide ahead of the built-in text
// detectors (R12.4), the egress-bucketed sibling lock (R12.5), the three lockout keys (R5.2) and the
// breaker's escalation per failure kind with its stale DEGRADED (R2.4).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, startGateway, startSim, type TestGateway } from "../harness.js";

let gw: TestGateway;
let sim: Simulator;

const chat = (model: string) => ({ model, messages: [{ role: "user", content: "hi" }] });
const advance = (ms: number) => gw.api("POST", "/api/debug/clock", { advanceMs: ms });
const now = async (): Promise<number> => (await gw.api("GET", "/api/debug/clock")).body.now;
const connection = async (id: string) => (await gw.api("GET", `/api/connections/${id}`)).body;
const QUOTA_403 = JSON.stringify({ error: { message: "insufficient_quota for this org", type: "insufficient_quota" } });

beforeAll(async () => {
  sim = await startSim({ label: "rules" });
  gw = await startGateway({ testClock: true });
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

describe("operator rules (R12.4)", () => {
  it("R12.4 the operator rule {p1, 403, INSUFFICIENT_QUOTA, connection, 1 h} cools the connection for an hour instead of making it terminal", async () => {
    await addProvider(gw, "p1", sim, "openai", ["p1-a", "p1-b"]);
    await addProvider(gw, "p0", sim, "openai", ["p0-a", "p0-b"]);
    const saved = await gw.api("PATCH", "/api/settings", {
      providerErrorRules: [{ provider: "p1", status: 403, match: "INSUFFICIENT_QUOTA", scope: "connection", cooldownMs: 3_600_000 }],
    });
    expect(saved.status).toBe(200);
    sim.addFault("p1-a", { status: 403, body: QUOTA_403, times: 1 });
    const r = await gw.post("/v1/chat/completions", chat("p1/m1"));
    expect(r.status).toBe(200);
    expect(r.headers.get("x-omniroute-selected-connection-id")).toBe("p1-c2");
    const cooled = await connection("p1-c1");
    expect(cooled.testStatus).toBe("unavailable");
    const remaining = cooled.rateLimitedUntil - (await now());
    expect(remaining).toBeGreaterThan(3_590_000);
    expect(remaining).toBeLessThanOrEqual(3_600_000);

    // The same answer for a provider without the rule stays the built-in verdict: out of credit.
    sim.addFault("p0-a", { status: 403, body: QUOTA_403, times: 1 });
    await gw.post("/v1/chat/completions", chat("p0/m1"));
    expect((await connection("p0-c1")).testStatus).toBe("credits_exhausted");
  });
});

describe("egress-bucketed lock (R12.5)", () => {
  it("R12.5 a 429 on an opencode connection cools the siblings that last left from its egress IP, not the others", async () => {
    const p = await gw.api("POST", "/api/providers", { id: "opencode", format: "openai", baseUrl: `${sim.url}/v1`, category: "apikey", models: ["m1"] });
    expect(p.status).toBe(201);
    const egress = ["127.0.0.2", "127.0.0.2", "127.0.0.3"];
    for (const [i, ip] of egress.entries()) {
      const c = await gw.api("POST", "/api/connections", {
        id: `oc-${i + 1}`,
        provider: "opencode",
        apiKey: `oc-key-${i + 1}`,
        priority: i,
        providerSpecificData: { egressIp: ip },
      });
      expect(c.status).toBe(201);
    }
    // Each connection answers once, so the request log knows its egress IP.
    for (const id of ["oc-1", "oc-2", "oc-3"]) {
      for (const other of ["oc-1", "oc-2", "oc-3"]) await gw.api("PATCH", `/api/connections/${other}`, { active: other === id });
      const r = await gw.post("/v1/chat/completions", chat("opencode/m1"));
      expect(r.headers.get("x-omniroute-selected-connection-id")).toBe(id);
    }
    for (const id of ["oc-1", "oc-2", "oc-3"]) await gw.api("PATCH", `/api/connections/${id}`, { active: true });
    const seen = sim.requests.filter((q) => q.key?.startsWith("oc-key-")).map((q) => [q.key, q.remoteAddress]);
    expect(seen).toEqual([
      ["oc-key-1", "127.0.0.2"],
      ["oc-key-2", "127.0.0.2"],
      ["oc-key-3", "127.0.0.3"],
    ]);

    sim.addFault("oc-key-1", { status: 429, retryAfter: 600, times: 1 });
    const r = await gw.post("/v1/chat/completions", chat("opencode/m1"));
    expect(r.status).toBe(200);
    expect(r.headers.get("x-omniroute-selected-connection-id")).toBe("oc-3");
    const [one, two, three] = await Promise.all(["oc-1", "oc-2", "oc-3"].map(connection));
    expect(one.rateLimitedUntil).not.toBeNull();
    expect(two).toMatchObject({ testStatus: "unavailable", rateLimitedUntil: one.rateLimitedUntil });
    expect(three).toMatchObject({ testStatus: "active", rateLimitedUntil: null });
    // oc-2 was never called: the lock spared a guaranteed failure.
    expect(sim.requests.filter((q) => q.key === "oc-key-2")).toHaveLength(1);
  });
});

describe("model lockout scopes (R5.2)", () => {
  it("R5.2 a 503 locks only the exact model, a 404 the bare model with its variants, a 429 the quota family", async () => {
    await gw.api("PATCH", "/api/resilience", { modelLockout: { enabled: true } });
    await addProvider(gw, "lk", sim, "openai", ["lk-key"], { models: ["m1", "m1:high", "m2", "m2:high", "gpt-5a", "gpt-5b"], quotaFamilies: { g5: ["gpt-5"] } });
    const ask = (model: string) => gw.post("/v1/chat/completions", chat(`lk/${model}`));

    sim.addFault("lk-key", { status: 503, times: 1 });
    expect((await ask("m1:high")).status).not.toBe(200);
    expect((await ask("m1")).status).toBe(200);
    expect((await ask("m1:high")).headers.get("x-switchyard-attempts")).toBe("0");

    sim.addFault("lk-key", { status: 404, times: 1 });
    expect((await ask("m2:high")).status).not.toBe(200);
    const bare = await ask("m2");
    expect(bare.status).not.toBe(200);
    expect(bare.headers.get("x-switchyard-attempts")).toBe("0");

    sim.addFault("lk-key", { status: 429, times: 1 });
    expect((await ask("gpt-5a")).status).not.toBe(200);
    expect((await ask("gpt-5b")).headers.get("x-switchyard-attempts")).toBe("0");
    expect((await ask("m1")).status).toBe(200);
    const items = (await gw.api("GET", "/api/resilience/model-cooldowns")).body.items.filter((i: { provider: string }) => i.provider === "lk");
    expect(items.map((i: { model: string }) => i.model).sort()).toEqual(["gpt-5a", "m1:high", "m2:high"]);
    await gw.api("PATCH", "/api/resilience", { modelLockout: { enabled: false } });
  });
});

describe("breaker growth by failure kind (R2.4)", () => {
  const health = async (provider: string) => (await gw.api("GET", "/api/monitoring/health")).body.providerBreakers.find((b: { provider: string }) => b.provider === provider);

  it("R2.4 timeouts and 5xx keep their own escalation: a first timeout probe opens for the base after three 5xx escalated", async () => {
    await addProvider(gw, "bk", sim, "openai", ["bk-key"], { category: "local" });
    const failWith = async (status: number) => {
      sim.addFault("bk-key", { status, times: 1 });
      await gw.post("/v1/chat/completions", chat("bk/m1"));
    };
    await failWith(503);
    await advance(6_000); // D2: one connection's failures within 5 s count once
    await failWith(503);
    expect(await health("bk")).toMatchObject({ state: "OPEN", lastFailureKind: "server_error" });
    // local: reset 15 s, escalateAfter 3, ×4 — a kind's 2nd and 3rd open last 15 s, its 4th 30 s.
    const opened: number[] = [];
    for (const status of [503, 503, 503, 408]) {
      await advance((await health("bk")).retryAfterMs + 10);
      // The connection's own cooldown grows too; only the breaker is under test here.
      await gw.api("POST", "/api/resilience/cooldowns", { all: true, provider: "bk" });
      expect((await health("bk")).state).toBe("HALF_OPEN");
      await failWith(status);
      opened.push((await health("bk")).retryAfterMs);
    }
    const rounded = opened.map((ms) => Math.ceil(ms / 5_000) * 5_000);
    expect(rounded).toEqual([15_000, 15_000, 30_000, 15_000]);
    expect((await health("bk")).lastFailureKind).toBe("timeout");
  });

  it("R2.4 a stale DEGRADED reads back as CLOSED after the longest open duration of its last kind, not before", async () => {
    await addProvider(gw, "dg", sim, "openai", ["dg-key"], { category: "local" });
    await gw.api("PATCH", "/api/resilience", { providerBreaker: { local: { failureThreshold: 3, degradationThreshold: 1 } } });
    sim.addFault("dg-key", { status: 502, times: 1 });
    await gw.post("/v1/chat/completions", chat("dg/m1"));
    const h = async () => (await gw.api("GET", "/api/monitoring/health")).body.providerBreakers.find((b: { provider: string }) => b.provider === "dg");
    expect((await h()).state).toBe("DEGRADED");
    await advance(59_000); // local: 15 s × 4 = 60 s
    expect((await h()).state).toBe("DEGRADED");
    await advance(1_500);
    expect((await h()).state).toBe("CLOSED");
    await gw.api("PATCH", "/api/resilience", { providerBreaker: { local: { failureThreshold: 2, degradationThreshold: null } } });
  });
});
