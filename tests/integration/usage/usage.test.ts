// Tokens and cost per request and the usage rollups (R18.1, R18.2), over real HTTP: Anthropic,
// OpenAI, Responses and Gemini clients through the gateway to simulator upstreams that cache
// prompts per key as the vendors do; the report counts what the log rows say, by every grouping,
// from rollups that outlive the log's retention.
import { calcPrice } from "@pydantic/genai-prices";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { UsageReport } from "../../../shared/apiTypes.js";
import type { RequestLogEntry } from "../../../shared/types.js";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, startGateway, startSim, type TestGateway } from "../harness.js";

let gw: TestGateway;
let sim: Simulator;
let clientKey: { id: string; key: string };

// Long enough (> 1 024 tokens) for the upstream to cache it.
const SYSTEM = "You are a careful coding agent. ".repeat(200);
const PRICES = { inputPricePerMTok: 3, outputPricePerMTok: 15, cacheReadPricePerMTok: 0.3, cacheWritePricePerMTok: 3.75 };

const anthropicTurn = (messages: unknown[], headers: Record<string, string> = {}) =>
  gw.post("/v1/messages", { model: "anth/m1", max_tokens: 100, system: [{ type: "text", text: SYSTEM, cache_control: { type: "ephemeral" } }], messages }, headers);

async function logOf(res: { headers: Headers }): Promise<RequestLogEntry> {
  const id = res.headers.get("x-switchyard-request-id")!;
  const row = await gw.api<RequestLogEntry>("GET", `/api/logs/${id}`);
  expect(row.status).toBe(200);
  return row.body;
}

const usage = (query: string) => gw.api<UsageReport>("GET", `/api/usage?${query}`);

