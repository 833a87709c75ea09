// R22.3 (R19.1): reasoning provenance holds across the instances of a team gateway. Two gateways
// built in-process share one real redis-server; each names its connections with ids of its own
// (A's "claude-a1", B's "claude-b1") under the same names and keys. A thinking answer served
// through A by key 1 comes back through B (the load balancer's pick): B must send it intact to key
// 1, its own id of the same account, and still take it out for key 2. Before the book was shared,
// B knew none of A's artifacts and stripped them as a stranger's.
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blobMark } from "../../../main/gateway/features/provenance/book.js";
import { stateHashKey } from "../../../main/group/redisState.js";
import type { Simulator } from "../../../main/simulator/index.js";
import { startGateway, startSim, type TestGateway } from "../harness.js";
import { startRedis, type RedisProcess } from "../admission/processes.js";

type Json = Record<string, any>;

const PROPAGATION_MS = 250; // R19.1
const ANTHROPIC = { "anthropic-version": "2023-06-01", "x-api-key": "x" };

let redis: RedisProcess;
let raw: Redis;
let sim: Simulator;
let a: TestGateway;
let b: TestGateway;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const health = async (gw: TestGateway) => (await gw.api("GET", "/api/monitoring/health")).body;

/** Provider "claude" on the simulator, connections `claude-<side><n>` named `claude key <n>` with keys `claude-key-<n>`, key 1 first. */
async function claude(gw: TestGateway, side: "a" | "b"): Promise<void> {
  const p = await gw.api("POST", "/api/providers", { id: "claude", format: "anthropic", baseUrl: sim.url, category: "apikey", models: ["m1"] });
  expect(p.status, p.text).toBe(201);
  for (const i of [1, 2]) {
    const c = await gw.api("POST", "/api/connections", { id: `claude-${side}${i}`, provider: "claude", name: `claude key ${i}`, apiKey: `claude-key-${i}`, priority: i });
    expect(c.status, c.text).toBe(201);
  }
}

const turn = (messages: Json[]) => ({ model: "claude/m1", max_tokens: 4096, thinking: { type: "enabled", budget_tokens: 2048 }, messages });
const lastRow = async (gw: TestGateway): Promise<Json> => (await gw.api<Json[]>("GET", "/api/logs?limit=1")).body[0];

beforeAll(async () => {
  redis = await startRedis();
  raw = new Redis(redis.url);
  sim = await startSim({ label: "provenance-group" });
  a = await startGateway({ env: { SWITCHYARD_REDIS_URL: redis.url } });
  b = await startGateway({ env: { SWITCHYARD_REDIS_URL: redis.url } });
  for (let i = 0; i < 200; i++) {
    const [ha, hb] = await Promise.all([health(a), health(b)]);
    if (ha.sharedState?.status === "ok" && hb.sharedState?.status === "ok") break;
    await sleep(25);
  }
  expect((await health(a)).sharedState).toMatchObject({ mode: "redis", status: "ok" });
  expect((await health(b)).sharedState).toMatchObject({ mode: "redis", status: "ok" });
  await claude(a, "a");
  await claude(b, "b");
}, 30_000);

afterAll(async () => {
  await a?.close();
  await b?.close();
  await sim?.close();
  raw?.disconnect();
  await redis?.stop();
});

describe("R22.3 reasoning provenance across the instances of a team gateway", () => {
  it("R22.3 a signature issued through instance A goes back intact to its account through instance B; B still strips it for another account", async () => {
    const ask = [{ role: "user", content: "Think first, then answer." }];
    const first = await a.post("/v1/messages", turn(ask), ANTHROPIC);
    expect(first.status).toBe(200);
    expect(sim.requests.at(-1)!.key).toBe("claude-key-1");
    const assistant = first.body.content as Json[];
    expect(assistant[0]).toMatchObject({ type: "thinking", signature: expect.stringMatching(/^gAAAAA/) });

    // The group holds the artifact's digest with the account named group-stably, never the signature.
    const mark = blobMark(assistant[0].signature);
    let stored: string | null = null;
    for (let i = 0; i < 50 && stored === null; i++) {
      stored = await raw.hget(stateHashKey("provenance"), mark);
      if (stored === null) await sleep(10);
    }
    expect(stored).not.toBeNull();
    expect(stored).not.toContain(assistant[0].signature);
    expect(JSON.parse(stored!).value).toEqual({ connection: "claude/claude key 1" });
    await sleep(PROPAGATION_MS);

    const messages = [...ask, { role: "assistant", content: assistant }, { role: "user", content: "And now?" }];
    const rawBody = JSON.stringify(turn(messages));
    const res = await fetch(`${b.url}/v1/messages`, { method: "POST", headers: { ...ANTHROPIC, "content-type": "application/json" }, body: rawBody });
    expect(res.status).toBe(200);
    await res.text();
    const sent = sim.requests.at(-1)!;
    expect(sent.key).toBe("claude-key-1");
    expect(sent.rawBody).toBe(rawBody.replace('"model":"claude/m1"', '"model":"m1"'));
    const row = await lastRow(b);
    expect(row.connectionId).toBe("claude-b1");
    expect(row.provenance ?? null).toBeNull();

    // Through B to the other account, the same signature is foreign and goes (B knows whose it is, not "anyone's").
    sim.addFault("claude-key-1", { status: 529, times: 1 });
    const moved = await b.post("/v1/messages", turn(messages), ANTHROPIC);
    expect(moved.status).toBe(200);
    const toOther = sim.requests.at(-1)!;
    expect(toOther.key).toBe("claude-key-2");
    expect((toOther.body as Json).messages[1].content.some((block: Json) => block.type === "thinking")).toBe(false);
    expect((await lastRow(b)).provenance).toEqual({ removed: 1, plain: 0 });
  });
});
