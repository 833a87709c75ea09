// GET /api/usage/quotas (R18.3, API.md) through a real gateway over HTTP, against a simulator that
// answers with the rate-limit and subscription headers of the tokens each key was served: the
// windows with their numbers, kept across a restart on the same home, moved by a 429, and gone with
// their connection.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { UsageQuotaItem } from "../../../shared/apiTypes.js";
import type { Simulator } from "../../../main/simulator/index.js";
import { SIM_QUOTA } from "../../../main/simulator/quotaMeters.js";
import { addProvider, parseSse, startGateway, startSim, type TestGateway } from "../harness.js";

const HOUR = 3_600_000;
let home: string;
let gw: TestGateway;
let sim: Simulator;
let simStartedBetween: [number, number];
/** Tokens the simulator counted per key, from the usage each answer reported. */
const tokens: Record<string, number> = { ant: 0, oai: 0, rsp: 0 };

const msg = (model: string) => ({ model, max_tokens: 64, messages: [{ role: "user", content: "hello quotas" }] });
const chat = (model: string, extra: Record<string, unknown> = {}) => ({ model, messages: [{ role: "user", content: "hello quotas, how are you" }], ...extra });
const sec = (ms: number) => Math.floor(ms / 1000) * 1000;

async function quotas(): Promise<Map<string, UsageQuotaItem>> {
  const r = await gw.api("GET", "/api/usage/quotas");
  expect(r.status).toBe(200);
  return new Map((r.body.items as UsageQuotaItem[]).map((i) => [`${i.connectionId} ${i.window}`, i]));
}

/** The 5-hour and weekly resets fall at fixed instants counted from the simulator's start. */
function expectReset(resetAt: number | null, periodMs: number): void {
  expect(resetAt).not.toBeNull();
  expect(resetAt!).toBeGreaterThanOrEqual(sec(simStartedBetween[0] + periodMs));
  expect(resetAt!).toBeLessThanOrEqual(simStartedBetween[1] + periodMs);
}