beforeAll(async () => {
  sim = await startSim({ label: "usage" });
  gw = await startGateway({ testClock: true });
  await addProvider(gw, "anth", sim, "anthropic", ["anth-k1"], { modelInfo: { m1: PRICES } });
  await addProvider(gw, "oai", sim, "openai", ["oai-k1"], { models: ["gpt-5"] });
  await addProvider(gw, "resp", sim, "openai-responses", ["resp-k1"], { models: ["gpt-5"] });
  await addProvider(gw, "gem", sim, "gemini", ["gem-k1"], { models: ["gemini-2.5-pro"] });
  clientKey = (await gw.api("POST", "/api/keys", { name: "laptop" })).body;
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

describe("tokens and cost per request (R18.1)", () => {
  let first: RequestLogEntry;
  let second: RequestLogEntry;

  it("R18.1 an Anthropic turn that writes the prompt cache, then one that reads it: every count and the modelInfo cost", async () => {
    const turn1 = [{ role: "user", content: "hello" }];
    const r1 = await anthropicTurn(turn1);
    expect(r1.status).toBe(200);
    first = await logOf(r1);
    const u1 = r1.body.usage;
    expect(first.cacheWriteTokens).toBe(u1.cache_creation_input_tokens);
    expect(first.cacheWriteTokens).toBeGreaterThan(1_000);
    expect(first.cacheReadTokens).toBe(0);
    expect(first.inputTokens).toBe(u1.input_tokens + u1.cache_creation_input_tokens + u1.cache_read_input_tokens);
    expect(first.outputTokens).toBe(u1.output_tokens);
    const r2 = await anthropicTurn([...turn1, { role: "assistant", content: r1.body.content[0].text }, { role: "user", content: "and again" }]);
    second = await logOf(r2);
    expect(second.cacheReadTokens).toBe(r2.body.usage.cache_read_input_tokens);
    expect(second.cacheReadTokens).toBeGreaterThan(1_000);
    for (const row of [first, second]) {
      const uncached = row.inputTokens! - row.cacheReadTokens! - row.cacheWriteTokens!;
      const expected = (uncached * 3 + row.cacheReadTokens! * 0.3 + row.cacheWriteTokens! * 3.75 + row.outputTokens! * 15) / 1e6;
      expect(row.costSource).toBe("modelInfo");
      expect(row.costUsd).toBeCloseTo(expected, 12);
      expect(row.servedModel).toBe("anth/m1");
    }
    // The cached turn is cheaper per prompt token than the one that wrote the cache.
    expect(second.costUsd! / second.inputTokens!).toBeLessThan(first.costUsd! / first.inputTokens!);
  });

  it("R18.1 a streamed OpenAI chat (include_usage) and a streamed Responses turn with reasoning are priced from the catalogue", async () => {
    const chat = await gw.post("/v1/chat/completions", {
      model: "oai/gpt-5",
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: "system", content: SYSTEM },
        { role: "user", content: "hi" },
      ],
    });
    expect(chat.status).toBe(200);
    const chatRow = await logOf(chat);
    expect(chatRow.stream).toBe(true);
    expect(chatRow.inputTokens).toBeGreaterThan(1_000);
    const expected = calcPrice({ input_tokens: chatRow.inputTokens!, output_tokens: chatRow.outputTokens!, cache_read_tokens: chatRow.cacheReadTokens ?? 0 }, "gpt-5", {
      providerId: "openai",
    });
    expect(chatRow.costSource).toBe("catalog");
    expect(chatRow.costUsd).toBeCloseTo(expected!.total_price, 12);

    const resp = await gw.post("/v1/responses", { model: "resp/gpt-5", stream: true, reasoning: { effort: "medium", summary: "auto" }, input: "think first" });
    expect(resp.status).toBe(200);
    const respRow = await logOf(resp);
    const completed = resp.text
      .split("\n")
      .filter((l) => l.startsWith("data:"))
      .map((l) => JSON.parse(l.slice(5)))
      .find((e) => e.type === "response.completed");
    expect(respRow.reasoningTokens).toBe(completed.response.usage.output_tokens_details.reasoning_tokens);
    expect(respRow.reasoningTokens).toBeGreaterThan(0);
    expect(respRow.costSource).toBe("catalog");
  });

  it("R18.1 a Gemini client's implicit cache hit is counted as cache reads", async () => {
    const contents = [{ role: "user", parts: [{ text: SYSTEM }] }];
    const path = "/v1beta/models/gem/gemini-2.5-pro:generateContent";
    expect((await gw.post(path, { contents })).status).toBe(200);
    const again = await gw.post(path, { contents: [...contents, { role: "model", parts: [{ text: "ok" }] }, { role: "user", parts: [{ text: "more" }] }] });
    expect(again.status).toBe(200);
    const row = await logOf(again);
    expect(row.cacheReadTokens).toBe(again.body.usageMetadata.cachedContentTokenCount);
    expect(row.cacheReadTokens).toBeGreaterThan(1_000);
    expect(row.costSource).toBe("catalog");
  });

  it("R18.1 a subscription connection's cost is notional; a request with no tokens has no cost", async () => {
    expect((await gw.api("PATCH", "/api/connections/anth-c1", { subscription: true })).status).toBe(200);
    const row = await logOf(await anthropicTurn([{ role: "user", content: "on the plan" }]));
    expect(row.costNotional).toBe(true);
    expect(row.costUsd).toBeGreaterThan(0);
    expect((await gw.api("PATCH", "/api/connections/anth-c1", { subscription: false })).status).toBe(200);
    const missing = await gw.post("/v1/chat/completions", { model: "nobody/m1", messages: [{ role: "user", content: "x" }] });
    const failed = await logOf(missing);
    expect([failed.costUsd, failed.costSource, failed.inputTokens]).toEqual([null, null, null]);
  });
});

