// Context windows over real HTTP (R25.1, R25.2, R25.3): a gateway in-process, the simulator as the
// upstream, its models given windows (`contextWindows`) after which it answers each vendor's own
// context error. A token is four characters to both the simulator and the gateway's estimate.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, startGateway, startSim, type TestGateway } from "../harness.js";

let sim: Simulator;
let gw: TestGateway;

/** A prompt of about `tokens` tokens. */
const words = (tokens: number): string => "abcd".repeat(tokens);
const chat = (model: string, tokens: number) => ({ model, messages: [{ role: "user", content: words(tokens) }] });
const messages = (model: string, tokens: number) => ({ model, max_tokens: 64, messages: [{ role: "user", content: words(tokens) }] });
const sentWith = (key: string) => sim.requests.filter((r) => r.key === key && r.status !== undefined).length;
const lastLog = async (g: TestGateway) => (await g.api("GET", "/api/logs?limit=1")).body[0];

beforeAll(async () => {
  // m1 of every provider on this simulator holds 8 000 tokens; m2 holds 200 000.
  sim = await startSim({ label: "sim", contextWindows: { m1: 8_000, m2: 200_000 } });
  gw = await startGateway();
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

describe("R25.1 context windows skip targets that cannot fit", () => {
  it("R25.1 a 15 000-token prompt to a combo of an 8k (modelInfo) and a 200k model skips the 8k one before dispatch (context_too_small)", async () => {
    await addProvider(gw, "small", sim, "openai", ["small-key"], { modelInfo: { m1: { contextWindow: 8_000 } } });
    await addProvider(gw, "large", sim, "openai", ["large-key"], { modelInfo: { m2: { contextWindow: 200_000 } } });
    expect((await gw.api("POST", "/api/combos", { name: "fit", targets: [{ model: "small/m1" }, { model: "large/m2" }] })).status).toBe(201);

    const r = await gw.post("/v1/chat/completions", chat("fit", 15_000));
    expect(r.status).toBe(200);
    expect(r.headers.get("x-switchyard-attempts")).toBe("1");
    expect(r.body.choices[0].message.content).toContain("large-key");
    expect(sentWith("small-key")).toBe(0);
    const log = await lastLog(gw);
    expect(log.skipped).toEqual([expect.objectContaining({ provider: "small", target: "small/m1", reason: "context_too_small" })]);

    // A prompt that fits still goes to the first target.
    const small = await gw.post("/v1/chat/completions", chat("fit", 1_000));
    expect(small.body.choices[0].message.content).toContain("small-key");
  });

  it("R25.1 when no larger window remains the prompt is tried on the largest, and its refusal is the client's context error", async () => {
    await addProvider(gw, "tiny", sim, "openai", ["tiny-key"], { models: ["m1"], modelInfo: { m1: { contextWindow: 4_000 } } });
    await addProvider(gw, "mid", sim, "openai", ["mid-key"], { models: ["m1"], modelInfo: { m1: { contextWindow: 8_000 } } });
    await gw.api("POST", "/api/combos", { name: "cramped", targets: [{ model: "tiny/m1" }, { model: "mid/m1" }] });

    const r = await gw.post("/v1/chat/completions", chat("cramped", 15_000));
    expect(sentWith("tiny-key")).toBe(0);
    expect(sentWith("mid-key")).toBe(1);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: "invalid_request_error", code: "context_length_exceeded" });
    expect(r.body.error.message).toContain("maximum context length is 8000 tokens");
  });

  it("R25.1 a learned window is kept across restarts: the refused model is skipped before dispatch after it", async () => {
    const home = mkdtempSync(path.join(tmpdir(), "switchyard-ctx-"));
    try {
      const first = await startGateway({ home });
      await addProvider(first, "learner", sim, "openai", ["learner-key"], { models: ["m1"] });
      await addProvider(first, "roomy", sim, "openai", ["roomy-key"], { models: ["m2"] });
      await first.api("POST", "/api/combos", { name: "learn", targets: [{ model: "learner/m1" }, { model: "roomy/m2" }] });
      const taught = await first.post("/v1/chat/completions", chat("learn", 12_000));
      expect(taught.status).toBe(200);
      expect(taught.headers.get("x-switchyard-attempts")).toBe("2");
      expect((await lastLog(first)).attempts[0]).toMatchObject({ provider: "learner", status: 400, verdict: "context_overflow" });
      await first.close();

      const second = await startGateway({ home });
      try {
        const before = sentWith("learner-key");
        const r = await second.post("/v1/chat/completions", chat("learn", 12_000));
        expect(r.status).toBe(200);
        expect(r.headers.get("x-switchyard-attempts")).toBe("1");
        expect(sentWith("learner-key")).toBe(before);
        expect((await lastLog(second)).skipped).toEqual([expect.objectContaining({ target: "learner/m1", reason: "context_too_small" })]);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe("R25.2 context_overflow is its own verdict", () => {
  it("R25.2 a refusal cools nothing, moves no breaker, learns the window and fails over to a larger window", async () => {
    await addProvider(gw, "narrow", sim, "anthropic", ["narrow-key"], { models: ["m1"] });
    await addProvider(gw, "wide", sim, "anthropic", ["wide-key"], { models: ["m2"] });
    await gw.api("POST", "/api/combos", { name: "grow", targets: [{ model: "narrow/m1" }, { model: "wide/m2" }] });

    const r = await gw.post("/v1/messages", messages("grow", 15_000), { "anthropic-version": "2023-06-01" });
    expect(r.status).toBe(200);
    expect(r.body.content[0].text).toContain("wide-key");
    expect((await lastLog(gw)).attempts[0]).toMatchObject({ provider: "narrow", status: 400, verdict: "context_overflow" });

    const cooling = await gw.api("GET", "/api/resilience/cooldowns?provider=narrow");
    expect(cooling.body.items).toEqual([]);
    const health = await gw.api("GET", "/api/monitoring/health");
    expect(health.body.providerBreakers.find((b: { provider: string }) => b.provider === "narrow")?.failureCount ?? 0).toBe(0);
    const [connection] = (await gw.api("GET", "/api/connections?provider=narrow")).body;
    expect(connection.rateLimitedUntil).toBeNull();

    // The window was learned (8 000, as the refusal stated): the next long prompt skips it, a short one still goes there.
    expect((await gw.post("/v1/messages", messages("grow", 15_000), { "anthropic-version": "2023-06-01" })).headers.get("x-switchyard-attempts")).toBe("1");
    expect(sentWith("narrow-key")).toBe(1);
    const short = await gw.post("/v1/messages", messages("grow", 500), { "anthropic-version": "2023-06-01" });
    expect(short.body.content[0].text).toContain("narrow-key");
  });

  it("R25.2 a refusal with no numbers still classifies, and the window is learned from the estimate", async () => {
    const body = '{"error":{"message":"Input is too long for this model.","type":"invalid_request_error"}}';
    await addProvider(gw, "mute", sim, "simulator", ["mute-key"], { models: ["m1"], options: { fault: { status: 400, body } } });
    await addProvider(gw, "spacious", sim, "openai", ["spacious-key"], { models: ["m2"] });
    await gw.api("POST", "/api/combos", { name: "mute-first", targets: [{ model: "mute/m1" }, { model: "spacious/m2" }] });
    const r = await gw.post("/v1/chat/completions", chat("mute-first", 9_000));
    expect(r.status).toBe(200);
    expect((await lastLog(gw)).attempts[0]).toMatchObject({ provider: "mute", verdict: "context_overflow" });
    const again = await gw.post("/v1/chat/completions", chat("mute-first", 9_000));
    expect(again.headers.get("x-switchyard-attempts")).toBe("1");
    expect((await lastLog(gw)).skipped).toEqual([expect.objectContaining({ target: "mute/m1", reason: "context_too_small" })]);
  });

  it("R25.2 when no window is left each client gets its own vendor's context error, so its agent compacts", async () => {
    await addProvider(gw, "only", sim, "openai", ["only-key"], { models: ["m1"] });
    const anthropic = await gw.post("/v1/messages", messages("only/m1", 15_000), { "anthropic-version": "2023-06-01" });
    expect(anthropic.status).toBe(400);
    expect(anthropic.body).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
    expect(anthropic.body.error.message).toMatch(/^prompt is too long: 150\d\d tokens > 8000 maximum$/);
    expect(anthropic.headers.get("x-should-retry")).toBe("false");

    const openai = await gw.post("/v1/chat/completions", chat("only/m1", 15_000));
    expect(openai.status).toBe(400);
    expect(openai.body.error).toMatchObject({ type: "invalid_request_error", code: "context_length_exceeded" });

    const responses = await gw.post("/v1/responses", { model: "only/m1", input: words(15_000) });
    expect(responses.status).toBe(400);
    expect(responses.body.error).toMatchObject({ code: "context_length_exceeded" });

    const gemini = await gw.post("/v1beta/models/only%2Fm1:generateContent", { contents: [{ role: "user", parts: [{ text: words(15_000) }] }] });
    expect(gemini.status).toBe(400);
    expect(gemini.body.error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT" });
    expect(gemini.body.error.message).toMatch(/^The input token count \(150\d\d\) exceeds the maximum number of tokens allowed \(8000\)\.$/);
    // One attempt each: the model's window was learned from the first refusal.
    expect(sentWith("only-key")).toBeLessThanOrEqual(4);
  });
});

describe("R25.1 windows from the shipped catalogue", () => {
  it("R25.1 a model the catalogue knows has its window without modelInfo: listed, and read by context-optimized", async () => {
    await addProvider(gw, "cat", sim, "openai", ["cat-key"], { models: ["gpt-4o-mini"] });
    await addProvider(gw, "x32", sim, "openai", ["x32-key"], { models: ["m1"], modelInfo: { m1: { contextWindow: 32_000 } } });
    await gw.api("POST", "/api/combos", { name: "widest", strategy: "context-optimized", targets: [{ model: "x32/m1" }, { model: "cat/gpt-4o-mini" }] });
    const listed = (await (await fetch(`${gw.url}/v1/models`)).json()) as { data: Array<Record<string, unknown>> };
    expect(listed.data.find((m) => m.id === "cat/gpt-4o-mini")).toMatchObject({ context_window: 128_000 });
    const r = await gw.post("/v1/chat/completions", chat("widest", 100));
    expect(r.status).toBe(200);
    expect(r.body.choices[0].message.content).toContain("cat-key");
  });
});

describe("R25.3 model lists carry windows", () => {
  it("R25.3 GET /v1/models with anthropic-version answers in Anthropic's shape with max_input_tokens; a combo's is its largest target's", async () => {
    const r = await fetch(`${gw.url}/v1/models?limit=1000`, { headers: { "anthropic-version": "2023-06-01", "x-api-key": "x" } });
    expect(r.status).toBe(200);
    const body = (await r.json()) as { data: Array<Record<string, unknown>>; has_more: boolean; first_id: string; last_id: string };
    expect(body.has_more).toBe(false);
    expect(body.first_id).toBe(body.data[0].id);
    expect(body.last_id).toBe(body.data[body.data.length - 1].id);
    const byId = new Map(body.data.map((m) => [m.id, m]));
    expect(byId.get("small/m1")).toMatchObject({ type: "model", display_name: "small/m1", max_input_tokens: 8_000 });
    expect(typeof byId.get("small/m1")?.created_at).toBe("string");
    expect(byId.get("fit")).toMatchObject({ type: "model", max_input_tokens: 200_000 });
    // A window learned from a refusal is listed too (narrow/m1 refused at 8 000).
    expect(byId.get("narrow/m1")).toMatchObject({ max_input_tokens: 8_000 });

    const paged = await fetch(`${gw.url}/v1/models?limit=2&after_id=${encodeURIComponent(body.data[0].id as string)}`, { headers: { "anthropic-version": "2023-06-01" } });
    const page = (await paged.json()) as { data: Array<{ id: string }>; has_more: boolean; first_id: string };
    expect(page.data.map((m) => m.id)).toEqual([body.data[1].id, body.data[2].id]);
    expect(page.has_more).toBe(true);
  });

  it("R25.3 OpenAI list entries carry context_window where known", async () => {
    const r = await fetch(`${gw.url}/v1/models`);
    const body = (await r.json()) as { object: string; data: Array<Record<string, unknown>> };
    expect(body.object).toBe("list");
    const byId = new Map(body.data.map((m) => [m.id, m]));
    expect(byId.get("large/m2")).toMatchObject({ object: "model", context_window: 200_000 });
    expect(byId.get("fit")).toMatchObject({ context_window: 200_000 });
    const one = await fetch(`${gw.url}/v1/models/small%2Fm1`);
    expect(await one.json()).toMatchObject({ id: "small/m1", context_window: 8_000 });
  });
});
