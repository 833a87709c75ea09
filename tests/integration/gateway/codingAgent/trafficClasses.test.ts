// R20.3: Claude Code's own background call (its session-title request, as captured in
// tests/fixtures/clients/trafficCaptures.json) is classed background; at a 429 it is shed instead
// of spending a sibling account's quota, and under a concurrency cap it leaves the main turn its
// headroom. The class is in the log and /metrics.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../../main/simulator/index.js";
import { addProvider, startGateway, startSim, type TestGateway } from "../../harness.js";

type Json = Record<string, any>;

const captures = (JSON.parse(readFileSync("tests/fixtures/clients/trafficCaptures.json", "utf8")) as { captures: Json[] }).captures;
const TITLE = captures.find((c) => c.client === "claude-code" && String(c.what).startsWith("session title"))!;
const HEADERS = { ...(TITLE.headers as Record<string, string>), "x-api-key": "x", "x-claude-code-session-id": "traffic-session" };

let gw: TestGateway;
let sim: Simulator;

beforeAll(async () => {
  sim = await startSim();
  gw = await startGateway();
  await addProvider(gw, "cls-a", sim, "anthropic", ["ckey-a"], { maxConcurrent: 2 });
  await addProvider(gw, "cls-b", sim, "anthropic", ["ckey-b"]);
  expect((await gw.api("POST", "/api/combos", { name: "duo", strategy: "priority", targets: [{ model: "cls-a/m1" }, { model: "cls-b/m1" }] })).status).toBe(201);
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

beforeEach(async () => {
  sim.clearFaults();
  await gw.api("PATCH", "/api/resilience", { trafficClasses: { enabled: true, mainHeadroom: 1 } });
  await gw.api("POST", "/api/resilience/cooldowns", { all: true });
});

const title = (model = "duo") => gw.post("/v1/messages?beta=true", { ...TITLE.body, model, stream: false }, HEADERS);
const mainTurn = (model = "duo") =>
  gw.post("/v1/messages?beta=true", { model, max_tokens: 1024, system: "You are Claude Code.", messages: [{ role: "user", content: "Fix the failing test." }] }, HEADERS);

async function rows(n: number): Promise<Json[]> {
  return (await gw.api<Json[]>("GET", `/api/logs?limit=${n}`)).body;
}

describe("R20.3 traffic classes", () => {
  it("R20.3 Claude Code's session-title call is background and is shed at a 429, while the main turn fails over; both classes are in the log and /metrics", async () => {
    sim.addFault("ckey-a", { status: 429, retryAfter: 3, times: 1 });
    const before = sim.requests.length;
    const shed = await title();
    expect(shed.status).toBe(429);
    expect(shed.body.error.type).toBe("rate_limit_error");
    expect(shed.headers.get("retry-after")).toBe("3");
    expect(sim.requests.slice(before).map((r) => r.key)).toEqual(["ckey-a"]);
    const [shedRow] = await rows(1);
    expect(shedRow).toMatchObject({ trafficClass: "background", errorCode: "traffic_shed", status: 429 });

    await gw.api("POST", "/api/resilience/cooldowns", { all: true });
    sim.addFault("ckey-a", { status: 429, retryAfter: 3, times: 1 });
    expect((await mainTurn()).status).toBe(200);
    const [mainRow] = await rows(1);
    expect(mainRow).toMatchObject({ trafficClass: "main", connectionId: "cls-b-c1", status: 200 });

    const metrics = (await gw.api("GET", "/metrics")).text;
    expect(metrics).toMatch(/switchyard_shed_total\{traffic_class="background"\} [1-9]/);
    expect(metrics).toMatch(/switchyard_requests_by_class_total\{traffic_class="main",status="200"\} [1-9]/);
  });

  it("R20.3 with classes off the same title call fails over like any request (the shedding is the setting's)", async () => {
    await gw.api("PATCH", "/api/resilience", { trafficClasses: { enabled: false } });
    sim.addFault("ckey-a", { status: 429, retryAfter: 3, times: 1 });
    expect((await title()).status).toBe(200);
    expect((await rows(1))[0]).toMatchObject({ trafficClass: "background", connectionId: "cls-b-c1" });
  });

  it("R20.3 under a cap of 2, background work takes at most 2 − mainHeadroom slots, so a main turn starts at once while titles queue", async () => {
    sim.addFault("ckey-a", { latencyMs: 400, times: 6 });
    const started = Date.now();
    const titles = [title("cls-a/m1"), title("cls-a/m1"), title("cls-a/m1")];
    await new Promise((r) => setTimeout(r, 50));
    const main = await mainTurn("cls-a/m1");
    const mainMs = Date.now() - started;
    expect(main.status).toBe(200);
    expect((await Promise.all(titles)).map((r) => r.status)).toEqual([200, 200, 200]);
    // One title in flight with it, the other two wait behind: the main turn ends after one upstream answer, not three.
    expect(mainMs).toBeLessThan(800);
    const recent = await rows(4);
    expect(recent.filter((r) => r.trafficClass === "background")).toHaveLength(3);
    const lastTitle = Math.max(...recent.filter((r) => r.trafficClass === "background").map((r) => r.time + r.latencyMs));
    expect(lastTitle - started).toBeGreaterThanOrEqual(1_100);
  });
});
