// The engine's kinds of shared state (R19.1) between two in-process Switchyards on one real
// redis-server, over real HTTP against the simulator: model lockouts, terminal states ended by new
// credentials, and the opt-in provider cooldown. The two instances know the same connections under
// different ids (as two machines loaded from one config file may): the group keys them by name.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { startGateway, startSim, type TestGateway } from "../harness.js";
import { startRedis, type RedisProcess } from "../admission/processes.js";

const BOUND_MS = 250; // R19.1

let redis: RedisProcess;
let sim: Simulator;
let A: TestGateway;
let B: TestGateway;

const chat = (model: string) => ({ model, messages: [{ role: "user", content: "hi" }] });

/** The same provider on both, each connection under an id of its own instance and a shared name. */
async function provider(id: string, keys: string[], category = "apikey"): Promise<void> {
  for (const gw of [A, B]) {
    const p = await gw.api("POST", "/api/providers", { id, format: "openai", baseUrl: `${sim.url}/v1`, category, models: ["m1", "m2"] });
    expect(p.status).toBe(201);
    for (const [i, key] of keys.entries()) {
      const c = await gw.api("POST", "/api/connections", { id: `${id}-${gw === A ? "a" : "b"}${i + 1}`, provider: id, name: `${id} key ${i + 1}`, apiKey: key, priority: i });
      expect(c.status).toBe(201);
    }
  }
}

/** Polls until `read` satisfies `ok`; returns how long that took. */
async function within<T>(read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 3_000): Promise<number> {
  const start = performance.now();
  for (;;) {
    if (ok(await read())) return performance.now() - start;
    if (performance.now() - start > timeoutMs) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 5));
  }
}

const lockouts = async (gw: TestGateway) => (await gw.api("GET", "/api/resilience/model-cooldowns")).body.items as Array<{ connectionId: string; model: string }>;
const connection = async (gw: TestGateway, id: string) => (await gw.api("GET", `/api/connections/${id}`)).body;

beforeAll(async () => {
  redis = await startRedis();
  sim = await startSim({ label: "engine-kinds" });
  const env = { SWITCHYARD_REDIS_URL: redis.url };
  [A, B] = await Promise.all([startGateway({ env }), startGateway({ env })]);
  for (const gw of [A, B]) {
    expect((await gw.api("PATCH", "/api/resilience", { modelLockout: { enabled: true } })).status).toBe(200);
  }
  await within(
    async () => [(await A.api("GET", "/api/monitoring/health")).body.sharedState, (await B.api("GET", "/api/monitoring/health")).body.sharedState],
    (s) => s.every((x) => x.status === "ok" && x.instances === 2),
  );
}, 60_000);

afterAll(async () => {
  await Promise.all([A?.close(), B?.close()]);
  await sim?.close();
  await redis?.stop();
});

describe("engine state shared by two instances (R19.1)", () => {
  it("R19.1 R5.2 a model lockout made through A holds on B's own id within 250 ms; B's operator clearing it clears it on A", async () => {
    await provider("lk", ["lk-key-1"]);
    sim.addFault("lk-key-1", { status: 404, times: 1 });
    expect((await A.post("/v1/chat/completions", chat("lk/m1"))).status).toBe(404);
    const took = await within(
      () => lockouts(B),
      (items) => items.some((i) => i.connectionId === "lk-b1" && i.model === "m1"),
    );
    expect(took).toBeLessThan(BOUND_MS);
    const before = sim.requests.length;
    const refused = await B.post("/v1/chat/completions", chat("lk/m1"));
    expect(refused.status).toBe(503);
    expect(refused.body.error.diagnostics.excluded[0]).toMatchObject({ reason: "model_lockout" });
    expect(sim.requests.length).toBe(before);
    expect((await B.post("/v1/chat/completions", chat("lk/m2"))).status).toBe(200);
    const cleared = await B.api("DELETE", "/api/resilience/model-cooldowns", { provider: "lk", model: "m1", connection: "lk-b1" });
    expect(cleared.body).toMatchObject({ ok: true, removed: 1 });
    expect(
      await within(
        () => lockouts(A),
        (items) => !items.some((i) => i.connectionId === "lk-a1"),
      ),
    ).toBeLessThan(BOUND_MS);
    expect((await A.post("/v1/chat/completions", chat("lk/m1"))).status).toBe(200);
  });

  it("R19.2 R4.6 a terminal state set through A holds on B, whose requests pass over it; new credentials given on B end it on A", async () => {
    await provider("tm", ["tm-key-1", "tm-key-2"]);
    sim.addFault("tm-key-1", { status: 402, times: 1 });
    expect((await A.post("/v1/chat/completions", chat("tm/m1"))).status).toBe(200);
    expect((await connection(A, "tm-a1")).testStatus).toBe("credits_exhausted");
    expect(
      await within(
        () => connection(B, "tm-b1"),
        (c) => c.testStatus === "credits_exhausted",
      ),
    ).toBeLessThan(BOUND_MS);
    const answered = await B.post("/v1/chat/completions", chat("tm/m1"));
    expect(answered.headers.get("x-omniroute-selected-connection-id")).toBe("tm-b2");
    expect(sim.requests.filter((r) => r.key === "tm-key-1")).toHaveLength(1);
    const renewed = await B.api("PATCH", "/api/connections/tm-b1", { apiKey: "tm-key-1" });
    expect(renewed.status).toBe(200);
    expect(
      await within(
        () => connection(A, "tm-a1"),
        (c) => c.testStatus === "active" && c.rateLimitedUntil === null,
      ),
    ).toBeLessThan(BOUND_MS);
    const back = await A.post("/v1/chat/completions", chat("tm/m1"));
    expect(back.headers.get("x-omniroute-selected-connection-id")).toBe("tm-a1");
  });

  it("R19.1 R3.1 the opt-in provider cooldown started by failures through A keeps B off the provider; a breaker reset on B lifts it on A", async () => {
    for (const gw of [A, B]) {
      const patch = await gw.api("PATCH", "/api/resilience", {
        providerCooldown: { enabled: true, local: { failureThreshold: 2, failureWindowMs: 60_000, cooldownMs: 60_000 } },
        providerBreaker: { local: { failureThreshold: 50 } },
      });
      expect(patch.status).toBe(200);
    }
    await provider("pc", ["pc-key-1", "pc-key-2"], "local");
    sim.addFault("pc-key-1", { status: 500, times: 1 });
    sim.addFault("pc-key-2", { status: 500, times: 1 });
    await A.post("/v1/chat/completions", chat("pc/m1"));
    // The connections' own cooldowns are lifted, so only the provider's gate can keep B off.
    await A.api("POST", "/api/resilience/cooldowns", { all: true });
    const answer = async (gw: TestGateway) => (await gw.post("/v1/chat/completions", chat("pc/m1"))).body;
    const before = sim.requests.length;
    const took = await within(
      () => answer(B),
      (body) => body.error?.diagnostics?.excluded?.some((e: { reason: string }) => e.reason === "provider_cooldown") === true,
    );
    expect(took).toBeLessThan(BOUND_MS);
    expect(sim.requests.length).toBe(before);
    expect((await B.api("POST", "/api/resilience/reset", { provider: "pc" })).status).toBe(200);
    expect(
      await within(
        () => A.post("/v1/chat/completions", chat("pc/m1")),
        (r) => r.status === 200,
      ),
    ).toBeLessThan(BOUND_MS);
    for (const gw of [A, B]) await gw.api("PATCH", "/api/resilience", { providerCooldown: { enabled: false } });
  });
});