describe("GET /api/usage from rollups (R18.2)", () => {
  it("R18.2 the totals equal the log rows' sums, by provider per hour (the default)", async () => {
    await anthropicTurn([{ role: "user", content: "with a key" }], { "x-api-key": clientKey.key });
    const rows = (await gw.api<RequestLogEntry[]>("GET", "/api/logs?limit=1000")).body;
    const report = await usage("");
    expect(report.status).toBe(200);
    expect(report.body).toMatchObject({ groupBy: "provider", bucket: "hour" });
    expect(report.body.to - report.body.from).toBe(86_400_000);
    const sum = (f: (r: RequestLogEntry) => number | null | undefined) => rows.reduce((n, r) => n + (f(r) ?? 0), 0);
    expect(report.body.totals.requests).toBe(rows.length);
    expect(report.body.totals.inputTokens).toBe(sum((r) => r.inputTokens));
    expect(report.body.totals.outputTokens).toBe(sum((r) => r.outputTokens));
    expect(report.body.totals.cacheReadTokens).toBe(sum((r) => r.cacheReadTokens));
    expect(report.body.totals.cacheWriteTokens).toBe(sum((r) => r.cacheWriteTokens));
    expect(report.body.totals.reasoningTokens).toBe(sum((r) => r.reasoningTokens));
    expect(report.body.totals.costUsd).toBeCloseTo(
      sum((r) => r.costUsd),
      12,
    );
    expect(report.body.series.map((s) => s.key).sort()).toEqual(["(none)", "anth", "gem", "oai", "resp"]);
    const anth = report.body.series.find((s) => s.key === "anth")!;
    expect(anth.points.reduce((n, p) => n + p.requests, 0)).toBe(rows.filter((r) => r.provider === "anth").length);
    for (const p of anth.points) expect(p.t % 3_600_000).toBe(0);
  });

  it("R18.2 groups by connection, model, client and key; by day with ISO bounds", async () => {
    const byModel = (await usage("groupBy=model")).body;
    expect(byModel.series.map((s) => s.key)).toEqual(expect.arrayContaining(["anth/m1", "oai/gpt-5", "resp/gpt-5", "gem/gemini-2.5-pro"]));
    const byKey = (await usage("groupBy=key")).body;
    expect(byKey.series.find((s) => s.key === clientKey.id)?.points.reduce((n, p) => n + p.requests, 0)).toBe(1);
    const byConnection = (await usage("groupBy=connection")).body;
    expect(byConnection.series.map((s) => s.key)).toEqual(expect.arrayContaining(["anth-c1", "oai-c1"]));
    const byClient = (await usage("groupBy=client")).body;
    expect(byClient.totals.requests).toBe(byModel.totals.requests);
    const now = (await gw.api<{ now: number }>("GET", "/api/debug/clock")).body.now;
    const from = new Date(now - 2 * 86_400_000).toISOString();
    const byDay = await usage(`bucket=day&from=${from}&to=${now + 1}`);
    expect(byDay.status).toBe(200);
    expect(byDay.body.bucket).toBe("day");
    expect(byDay.body.totals.requests).toBe(byModel.totals.requests);
    for (const s of byDay.body.series) for (const p of s.points) expect(p.t % 86_400_000).toBe(0);
    // A window that ended before any request: nothing.
    expect((await usage(`from=0&to=1000`)).body.totals.requests).toBe(0);
  });

  it("R18.2 rollups outlive the request log's retention: the report still counts trimmed rows", async () => {
    const before = (await usage("")).body.totals.requests;
    // The smallest retention the settings allow; more requests than it keeps.
    expect((await gw.api("PATCH", "/api/settings", { requestLogRetention: 100 })).status).toBe(200);
    for (let i = 0; i < 120; i++) expect((await gw.post("/v1/chat/completions", { model: "oai/gpt-5", messages: [{ role: "user", content: `n${i}` }] })).status).toBe(200);
    expect((await gw.api<RequestLogEntry[]>("GET", "/api/logs?limit=1000")).body.length).toBe(100);
    expect((await usage("")).body.totals.requests).toBe(before + 120);
  });

  it("R18.2 the CSV export carries the same series, one line per group and bucket", async () => {
    const report = (await usage("groupBy=provider")).body;
    const res = await fetch(`${gw.url}/api/usage.csv?groupBy=provider`, { headers: { authorization: `Bearer ${gw.token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/csv/);
    const lines = (await res.text()).trim().split("\n");
    expect(lines[0]).toBe("time,provider,requests,inputTokens,outputTokens,cacheReadTokens,cacheWriteTokens,reasoningTokens,costUsd");
    expect(lines.length - 1).toBe(report.series.reduce((n, s) => n + s.points.length, 0));
    const requests = lines.slice(1).reduce((n, l) => n + Number(l.split(",")[2]), 0);
    expect(requests).toBe(report.totals.requests);
  });

  it("R18.2 bad queries are refused naming the field", async () => {
    for (const [query, field] of [
      ["groupBy=team", "groupBy"],
      ["bucket=week", "bucket"],
      ["from=2026-12-02&to=2026-12-01", "from"],
      ["from=yesterday", "from"],
    ] as const) {
      const res = await usage(query);
      expect(res.status, query).toBe(400);
      expect((res.body as unknown as { error: { path: string } }).error.path, query).toBe(field);
    }
  });
});