beforeAll(async () => {
  home = mkdtempSync(path.join(tmpdir(), "switchyard-quotas-"));
  const before = Date.now();
  sim = await startSim({ label: "metered", quotaHeaders: true });
  simStartedBetween = [before, Date.now()];
  gw = await startGateway({ home });
  await addProvider(gw, "ant", sim, "anthropic", ["ant-key"]);
  await addProvider(gw, "oai", sim, "openai", ["oai-key"]);
  await addProvider(gw, "rsp", sim, "openai-responses", ["rsp-key"]);
  for (let i = 0; i < 2; i++) {
    const r = await gw.post("/v1/messages", msg("ant/m1"), { "anthropic-version": "2023-06-01" });
    expect(r.status).toBe(200);
    tokens.ant += r.body.usage.input_tokens + r.body.usage.output_tokens;
  }
  const json = await gw.post("/v1/chat/completions", chat("oai/m1"));
  expect(json.status).toBe(200);
  tokens.oai += json.body.usage.prompt_tokens + json.body.usage.completion_tokens;
  const streamed = await gw.post("/v1/chat/completions", chat("oai/m1", { stream: true, stream_options: { include_usage: true } }));
  expect(streamed.status).toBe(200);
  const usage = parseSse(streamed.text)
    .filter((e) => e.data !== "[DONE]")
    .map((e) => JSON.parse(e.data).usage)
    .find(Boolean);
  tokens.oai += usage.prompt_tokens + usage.completion_tokens;
  const rsp = await gw.post("/v1/responses", { model: "rsp/m1", input: "hello quotas" });
  expect(rsp.status).toBe(200);
  tokens.rsp += rsp.body.usage.input_tokens + rsp.body.usage.output_tokens;
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe("GET /api/usage/quotas (R18.3)", () => {
  it("R18.3 an Anthropic connection shows its unified 5h and 7d windows and its per-minute limits", async () => {
    const q = await quotas();
    expect(tokens.ant).toBeGreaterThan(0);
    const fiveHour = q.get("ant-c1 5h")!;
    expect(fiveHour).toMatchObject({ connectionId: "ant-c1", provider: "ant", source: "anthropic-unified", status: "allowed", remaining: null, limit: null });
    expect(fiveHour.usedPercent).toBeCloseTo((tokens.ant / SIM_QUOTA.fiveHourTokens) * 100, 4);
    expectReset(fiveHour.resetAt, 5 * HOUR);
    const week = q.get("ant-c1 7d")!;
    expect(week).toMatchObject({ source: "anthropic-unified", status: "allowed" });
    expect(week.usedPercent).toBeCloseTo((tokens.ant / SIM_QUOTA.weekTokens) * 100, 4);
    expectReset(week.resetAt, 7 * 24 * HOUR);
    const requests = q.get("ant-c1 requests")!;
    expect(requests).toMatchObject({ source: "anthropic", limit: SIM_QUOTA.anthropic.requests, status: null });
    // Both requests fall in one minute window, unless a minute boundary passed between them.
    expect([SIM_QUOTA.anthropic.requests - 2, SIM_QUOTA.anthropic.requests - 1]).toContain(requests.remaining);
    expect(requests.usedPercent).toBeCloseTo(((requests.limit! - requests.remaining!) / requests.limit!) * 100, 4);
    expect(requests.resetAt! - requests.seenAt).toBeGreaterThan(0);
    expect(requests.resetAt! - requests.seenAt).toBeLessThanOrEqual(60_000);
    expect(q.get("ant-c1 tokens")).toMatchObject({ limit: SIM_QUOTA.anthropic.tokens });
    expect(q.get("ant-c1 input-tokens")).toMatchObject({ limit: SIM_QUOTA.anthropic.inputTokens });
    expect(q.get("ant-c1 output-tokens")).toMatchObject({ limit: SIM_QUOTA.anthropic.outputTokens });
    expect(q.get("ant-c1 tokens")!.remaining).toBeLessThan(SIM_QUOTA.anthropic.tokens);
  });

  it("R18.3 an OpenAI connection shows its x-ratelimit requests and tokens windows, streamed answers included", async () => {
    const q = await quotas();
    const requests = q.get("oai-c1 requests")!;
    expect(requests).toMatchObject({ connectionId: "oai-c1", provider: "oai", source: "openai", limit: SIM_QUOTA.openai.requests, status: null });
    expect([SIM_QUOTA.openai.requests - 2, SIM_QUOTA.openai.requests - 1]).toContain(requests.remaining);
    expect(requests.resetAt! - requests.seenAt).toBeGreaterThan(0);
    expect(requests.resetAt! - requests.seenAt).toBeLessThanOrEqual(60_000);
    const tokenWindow = q.get("oai-c1 tokens")!;
    expect(tokenWindow.limit).toBe(SIM_QUOTA.openai.tokens);
    if (requests.remaining === SIM_QUOTA.openai.requests - 2) expect(tokenWindow.remaining).toBe(SIM_QUOTA.openai.tokens - tokens.oai);
    expect(tokenWindow.usedPercent).toBeCloseTo(((tokenWindow.limit! - tokenWindow.remaining!) / tokenWindow.limit!) * 100, 4);
    expect(q.get("oai-c1 5h")).toBeUndefined();
  });

  it("R18.3 a Responses (Codex-like) connection also shows Codex's primary and secondary windows", async () => {
    const q = await quotas();
    const primary = q.get("rsp-c1 5h")!;
    expect(primary).toMatchObject({ source: "codex", provider: "rsp" });
    expect(primary.usedPercent).toBeCloseTo((tokens.rsp / SIM_QUOTA.fiveHourTokens) * 100, 3);
    expectReset(primary.resetAt, 5 * HOUR);
    const secondary = q.get("rsp-c1 7d")!;
    expect(secondary.usedPercent).toBeCloseTo((tokens.rsp / SIM_QUOTA.weekTokens) * 100, 3);
    expectReset(secondary.resetAt, 7 * 24 * HOUR);
    expect(q.get("rsp-c1 requests")).toMatchObject({ source: "openai", remaining: SIM_QUOTA.openai.requests - 1 });
  });

  it("R18.3 a restart of the gateway on the same home keeps every window as it was", async () => {
    const before = await quotas();
    expect(before.size).toBeGreaterThanOrEqual(12);
    await gw.close();
    gw = await startGateway({ home });
    const after = await quotas();
    expect([...after.entries()]).toEqual([...before.entries()]);
  });

  it("R18.3 a 429 from the upstream updates the windows its headers name", async () => {
    const resetAt = Date.now() + 2 * HOUR;
    sim.addFault("ant-key", {
      status: 429,
      times: 1,
      headers: {
        "anthropic-ratelimit-unified-status": "rejected",
        "anthropic-ratelimit-unified-representative-claim": "five_hour",
        "anthropic-ratelimit-unified-5h-utilization": "1.0",
        "anthropic-ratelimit-unified-5h-status": "rejected",
        "anthropic-ratelimit-unified-5h-reset": String(Math.floor(resetAt / 1000)),
      },
    });
    const r = await gw.post("/v1/messages", msg("ant/m1"), { "anthropic-version": "2023-06-01" });
    expect(r.status).toBe(429);
    const q = await quotas();
    expect(q.get("ant-c1 5h")).toMatchObject({ usedPercent: 100, status: "rejected", resetAt: sec(resetAt), source: "anthropic-unified" });
    // A window the refusal did not mention keeps what the last answer said.
    expect(q.get("ant-c1 7d")!.usedPercent).toBeCloseTo((tokens.ant / SIM_QUOTA.weekTokens) * 100, 4);
  });

  it("R18.3 a deleted connection loses its windows, for good", async () => {
    const del = await gw.api("DELETE", "/api/connections/oai-c1");
    expect(del.status).toBeLessThan(300);
    const q = await quotas();
    expect([...q.keys()].filter((k) => k.startsWith("oai-c1 "))).toEqual([]);
    expect(q.get("ant-c1 5h")).toBeDefined();
    await gw.close();
    gw = await startGateway({ home });
    const reopened = await quotas();
    expect([...reopened.keys()].filter((k) => k.startsWith("oai-c1 "))).toEqual([]);
    expect(reopened.get("ant-c1 5h")).toMatchObject({ usedPercent: 100, status: "rejected" });
  });
});
