// The engine wired into every request, proven over real HTTP against the simulator (issue 3):
// connection cooldowns with Retry-After, breaker OPEN -> lazy HALF_OPEN -> CLOSED, terminal
// `expired` after 401s, model lockouts, settings validation, and the events stream.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, startGateway, startSim, type TestGateway } from "../harness.js";

let gw: TestGateway;
let sim: Simulator;

const chat = (model: string) => ({ model, messages: [{ role: "user", content: "hi" }] });
const advance = (ms: number) => gw.api("POST", "/api/debug/clock", { advanceMs: ms });
const clearAll = () => gw.api("POST", "/api/resilience/cooldowns", { all: true });

beforeAll(async () => {
  sim = await startSim({ label: "resilience" });
  gw = await startGateway({ testClock: true });
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

describe("connection cooldown (R4)", () => {
  it("R4.3 a 429 Retry-After 2 skips that connection for 2 s, then it is used again", async () => {
    await addProvider(gw, "three", sim, "openai", ["t-1", "t-2", "t-3"]);
    sim.addFault("t-1", { status: 429, retryAfter: 2, times: 1 });
    const first = await gw.post("/v1/chat/completions", chat("three/m1"));
    expect(first.status).toBe(200);
    expect(first.headers.get("x-omniroute-selected-connection-id")).toBe("three-c2");
    const conn = (await gw.api("GET", "/api/connections/three-c1")).body;
    const now = (await gw.api("GET", "/api/debug/clock")).body.now;
    expect(conn.rateLimitedUntil - now).toBeGreaterThan(1_000);
    expect(conn.rateLimitedUntil - now).toBeLessThanOrEqual(2_000);
    const cooling = await gw.api("GET", "/api/resilience/cooldowns?provider=three");
    expect(cooling.body.items).toEqual([expect.objectContaining({ connectionId: "three-c1", status: "cooling_down", provider: "three" })]);
    const during = await gw.post("/v1/chat/completions", chat("three/m1"));
    expect(during.headers.get("x-omniroute-selected-connection-id")).toBe("three-c2");
    expect(during.headers.get("x-switchyard-attempts")).toBe("1");
    await advance(2_100);
    const after = await gw.post("/v1/chat/completions", chat("three/m1"));
    expect(after.headers.get("x-omniroute-selected-connection-id")).toBe("three-c1");
    expect((await gw.api("GET", "/api/resilience/cooldowns?provider=three")).body.items).toEqual([]);
  });

  it("R4.6 401 ×4 → expired; the Cooldown Manager lists it and {all:true} reports it as skippedTerminal", async () => {
    await addProvider(gw, "auth", sim, "openai", ["auth-1"]);
    for (let i = 0; i < 4; i++) {
      sim.addFault("auth-1", { status: 401, times: 1 });
      await gw.post("/v1/chat/completions", chat("auth/m1"));
      await advance(3_600_000);
    }
    const conn = (await gw.api("GET", "/api/connections/auth-c1")).body;
    expect(conn.testStatus).toBe("expired");
    const list = await gw.api("GET", "/api/resilience/cooldowns?provider=auth");
    expect(list.body.items).toEqual([expect.objectContaining({ connectionId: "auth-c1", status: "terminal", testStatus: "expired" })]);
    const cleared = await gw.api("POST", "/api/resilience/cooldowns", { all: true, provider: "auth" });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ ok: true, skippedTerminal: 1, cleared: 0 });
    expect((await gw.api("GET", "/api/connections/auth-c1")).body.testStatus).toBe("expired");
    const r = await gw.post("/v1/chat/completions", chat("auth/m1"));
    expect(r.status).toBe(401);
    expect(r.headers.get("x-should-retry")).toBe("false");
    expect(r.headers.get("x-switchyard-attempts")).toBe("0");
  });

  it("D6 POST /api/resilience/cooldowns rejects an empty body, unknown fields and too many ids with 400", async () => {
    for (const body of [{}, { nope: 1 }, { connectionIds: Array.from({ length: 1001 }, (_, i) => `c${i}`) }, { all: true, provider: "p".repeat(129) }]) {
      const r = await gw.api("POST", "/api/resilience/cooldowns", body);
      expect(r.status).toBe(400);
    }
  });
});

