// The terminal verdicts of a combo (R11.5, R25.6, API.md "Client routes") over real HTTP, each in
// both client formats: 429 rate_limit_error with retry_after/reset_at when waiting is not allowed,
// 503 all_targets_cooling_down with diagnostics, 503 ALL_TARGETS_SKIPPED without a hint when every
// target was skipped before dispatch, and 404 no_executable_targets; when attempts were made and
// all failed, R25.6's precedence (the last 429, else 401/403, else 404, else the 5xx naming how many
// targets were tried); then a direct request's D4 texts.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import type { FaultSpec } from "../../../main/simulator/types.js";
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
  return format === "openai" ? gw.post("/v1/chat/completions", { model, messages }) : gw.post("/v1/messages", { model, max_tokens: 32, messages });
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

/** The keys of this test's providers the simulator was called with, in order. */
function dispatched(prefix: string): string[] {
  return sim.requests.map((q) => q.key ?? "").filter((key) => key.startsWith(prefix));
}

/** The request-log row of a response, by its request id. */
async function logRow(r: ApiResult): Promise<Record<string, any>> {
  const id = r.headers.get("x-switchyard-request-id");
  for (let i = 0; i < 40; i++) {
    const rows = (await gw.api("GET", "/api/logs?limit=50")).body as Array<Record<string, any>>;
    const row = rows.find((x) => x.id === id);
    if (row) return row;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no request-log row ${id}`);
}

const quotaFault: FaultSpec = { status: 429, body: '{"error":{"message":"Quota exceeded for this key"}}' };

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

  it.each(FORMATS)(
    "R11.5 R25.6 %s: every target excluded by a timer → 503 all_targets_cooling_down with diagnostics.excluded; a wait over a minute is no Retry-After but x-should-retry: false",
    async (format) => {
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
      expect(r.headers.get("retry-after")).toBeNull();
      expect(r.headers.get("x-should-retry")).toBe("false");
      expect(error.diagnostics.excluded).toEqual([
        { target: `${prefix}a/m1`, reason: "unavailable", remainingSeconds: expect.any(Number) },
        { target: `${prefix}b/m1`, reason: "unavailable", remainingSeconds: expect.any(Number) },
      ]);
      for (const e of error.diagnostics.excluded) expect(e.remainingSeconds).toBeGreaterThan(100);
    },
  );

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

  it.each(FORMATS)("R25.6 %s: every target refused at dispatch, on auth then not-found → the 401 (not a 503 to retry, not the last target's 404)", async (format) => {
    const prefix = `vd${format[0]}`;
    const combo = await pair(prefix);
    sim.addFault(`${prefix}a-key`, { status: 401, times: 1 });
    sim.addFault(`${prefix}b-key`, { status: 404, times: 1 });
    const r = await ask(format, combo);
    expect(dispatched(prefix)).toEqual([`${prefix}a-key`, `${prefix}b-key`]);
    expect(r.status).toBe(401);
    const error = errorOf(format, r);
    expect(error.code).toBe("unauthorized");
    if (format === "anthropic") expect(error.type).toBe("authentication_error");
    expect(r.headers.get("retry-after")).toBeNull();
    expect(r.headers.get("x-should-retry")).toBe("false");
    expect(error.retry_after).toBeUndefined();
    const row = await logRow(r);
    expect(row).toMatchObject({ status: 401, errorCode: "unauthorized" });
    expect(row.attempts.map((a: { status: number; verdict: string }) => [a.status, a.verdict])).toEqual([
      [401, "auth_error"],
      [404, "not_found"],
    ]);
  });

  const PRECEDENCE: Array<[string, string, FaultSpec, FaultSpec, number]> = [
    ["403 then 402 (credits) → the 403", "vq1", { status: 403 }, { status: 402 }, 403],
    [
      "a quota 429 then a 400 model_not_found → the 429",
      "vq2",
      quotaFault,
      { status: 400, body: '{"error":{"message":"The model m1 does not exist","code":"model_not_found"}}' },
      429,
    ],
    ["a 401 then a 500 → the 401", "vx", { status: 401 }, { status: 500 }, 401],
    ["a 404 then a 503 → the 404", "vy", { status: 404 }, { status: 503 }, 404],
    ["a short 429 then a 401 → the 429", "vz", { status: 429, retryAfter: 5 }, { status: 401 }, 429],
  ];
  it.each(PRECEDENCE)("R25.6 a combo whose every target failed, %s", async (_, prefix, a, b, status) => {
    const combo = await pair(prefix, { comboCooldownWaitEnabled: false });
    sim.addFault(`${prefix}a-key`, { ...a, times: 1 });
    sim.addFault(`${prefix}b-key`, { ...b, times: 1 });
    const r = await ask("openai", combo);
    expect(dispatched(prefix)).toHaveLength(2);
    expect(r.status).toBe(status);
    const retryAfter = r.headers.get("retry-after");
    if (retryAfter !== null) expect(Number(retryAfter)).toBeLessThanOrEqual(60);
    if (status !== 429) expect(r.headers.get("x-should-retry")).toBe("false");
  });

  it("R25.6 a target left terminal before dispatch and one refused at dispatch on auth → 401", async () => {
    const combo = await pair("vm");
    sim.addFault("vma-key", { status: 402, times: 1 });
    expect((await ask("openai", "vma/m1")).status).toBe(402);
    sim.addFault("vmb-key", { status: 401, times: 1 });
    const r = await ask("openai", combo);
    expect(dispatched("vm")).toEqual(["vma-key", "vmb-key"]);
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe("unauthorized");
  });

  it("R25.6 every target failed server-side → the 5xx, naming how many targets were tried", async () => {
    const combo = await pair("vw");
    sim.addFault("vwa-key", { status: 500, times: 1 });
    sim.addFault("vwb-key", { status: 502, times: 1 });
    const r = await ask("openai", combo);
    expect(r.status).toBe(502);
    expect(r.body.error).toMatchObject({ code: "upstream_error", targets_tried: 2 });
    expect(r.body.error.message).toMatch(/^2 target\(s\) tried, every one failed/);
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

describe("a direct request's terminal verdicts (D4)", () => {
  it.each(FORMATS)('D4 %s: every connection of the provider terminal → 401 "All 2 connection(s) for provider p are unavailable …"', async (format) => {
    const id = `dt${format[0]}`;
    await addProvider(gw, id, sim, "openai", [`${id}-1`, `${id}-2`]);
    for (const key of [`${id}-1`, `${id}-2`]) sim.addFault(key, { status: 402, times: 1 });
    // The request that met the 402s answers with their verdict; it leaves both connections out of credits.
    expect((await ask(format, `${id}/m1`)).status).toBe(402);
    const callsBefore = sim.requests.length;
    const r = await ask(format, `${id}/m1`);
    expect(sim.requests.length).toBe(callsBefore);
    expect(r.status).toBe(401);
    const error = errorOf(format, r);
    expect(error.code).toBe("unauthorized");
    expect(error.message).toBe(`All 2 connection(s) for provider ${id} are unavailable (expired, banned or out of credits)`);
  });

  it.each(FORMATS)('D4 %s: no active connection at all → 404 "No active credentials for provider: p"', async (format) => {
    const id = `di${format[0]}`;
    await addProvider(gw, id, sim, "openai", [`${id}-1`, `${id}-2`]);
    for (const c of [`${id}-c1`, `${id}-c2`]) expect((await gw.api("PATCH", `/api/connections/${c}`, { active: false })).status).toBe(200);
    await addProvider(gw, `${id}none`, sim, "openai", []);
    for (const model of [`${id}/m1`, `${id}none/m1`]) {
      const r = await ask(format, model);
      expect(r.status).toBe(404);
      const error = errorOf(format, r);
      expect(error.code).toBe("no_executable_targets");
      expect(error.message).toBe(`No active credentials for provider: ${model.split("/")[0]}`);
    }
  });

  it("R11.5 outside a combo an auth refusal at dispatch is not ALL_TARGETS_SKIPPED: the upstream's 401 answers", async () => {
    await addProvider(gw, "da", sim, "openai", ["da-1"]);
    sim.addFault("da-1", { status: 401, times: 1 });
    const r = await ask("openai", "da/m1");
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe("unauthorized");
  });
});
