// R2.5 / R4.1 / R5.4: a restart keeps breakers and connection cooldowns, not model lockouts.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, startGateway, startSim } from "../harness.js";

const home = mkdtempSync(path.join(tmpdir(), "switchyard-restart-"));
let sim: Simulator;

afterAll(async () => {
  await sim?.close();
  rmSync(home, { recursive: true, force: true });
});

const chat = (model: string) => ({ model, messages: [{ role: "user", content: "hi" }] });

it("R2.5 R4.1 R5.4 breakers and connection cooldowns survive a restart; lockouts do not", async () => {
  sim = await startSim();
  const first = await startGateway({ home });
  await addProvider(first, "brk", sim, "openai", ["b-1", "b-2"], { category: "local" });
  await addProvider(first, "cool", sim, "openai", ["c-1", "c-2"]);
  sim.addFault("b-1", { status: 503, times: 1 });
  sim.addFault("b-2", { status: 503, times: 1 });
  await first.post("/v1/chat/completions", chat("brk/m1"));
  sim.addFault("c-1", { status: 429, retryAfter: 600, times: 1 });
  await first.post("/v1/chat/completions", chat("cool/m1"));
  // With lockouts on, a model-scoped failure locks the model instead of cooling the connection.
  await first.api("PATCH", "/api/resilience", { modelLockout: { enabled: true } });
  sim.addFault("c-2", { status: 404, times: 1 });
  await first.post("/v1/chat/completions", chat("cool/m2"));
  const lockedBefore = (await first.api("GET", "/api/resilience/model-cooldowns")).body.items;
  expect(lockedBefore).toEqual(expect.arrayContaining([expect.objectContaining({ provider: "cool", connectionId: "cool-c2", model: "m2" })]));
  const until = (await first.api("GET", "/api/connections/cool-c1")).body.rateLimitedUntil;
  expect(until).toBeGreaterThan(Date.now() + 500_000);
  await first.close();

  const second = await startGateway({ home });
  try {
    const health = await second.api("GET", "/api/monitoring/health");
    expect(health.body.providerBreakers.find((b: { provider: string }) => b.provider === "brk").state).toBe("OPEN");
    const conn = (await second.api("GET", "/api/connections/cool-c1")).body;
    expect(conn.rateLimitedUntil).toBe(until);
    const items = (await second.api("GET", "/api/resilience/cooldowns")).body.items;
    expect(items.map((i: { connectionId: string }) => i.connectionId)).toContain("cool-c1");
    expect((await second.api("GET", "/api/resilience/model-cooldowns")).body.items).toEqual([]);
    expect((await second.api("GET", "/api/resilience")).body.modelLockout.enabled).toBe(true);
  } finally {
    await second.close();
  }
});