describe("provider circuit breaker (R2)", () => {
  it("R2.4 503s open a local provider's breaker, health shows it, and after the reset timeout a successful probe closes it", async () => {
    await addProvider(gw, "flaky", sim, "openai", ["f-1", "f-2"], { category: "local" });
    sim.addFault("f-1", { status: 503, times: 1 });
    sim.addFault("f-2", { status: 503, times: 1 });
    const failed = await gw.post("/v1/chat/completions", chat("flaky/m1"));
    expect(failed.status).toBe(503);
    const health = await gw.api("GET", "/api/monitoring/health");
    expect(health.status).toBe(200);
    expect(health.body.ok).toBe(true);
    const row = health.body.providerBreakers.find((b: { provider: string }) => b.provider === "flaky");
    expect(row).toMatchObject({ state: "OPEN", failureCount: 2 });
    expect(row.retryAfterMs).toBeGreaterThan(0);
    expect(health.body.circuitBreakers.open).toBeGreaterThanOrEqual(1);

    const blocked = await gw.post("/v1/chat/completions", chat("flaky/m1"));
    expect(blocked.status).toBe(503);
    expect(blocked.body.error.code).toBe("provider_circuit_open");
    expect(blocked.headers.get("x-omniroute-provider-breaker")).toBe("open");
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(blocked.headers.get("x-switchyard-attempts")).toBe("0");

    await advance(15_001);
    await clearAll();
    const lazy = await gw.api("GET", "/api/monitoring/health");
    expect(lazy.body.providerBreakers.find((b: { provider: string }) => b.provider === "flaky").state).toBe("HALF_OPEN");
    const probe = await gw.post("/v1/chat/completions", chat("flaky/m1"));
    expect(probe.status).toBe(200);
    const closed = await gw.api("GET", "/api/monitoring/health");
    expect(closed.body.providerBreakers.find((b: { provider: string }) => b.provider === "flaky").state).toBe("CLOSED");
  });

  it("R2.6 POST /api/resilience/reset resets one provider's breaker", async () => {
    sim.addFault("f-1", { status: 502, times: 1 });
    sim.addFault("f-2", { status: 502, times: 1 });
    await gw.post("/v1/chat/completions", chat("flaky/m1"));
    const reset = await gw.api("POST", "/api/resilience/reset", { provider: "flaky" });
    expect(reset.status).toBe(200);
    expect(reset.body).toMatchObject({ ok: true, resetCount: 1 });
    const health = await gw.api("GET", "/api/monitoring/health");
    expect(health.body.providerBreakers.find((b: { provider: string }) => b.provider === "flaky").state).toBe("CLOSED");
    await clearAll();
  });
});

