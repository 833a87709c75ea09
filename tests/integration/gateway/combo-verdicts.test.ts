// The terminal verdicts of a combo (R11.5, API.md "Client routes") over real HTTP, each in both
// client formats: 429 rate_limit_error with retry_after/reset_at when waiting is not allowed, 503
// all_targets_cooling_down with diagnostics, 503 ALL_TARGETS_SKIPPED without a hint, and 404
// no_executable_targets.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, startGateway, startSim, type ApiResult, type TestGateway } from "../harness.js";

let gw: TestGateway;
let sim: Simulator;

beforeAll(async () => {
  sim = await startSim({ label: "verdicts" });
  gw = await startGateway();
});

afterEach(async () => {
  await gw.api("POST", "/api/resilience/cooldowns", { all: true });
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

type ClientFormat = "openai" | "anthropic";
const FORMATS: ClientFormat[] = ["openai", "anthropic"];

function ask(format: ClientFormat, model: string): Promise<ApiResult> {
  const messages = [{ role: "user", content: "hello" }];
  return format === "openai"
    ? gw.post("/v1/chat/completions", { model, messages })
    : gw.post("/v1/messages", { model, max_tokens: 32, messages });
}

/** The error object and its `code`, whichever the client's format. */
function errorOf(format: ClientFormat, r: ApiResult): Record<string, any> {
  if (format === "anthropic") expect(r.body.type).toBe("error");
  return r.body.error;
}

async function pair(prefix: string, config: Record<string, unknown> = {}): Promise<string> {
  for (const s of ["a", "b"]) await addProvider(gw, `${prefix}${s}`, sim, "openai", [`${prefix}${s}-key`]);
  const res = await gw.api("POST", "/api/combos", { name: `${prefix}combo`, targets: [{ model: `${prefix}a/m1` }, { model: `${prefix}b/m1` }], config });
  expect(res.status, res.text).toBe(201);
  return `${prefix}combo`;
}

describe("combo terminal verdicts (R11.5)", () => {
  it.each(FORMATS)("R11.5 %s: waiting not allowed → 429 rate_limit_error with retry_after, reset_at and Retry-After", async (format) => {
    const combo = await pair(`v4${format[0]}`, { comboCooldownWaitEnabled: false });
    for (const s of ["a", "b"]) sim.addFault(`v4${format[0]}${s}-key`, { status: 429, retryAfter: 5, times: 1 });
    const r = await ask(format, combo);
    expect(r.status).toBe(429);
    const error = errorOf(format, r);
    expect(error.code).toBe("rate_limit_error");
    if (format === "anthropic") expect(error.type).toBe("rate_limit_error");
    expect(error.retry_after).toBeGreaterThanOrEqual(4);
    expect(error.retry_after).toBeLessThanOrEqual(6);
    expect(Number(r.headers.get("retry-after"))).toBe(error.retry_after);
    const resetAt = Date.parse(error.reset_at);
    expect(error.reset_at).toBe(new Date(resetAt).toISOString());
    expect(Math.abs(resetAt - (Date.now() + error.retry_after * 1000))).toBeLessThan(2_000);
  });

  it("R11.5 a wait longer than comboCooldownWait.maxWaitMs is not allowed either: 429 at once", async () => {
    const combo = await pair("vl");
    for (const s of ["a", "b"]) sim.addFault(`vl${s}-key`, { status: 429, retryAfter: 200, times: 1 });
    const started = Date.now();
    const r = await ask("openai", combo);
    expect(r.status).toBe(429);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(r.body.error).toMatchObject({ code: "rate_limit_error", retry_after: expect.any(Number), reset_at: expect.any(String) });
  });

  it.each(FORMATS)("R11.5 %s: every target excluded by a timer → 503 all_targets_cooling_down with Retry-After and diagnostics.excluded", async (format) => {
    const prefix = `vc${format[0]}`;
    const combo = await pair(prefix);
    for (const s of ["a", "b"]) {
      sim.addFault(`${prefix}${s}-key`, { status: 429, retryAfter: 120, times: 1 });
      expect((await ask("openai", `${prefix}${s}/m1`)).status).toBe(429);
    }
    const callsBefore = sim.requests.length;
    const r = await ask(format, combo);
    expect(r.status).toBe(503);
    expect(sim.requests.length).toBe(callsBefore);
    const error = errorOf(format, r);
    expect(error.code).toBe("all_targets_cooling_down");
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(100);
    expect(error.diagnostics.excluded).toEqual([
      { target: `${prefix}a/m1`, reason: "unavailable", remainingSeconds: expect.any(Number) },
      { target: `${prefix}b/m1`, reason: "unavailable", remainingSeconds: expect.any(Number) },
    ]);
    for (const e of error.diagnostics.excluded) expect(e.remainingSeconds).toBeGreaterThan(100);
  });

  it.each(FORMATS)("R11.5 %s: only auth/quota/not-found skips → 503 ALL_TARGETS_SKIPPED without a hint", async (format) => {
    const prefix = `vs${format[0]}`;
    const combo = await pair(prefix);
    for (const s of ["a", "b"]) expect((await gw.api("PATCH", `/api/connections/${prefix}${s}-c1`, { active: false })).status).toBe(200);
    const r = await ask(format, combo);
    expect(r.status).toBe(503);
    expect(errorOf(format, r).code).toBe("ALL_TARGETS_SKIPPED");
    expect(r.headers.get("retry-after")).toBeNull();
    expect(errorOf(format, r).retry_after).toBeUndefined();
  });

  it.each(FORMATS)("R11.5 %s: nothing executable and no timer → 404 no_executable_targets", async (format) => {
    const prefix = `vn${format[0]}`;
    const combo = await pair(prefix);
    for (const s of ["a", "b"]) expect((await gw.api("PATCH", `/api/providers/${prefix}${s}`, { models: ["m2"] })).status).toBe(200);
    const r = await ask(format, combo);
    expect(r.status).toBe(404);
    expect(errorOf(format, r).code).toBe("no_executable_targets");
    expect(r.headers.get("retry-after")).toBeNull();
  });
});
