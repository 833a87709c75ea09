// Emergency fallback (R11.6) and dynamic tool-limit detection (R11.7) over real HTTP: a gateway
// in-process, the simulator as upstream, faults set per provider (`options.fault`).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, startGateway, startSim, type TestGateway } from "../harness.js";

let sim: Simulator;
let gw: TestGateway;

beforeAll(async () => {
  sim = await startSim({ label: "sim" });
  gw = await startGateway();
  await addProvider(gw, "spare", sim, "openai", ["spare-key"]);
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

const chat = (model: string, extra: Record<string, unknown> = {}) => ({ model, messages: [{ role: "user", content: "hello" }], ...extra });
const tools = (n: number) => Array.from({ length: n }, (_, i) => ({ type: "function", function: { name: `tool_${i}`, parameters: { type: "object", properties: {} } } }));
const sentWith = (key: string) => sim.requests.filter((r) => r.key === key).length;

/** A provider on the simulator whose every answer is shaped by `fault`, with one connection. */
async function faulty(g: TestGateway, id: string, fault: Record<string, unknown>): Promise<void> {
  await addProvider(g, id, sim, "simulator", [`${id}-key`], { options: { fault } });
}

describe("R11.6 emergency fallback", () => {
  it("R11.6 a model whose only connection answers 503 is served by the configured fallback, with the header", async () => {
    await faulty(gw, "down1", { status: 503 });
    expect((await gw.api("PATCH", "/api/settings", { emergencyFallback: { enabled: true, model: "spare/m1" } })).status).toBe(200);
    const r = await gw.post("/v1/chat/completions", chat("down1/m1"));
    expect(r.status).toBe(200);
    expect(r.headers.get("x-switchyard-emergency-fallback")).toBe("1");
    expect(r.headers.get("x-switchyard-attempts")).toBe("2");
    expect(r.body.choices[0].message.content).toContain("spare-key");
    const logs = await gw.api("GET", "/api/logs?limit=1");
    expect(logs.body[0]).toMatchObject({
      status: 200,
      provider: "spare",
      attempts: [
        { provider: "down1", status: 503 },
        { provider: "spare", status: 200 },
      ],
    });
  });

  it("R11.6 a streaming request is served by the fallback too, with the header on its 200 stream", async () => {
    await faulty(gw, "down6", { status: 503 });
    await gw.api("PATCH", "/api/settings", { emergencyFallback: { enabled: true, model: "spare/m1" } });
    const r = await gw.post("/v1/chat/completions", chat("down6/m1", { stream: true }));
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("text/event-stream");
    expect(r.headers.get("x-switchyard-emergency-fallback")).toBe("1");
    expect(r.text).toContain("spare-key");
    expect(r.text).toContain("[DONE]");
  });

  it("R11.6 toggled off at runtime, the same failure gives the 503 verdict and the fallback is not called", async () => {
    await faulty(gw, "down2", { status: 503 });
    await gw.api("PATCH", "/api/settings", { emergencyFallback: { enabled: false } });
    const before = sentWith("spare-key");
    const r = await gw.post("/v1/chat/completions", chat("down2/m1"));
    expect(r.status).toBe(503);
    expect(r.headers.get("x-switchyard-emergency-fallback")).toBeNull();
    expect(sentWith("spare-key")).toBe(before);
  });

  it("R11.6 a 400 (the client's own fault) is never sent to the fallback", async () => {
    await faulty(gw, "picky", { status: 400, body: '{"error":{"message":"messages: field required","type":"invalid_request_error"}}' });
    await gw.api("PATCH", "/api/settings", { emergencyFallback: { enabled: true, model: "spare/m1" } });
    const before = sentWith("spare-key");
    const r = await gw.post("/v1/chat/completions", chat("picky/m1"));
    expect(r.status).toBe(400);
    expect(r.headers.get("x-switchyard-emergency-fallback")).toBeNull();
    expect(sentWith("spare-key")).toBe(before);
  });

  it("R11.6 the fallback is never a target the request already tried, and it is one attempt only", async () => {
    await faulty(gw, "down3", { status: 503 });
    await addProvider(gw, "down4", sim, "simulator", ["down4-k1", "down4-k2"], { options: { fault: { status: 503 } } });
    await gw.api("PATCH", "/api/settings", { emergencyFallback: { enabled: true, model: "down3/m1" } });
    const self = await gw.post("/v1/chat/completions", chat("down3/m1"));
    expect(self.status).toBe(503);
    expect(self.headers.get("x-switchyard-attempts")).toBe("1");
    expect(self.headers.get("x-switchyard-emergency-fallback")).toBeNull();
    await faulty(gw, "down5", { status: 503 });
    await gw.api("PATCH", "/api/settings", { emergencyFallback: { model: "down4/m1" } });
    const r = await gw.post("/v1/chat/completions", chat("down5/m1"));
    expect(r.status).toBe(503);
    expect(r.headers.get("x-switchyard-emergency-fallback")).toBe("1");
    // down4 has two connections; the fallback takes one of them, not both.
    expect(r.headers.get("x-switchyard-attempts")).toBe("2");
    expect(sentWith("down4-k1") + sentWith("down4-k2")).toBe(1);
  });

  it("R11.6 R10.2 OMNIROUTE_EMERGENCY_FALLBACK seeds the setting until one is saved; saving another setting keeps the seed", async () => {
    const g = await startGateway({ env: { OMNIROUTE_EMERGENCY_FALLBACK: "spare/m1" } });
    try {
      await addProvider(g, "spare", sim, "openai", ["spare-key"]);
      await faulty(g, "down", { status: 503 });
      expect((await g.post("/v1/chat/completions", chat("down/m1"))).headers.get("x-switchyard-emergency-fallback")).toBe("1");
      await g.api("PATCH", "/api/settings", { maxBodyMb: 40 });
      const kept = await g.post("/v1/chat/completions", chat("down/m1"));
      expect(kept.status).toBe(200);
      expect(kept.headers.get("x-switchyard-emergency-fallback")).toBe("1");
      await g.api("PATCH", "/api/settings", { emergencyFallback: { enabled: false } });
      expect((await g.post("/v1/chat/completions", chat("down/m1"))).status).toBe(503);
    } finally {
      await g.close();
    }
  });
});

describe("R11.7 dynamic tool-limit detection", () => {
  it("R11.7 a too-many-tools refusal fails over and teaches the limit: 40 tools then skip A, 5 tools still go to A", async () => {
    await faulty(gw, "small", { maxTools: 32 });
    await addProvider(gw, "big", sim, "openai", ["big-key"]);
    expect((await gw.api("POST", "/api/combos", { name: "toolbox", targets: [{ model: "small/m1" }, { model: "big/m1" }] })).status).toBe(201);

    const first = await gw.post("/v1/chat/completions", chat("toolbox", { tools: tools(40) }));
    expect(first.status).toBe(200);
    expect(first.headers.get("x-switchyard-attempts")).toBe("2");
    expect(first.body.choices[0].message.content).toContain("big-key");
    expect(sentWith("small-key")).toBe(1);
    const log = (await gw.api("GET", "/api/logs?limit=1")).body[0];
    expect(log.attempts[0]).toMatchObject({ provider: "small", status: 400, verdict: "tool_limit" });

    const second = await gw.post("/v1/chat/completions", chat("toolbox", { tools: tools(40) }));
    expect(second.status).toBe(200);
    expect(second.headers.get("x-switchyard-attempts")).toBe("1");
    expect(second.body.choices[0].message.content).toContain("big-key");
    expect(sentWith("small-key")).toBe(1);

    const small = await gw.post("/v1/chat/completions", chat("toolbox", { tools: tools(5) }));
    expect(small.status).toBe(200);
    expect(small.body.choices[0].message.content).toContain("small-key");
    expect(sentWith("small-key")).toBe(2);

    const atLimit = await gw.post("/v1/chat/completions", chat("toolbox", { tools: tools(32) }));
    expect(atLimit.body.choices[0].message.content).toContain("small-key");
  });

  it("R11.7 a model with no other target still reaches its provider, whose own refusal the client sees", async () => {
    await faulty(gw, "tiny", { maxTools: 2 });
    const first = await gw.post("/v1/chat/completions", chat("tiny/m1", { tools: tools(3) }));
    expect(first.status).toBe(400);
    const again = await gw.post("/v1/chat/completions", chat("tiny/m1", { tools: tools(3) }));
    expect(again.status).toBe(400);
    expect(again.headers.get("x-switchyard-attempts")).toBe("1");
    expect(sentWith("tiny-key")).toBe(2);
  });
});