describe("model lockout (R5)", () => {
  it("R5.2 a 404 locks the bare model on that connection; other models of the connection stay usable", async () => {
    const patch = await gw.api("PATCH", "/api/resilience", { modelLockout: { enabled: true } });
    expect(patch.status).toBe(200);
    expect(patch.body.modelLockout.enabled).toBe(true);
    await addProvider(gw, "lock", sim, "openai", ["l-1"]);
    sim.addFault("l-1", { status: 404, times: 1 });
    const failed = await gw.post("/v1/chat/completions", chat("lock/m1"));
    expect(failed.status).toBe(404);
    const list = await gw.api("GET", "/api/resilience/model-cooldowns");
    expect(list.body.items).toEqual([expect.objectContaining({ provider: "lock", connectionId: "lock-c1", model: "m1", failureCount: 1 })]);
    expect(list.body.items[0].remainingMs).toBeGreaterThan(0);
    const other = await gw.post("/v1/chat/completions", chat("lock/m2"));
    expect(other.status).toBe(200);
    const locked = await gw.post("/v1/chat/completions", chat("lock/m1"));
    expect(locked.status).toBe(503);
    expect(locked.body.error.code).toBe("all_targets_cooling_down");
    expect(locked.body.error.diagnostics.excluded[0]).toMatchObject({ reason: "model_lockout" });
    const del = await gw.api("DELETE", "/api/resilience/model-cooldowns", { provider: "lock", model: "m1", connection: "lock-c1" });
    expect(del.body).toMatchObject({ ok: true, removed: 1 });
    expect((await gw.post("/v1/chat/completions", chat("lock/m1"))).status).toBe(200);
    const bad = await gw.api("DELETE", "/api/resilience/model-cooldowns", { provider: "lock" });
    expect(bad.status).toBe(400);
    await gw.api("PATCH", "/api/resilience", { modelLockout: { enabled: false } });
  });
});

describe("settings (R10)", () => {
  it("R10.1 PATCH /api/resilience with a wrong type → 400 with the field path, nothing saved; clamping reported by value", async () => {
    const before = (await gw.api("GET", "/api/resilience")).body;
    const bad = await gw.api("PATCH", "/api/resilience", { modelLockout: { baseCooldownMs: "soon" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.path).toBe("modelLockout.baseCooldownMs");
    expect(typeof bad.body.error.message).toBe("string");
    expect((await gw.api("GET", "/api/resilience")).body).toEqual(before);
    const clamped = await gw.api("PATCH", "/api/resilience", { modelLockout: { baseCooldownMs: 1 } });
    expect(clamped.status).toBe(200);
    expect(clamped.body.modelLockout.baseCooldownMs).toBe(5_000);
  });
});

describe("events (R15.2)", () => {
  it("R15.2 /api/events streams a cooldown.set event when a connection starts cooling, and a request event per request", async () => {
    const controller = new AbortController();
    const res = await fetch(gw.url + "/api/events", { headers: { authorization: `Bearer ${gw.token}` }, signal: controller.signal });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const reader = res.body!.getReader();
    sim.addFault("t-2", { status: 429, retryAfter: 5, times: 1 });
    sim.addFault("t-1", { status: 429, retryAfter: 5, times: 1 });
    await gw.post("/v1/chat/completions", chat("three/m1"));
    let text = "";
    const deadline = Date.now() + 5_000;
    while (!text.includes("cooldown.set") && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    while (!text.includes("event: request") && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    controller.abort();
    expect(text).toContain("event: cooldown.set");
    // Every finished request is pushed too, so the log and charts update live.
    expect(text).toMatch(/event: request\ndata: \{"type":"request","entry":\{[^\n]*"model":"three\/m1"/);
    await clearAll();
  });
});

describe("settings provenance (R10.2)", () => {
  it("R10.2 env vars seed defaults only; GET /api/resilience/sources tells saved values from env-seeded ones", async () => {
    const envGw = await startGateway({ env: { STREAM_CONTENT_STALL_TIMEOUT_MS: "45000", PROVIDER_COOLDOWN_ENABLED: "true" } });
    try {
      expect((await envGw.api("GET", "/api/resilience")).body.streamRecovery.contentStallTimeoutMs).toBe(45_000);
      await envGw.api("PATCH", "/api/resilience", { providerCooldown: { enabled: false } });
      const sources = (await envGw.api("GET", "/api/resilience/sources")).body;
      expect(sources.stored).toEqual({ providerCooldown: { enabled: false } });
      expect(sources.envDefaults.streamRecovery.contentStallTimeoutMs).toBe(45_000);
      expect(sources.envDefaults.providerCooldown.enabled).toBe(true);
      // The saved false wins over the env's true.
      expect((await envGw.api("GET", "/api/resilience")).body.providerCooldown.enabled).toBe(false);
    } finally {
      await envGw.close();
    }
  });
});
