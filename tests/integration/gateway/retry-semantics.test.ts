// R25.6: retry semantics agents follow (Anthropic's gateway reference). Retry-After is whole seconds
// and names only a wait the client should take (≤ 60 s); a refusal that will not pass soon — a key
// over its budget, a wait longer than a minute, a terminal state — says `x-should-retry: false`; an
// upstream's own `x-should-retry` passes through when it answered in the client's format; when every
// target failed, the last 429 wins, else a 401/403, else a 404, else the 5xx (combo-verdicts.test.ts
// has the combos' cases).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, startGateway, startSim, type TestGateway } from "../harness.js";

let gw: TestGateway;
let sim: Simulator;

beforeAll(async () => {
  sim = await startSim({ label: "retry" });
  gw = await startGateway();
  await addProvider(gw, "ra", sim, "anthropic", ["ra-key"]);
  await addProvider(gw, "rb", sim, "anthropic", ["rb-key"]);
  await addProvider(gw, "ro", sim, "openai", ["ro-key"]);
  expect((await gw.api("POST", "/api/combos", { name: "rpair", targets: [{ model: "ra/m1" }, { model: "rb/m1" }], config: { comboCooldownWaitEnabled: false } })).status).toBe(201);
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

beforeEach(async () => {
  sim.clearFaults();
  await gw.api("POST", "/api/resilience/cooldowns", { all: true });
});

const ANTHROPIC = { "anthropic-version": "2023-06-01", "x-api-key": "placeholder" };
const message = (model: string, headers: Record<string, string> = {}) =>
  gw.post("/v1/messages", { model, max_tokens: 64, messages: [{ role: "user", content: "hi" }] }, { ...ANTHROPIC, ...headers });

describe("R25.6 Retry-After and x-should-retry", () => {
  it("R25.6 a 429 the client should retry soon: Retry-After in whole seconds, ≤ 60, and no x-should-retry: false", async () => {
    sim.addFault("ra-key", { status: 429, retryAfterMs: 4_200, times: 1 });
    const r = await message("ra/m1");
    expect(r.status).toBe(429);
    expect(r.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(Number(r.headers.get("retry-after"))).toBe(5);
    expect(r.headers.get("x-should-retry")).toBeNull();
    expect(r.body.error).toMatchObject({ retry_after: 5 });
  });

  it("R25.6 a wait longer than a minute is not handed out as a Retry-After: x-should-retry: false, and the body still names it", async () => {
    sim.addFault("ra-key", { status: 429, retryAfter: 150, times: 1 });
    const r = await message("ra/m1");
    expect(r.status).toBe(429);
    expect(r.headers.get("retry-after")).toBeNull();
    expect(r.headers.get("x-should-retry")).toBe("false");
    expect(r.body.error.retry_after).toBeGreaterThanOrEqual(148);
    expect(Date.parse(r.body.error.reset_at)).toBeGreaterThan(Date.now() + 60_000);
  });

  it("R25.6 a key over its daily budget gets 429 budget_exceeded with x-should-retry: false (the agent must not retry), the period's end in the body", async () => {
    const key = (await gw.api("POST", "/api/keys", { name: "retry-budget" })).body as { id: string; key: string };
    expect((await message("ra/m1", { "x-api-key": key.key })).status).toBe(200);
    expect((await gw.api("PATCH", `/api/keys/${key.id}`, { budget: { period: "day", maxTokens: 1 } })).status).toBe(200);
    const before = sim.requests.length;
    const r = await message("ra/m1", { "x-api-key": key.key });
    expect(r.status).toBe(429);
    expect(r.body.error).toMatchObject({ code: "budget_exceeded", type: "rate_limit_error" });
    expect(r.headers.get("x-should-retry")).toBe("false");
    const retryAfter = r.headers.get("retry-after");
    if (retryAfter !== null) expect(Number(retryAfter)).toBeLessThanOrEqual(60);
    const midnight = Math.floor(Date.now() / 86_400_000) * 86_400_000 + 86_400_000;
    expect(Math.abs(Date.parse(r.body.error.reset_at) - midnight)).toBeLessThanOrEqual(2_000);
    expect(sim.requests.length).toBe(before);
  });

  it("R25.6 an upstream's x-should-retry passes through on a same-format answer, and not across formats", async () => {
    const body = JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: "temporarily refused" } });
    sim.addFault("ra-key", { status: 400, body, headers: { "x-should-retry": "true" }, times: 1 });
    const same = await message("ra/m1");
    expect(same.status).toBe(400);
    expect(same.body.error.message).toBe("temporarily refused");
    expect(same.headers.get("x-should-retry")).toBe("true");
    sim.addFault("ro-key", { status: 400, headers: { "x-should-retry": "true" }, times: 1 });
    const other = await message("ro/m1");
    expect(other.status).toBe(400);
    expect(other.headers.get("x-should-retry")).toBe("false");
  });

  it("R25.6 the deciding failure's own x-should-retry passes through when every target failed (Anthropic's 529s saying retry)", async () => {
    for (const key of ["ra-key", "rb-key"]) sim.addFault(key, { status: 529, headers: { "x-should-retry": "true" }, times: 1 });
    const r = await message("rpair");
    expect(r.status).toBe(529);
    expect(r.headers.get("x-should-retry")).toBe("true");
    expect(r.body.error).toMatchObject({ type: "overloaded_error", targets_tried: 2 });
  });

  it("R25.6 when every target refuses the credential the client gets the 401 to tell its user, not a 503 to retry", async () => {
    for (const key of ["ra-key", "rb-key"]) sim.addFault(key, { status: 401, times: 1 });
    const r = await message("rpair");
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ type: "error", error: { type: "authentication_error", code: "unauthorized" } });
    expect(r.headers.get("x-should-retry")).toBe("false");
    expect(r.headers.get("retry-after")).toBeNull();
  });

  it("R25.6 the last 429 wins over a later 5xx, and tells its wait", async () => {
    sim.addFault("ra-key", { status: 429, retryAfter: 7, times: 1 });
    sim.addFault("rb-key", { status: 503, times: 1 });
    const r = await message("rpair");
    expect(r.status).toBe(429);
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(6);
    expect(Number(r.headers.get("retry-after"))).toBeLessThanOrEqual(60);
  });
});
