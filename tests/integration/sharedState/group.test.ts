// Issue 25: two real `serve` processes (A and B) on one config file share their resilience state
// through one real redis-server (R19.1–R19.3). The upstream is the simulator; which key each
// upstream request presented is read from its records, so "B never reaches the cooled key" is
// counted, not inferred.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { startSim } from "../harness.js";
import { startRedis, type RedisProcess, type SwitchyardProcess } from "../admission/processes.js";
import { TEAM_KEY, chat, clientPost, sleep, startGroup, until, writeConfig } from "./processes.js";

const AGENT_KEY = "sk-sy-team-gateway-agent-0001";
const PROPAGATION_BOUND_MS = 250; // R19.1

let redis: RedisProcess;
let sim: Simulator;
let config: { file: string; remove(): void };
let A: SwitchyardProcess;
let B: SwitchyardProcess;

/** Every provider has its own keys, so no test's faults or cooldowns reach another's. */
function groupConfig(simUrl: string) {
  const keys: Record<string, string[]> = {
    pa: ["ka1", "ka2"],
    pb: ["kb1", "kb2"],
    pc: ["kc1"],
    pq: ["kq1"],
    pr: ["kr1"],
    pl: ["kl1"],
    pp: ["kp1", "kp2"],
    pt: ["kt1", "kt2", "kt3"],
    pload: ["kload1", "kload2"],
  };
  return {
    version: 1,
    // pc and pq are "local": their breaker profile below opens on one failure and half-opens after 2 s.
    providers: Object.keys(keys).map((id) => ({ id, format: "openai", baseUrl: `${simUrl}/v1`, category: id === "pc" || id === "pq" ? "local" : "apikey", models: ["m1"] })),
    combos: [{ name: "qcombo", strategy: "priority", targets: [{ model: "pq/m1" }, { model: "pr/m1" }] }],
    // Names make the group-stable keys ("<provider>/<name>"); the priorities fix the order tried.
    connections: Object.entries(keys).flatMap(([p, list]) => list.map((apiKey, i) => ({ id: `${p}-${i + 1}`, provider: p, name: `${p} key ${i + 1}`, apiKey, priority: i }))),
    apiKeys: [
      { name: "team", key: TEAM_KEY },
      { name: "agent", key: AGENT_KEY, scopes: ["lease:exclusive"], allowedConnections: ["pl-1"] },
    ],
    settings: { requireClientKey: true },
    resilience: {
      providerBreaker: { local: { failureThreshold: 1, resetTimeoutMs: 2_000 } },
      connectionCooldown: { local: { baseCooldownMs: 100, maxBackoffSteps: 0, useUpstreamRetryHints: true } },
    },
  };
}

const mark = () => sim.requests.length;
/** How many upstream requests presented each key since `from`. */
function reached(from: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of sim.requests.slice(from)) out[r.key ?? "none"] = (out[r.key ?? "none"] ?? 0) + 1;
  return out;
}

async function cooldownOf(gw: SwitchyardProcess, connectionId: string): Promise<any> {
  const r = await gw.api("GET", `/api/resilience/cooldowns?provider=${connectionId.split("-")[0]}`);
  return r.body.items.find((i: { connectionId: string }) => i.connectionId === connectionId) ?? null;
}
const breakerOf = async (gw: SwitchyardProcess, provider: string) =>
  (await gw.api("GET", "/api/monitoring/health")).body.providerBreakers.find((b: { provider: string }) => b.provider === provider)?.state ?? "CLOSED";
const sharedStatus = async (gw: SwitchyardProcess) => (await gw.api("GET", "/api/monitoring/health")).body.sharedState;
const both = <T>(read: (gw: SwitchyardProcess) => Promise<T>) => Promise.all([read(A), read(B)]);

const owner = () => `vlo_${randomBytes(32).toString("base64url")}`;
const lease = (gw: SwitchyardProcess, action: string, ownerToken: string) =>
  clientPost(gw.base, "/api/v1/session-leases", { action, owner: ownerToken }, { authorization: `Bearer ${AGENT_KEY}` });

beforeAll(async () => {
  redis = await startRedis();
  sim = await startSim({ label: "group", recordLimit: 100_000 });
  config = writeConfig(groupConfig(sim.url));
  [A, B] = await startGroup(2, redis.url, config.file);
  await until(
    () => both(sharedStatus),
    (s) => s.every((x) => x?.status === "ok"),
    "both instances joined Redis",
    10_000,
  );
}, 60_000);

afterAll(async () => {
  await Promise.all([A?.stop(), B?.stop()]);
  await sim?.close();
  await redis?.stop();
  config?.remove();
});

describe("two Switchyards sharing one Redis (R19)", () => {
  it("R19.1 health on both instances says the state is shared through Redis by two instances", async () => {
    for (const s of await both(sharedStatus)) expect(s).toEqual({ mode: "redis", status: "ok", instances: 2 });
  });

  it("R19.1 a 429 through A cools the key for B: 20 requests through B never reach it", async () => {
    let from = mark();
    expect((await chat(B.base, "pa/m1")).status).toBe(200);
    expect(reached(from)).toEqual({ ka1: 1 }); // B tries ka1 first while it is healthy
    sim.addFault("ka1", { status: 429, retryAfter: 60, times: 1 });
    from = mark();
    expect((await chat(A.base, "pa/m1")).status).toBe(200);
    expect(reached(from)).toEqual({ ka1: 1, ka2: 1 });
    await sleep(PROPAGATION_BOUND_MS);
    from = mark();
    const results = await Promise.all(Array.from({ length: 20 }, () => chat(B.base, "pa/m1")));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(reached(from)).toEqual({ ka2: 20 });
    const [onA, onB] = await both((gw) => cooldownOf(gw, "pa-1"));
    expect(onB).toMatchObject({ status: "cooling_down", rateLimitedUntil: onA.rateLimitedUntil });
  });

  it("R19.1 a change on A is visible in B's API within 250 ms (30 samples: cooldowns set by a 429, cleared by the operator)", async () => {
    const cooling = async () => (await cooldownOf(B, "pp-1"))?.status === "cooling_down";
    const samples: number[] = [];
    /** From the start of the change on A (so A's own handling is included) to B's first answer showing it. */
    const measure = async (change: () => Promise<unknown>, visible: (isCooling: boolean) => boolean) => {
      const start = performance.now();
      await change();
      await until(cooling, visible, "the change to reach B", 2_000);
      samples.push(performance.now() - start);
    };
    for (let i = 0; i < 15; i++) {
      sim.addFault("kp1", { status: 429, retryAfter: 60, times: 1 });
      await measure(
        () => chat(A.base, "pp/m1"),
        (c) => c,
      );
      await measure(
        () => A.api("POST", "/api/resilience/cooldowns", { connectionIds: ["pp-1"] }),
        (c) => !c,
      );
    }
    const sorted = [...samples].sort((a, b) => a - b);
    const median = (sorted[14] + sorted[15]) / 2;
    console.log(`propagation median=${median.toFixed(1)}ms max=${sorted[29].toFixed(1)}ms (n=30)`);
    expect(sorted[29]).toBeLessThan(PROPAGATION_BOUND_MS);
  });

  it("R19.2 two simultaneous 429s on A and B raise the backoff level by one", async () => {
    const level = async (gw: SwitchyardProcess) => (await gw.api("GET", "/api/connections/pb-1")).body.backoffLevel as number;
    const [before] = await both(level);
    // Both upstream calls are in flight before either answers: the same incident, seen twice.
    sim.addFault("kb1", { status: 429, latencyMs: 300, times: 2 });
    const from = mark();
    const results = await Promise.all([chat(A.base, "pb/m1"), chat(B.base, "pb/m1")]);
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    expect(reached(from)).toEqual({ kb1: 2, kb2: 2 });
    await sleep(PROPAGATION_BOUND_MS * 2);
    expect(await both(level)).toEqual([before + 1, before + 1]);
    const [onA, onB] = await both((gw) => cooldownOf(gw, "pb-1"));
    expect(onA.status).toBe("cooling_down");
    expect(onB.rateLimitedUntil).toBe(onA.rateLimitedUntil);
  });

  it("R19.2 a provider breaker opened through A is OPEN on B and lets exactly one HALF_OPEN probe through in the group", async () => {
    sim.addFault("kc1", { status: 503, times: 1 });
    expect((await chat(A.base, "pc/m1")).status).not.toBe(200);
    await until(
      () => both((gw) => breakerOf(gw, "pc")),
      (s) => s.every((x) => x === "OPEN"),
      "OPEN on both",
      1_000,
    );
    // After the 2 s reset timeout both derive HALF_OPEN from the same shared openUntil.
    await until(
      () => both((gw) => breakerOf(gw, "pc")),
      (s) => s.every((x) => x === "HALF_OPEN"),
      "HALF_OPEN on both",
      5_000,
    );
    sim.addFault("kc1", { latencyMs: 1_000, times: 1 }); // the probe is slow: every other request arrives while it runs
    const from = mark();
    const results = await Promise.all([A, B, A, B, A, B].map((gw) => chat(gw.base, "pc/m1")));
    expect(reached(from)).toEqual({ kc1: 1 });
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 503)).toHaveLength(5);
    await until(
      () => both((gw) => breakerOf(gw, "pc")),
      (s) => s.every((x) => x === "CLOSED"),
      "CLOSED on both after the probe",
      1_000,
    );
  });

  it("R19.2 R11.5 while A holds the group's HALF_OPEN probe, a combo through B passes that target over like an open breaker and its next target answers", async () => {
    sim.addFault("kq1", { status: 503, times: 1 });
    expect((await chat(A.base, "pq/m1")).status).not.toBe(200);
    await until(
      () => both((gw) => breakerOf(gw, "pq")),
      (s) => s.every((x) => x === "HALF_OPEN"),
      "HALF_OPEN on both",
      5_000,
    );
    sim.addFault("kq1", { latencyMs: 1_500, times: 1 });
    const from = mark();
    const probe = chat(A.base, "pq/m1");
    await until(
      async () => reached(from).kq1 ?? 0,
      (n) => n === 1,
      "A's probe to reach the upstream",
      1_000,
    );
    const viaB = await chat(B.base, "qcombo");
    expect(viaB.status).toBe(200);
    expect(viaB.connection).toBe("pr-1");
    expect((await probe).status).toBe(200);
    expect(reached(from)).toEqual({ kq1: 1, kr1: 1 });
  });

  it("R19.2 a lease taken on A is refused on B; of two owners racing on A and B exactly one gets it", async () => {
    const first = owner();
    expect(await lease(A, "acquire", first)).toMatchObject({ status: 200, body: { state: "ACTIVE" } });
    const refused = await lease(B, "acquire", owner());
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe("LEASE_CAPACITY_UNAVAILABLE");
    expect((await lease(A, "release", first)).body).toEqual({ state: "RELEASED" });
    const [x, y] = [owner(), owner()];
    const race = await until(
      () => Promise.all([lease(A, "acquire", x), lease(B, "acquire", y)]),
      (rs) => rs.some((r) => r.status === 200),
      "the released lease to be free",
      2_000,
    );
    expect(race.map((r) => r.status).sort()).toEqual([200, 429]);
  });

  it("R19.3 Redis killed under load: no client request fails, health says unreachable; back on the same port, the states merge and a terminal state set apart is kept", async () => {
    const load = startLoad([A.base, B.base], "pload/m1");
    let statuses: number[];
    try {
      await apartAndBack();
    } finally {
      statuses = await load.stop();
    }
    expect(statuses.length).toBeGreaterThan(50);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  }, 40_000);
});

/** Redis goes away and comes back on its port while the load runs; the states set apart merge. */
async function apartAndBack(): Promise<void> {
  await sleep(500);
  await redis.stop();
  await until(
    () => both(sharedStatus),
    (s) => s.every((x) => x.status === "unreachable"),
    "unreachable on both",
    5_000,
  );
  for (const s of await both(sharedStatus)) expect(s).toEqual({ mode: "redis", status: "unreachable" });
  // Apart: A learns kt1 is out of credits (terminal); B, not knowing, cools kt1 later, and kt2 too.
  const from = mark();
  sim.addFault("kt1", { status: 402, times: 1 });
  expect((await chat(A.base, "pt/m1")).status).toBe(200);
  sim.addFault("kt1", { status: 429, retryAfter: 60, times: 1 });
  sim.addFault("kt2", { status: 429, retryAfter: 60, times: 1 });
  expect((await chat(B.base, "pt/m1")).status).toBe(200);
  expect(reached(from)).toMatchObject({ kt1: 2, kt2: 2 });
  expect((await cooldownOf(A, "pt-1")).status).toBe("terminal");
  expect((await cooldownOf(B, "pt-1")).status).toBe("cooling_down");
  await sleep(500);
  redis = await startRedis(Number(new URL(redis.url).port));
  await until(
    () => both(sharedStatus),
    (s) => s.every((x) => x.status === "ok"),
    "ok on both once Redis is back",
    10_000,
  );
  const merged = await until(
    () => Promise.all([cooldownOf(A, "pt-1"), cooldownOf(B, "pt-1"), cooldownOf(A, "pt-2"), cooldownOf(B, "pt-2")]),
    (s) => s[1]?.status === "terminal" && s[2]?.status === "cooling_down",
    "the states merged",
    5_000,
  );
  const [kt1OnA, kt1OnB, kt2OnA, kt2OnB] = merged;
  expect([kt1OnA.status, kt1OnB.status]).toEqual(["terminal", "terminal"]);
  expect([kt1OnA.testStatus, kt1OnB.testStatus]).toEqual(["credits_exhausted", "credits_exhausted"]);
  expect(kt2OnA.rateLimitedUntil).toBe(kt2OnB.rateLimitedUntil);
}

/** Four clients alternating between the instances until stopped; resolves every status they got. */
function startLoad(bases: string[], model: string) {
  // A field, not a local: the loops read it after every await, and stop() flips it meanwhile.
  const load = { running: true };
  const statuses: number[] = [];
  const workers = Array.from({ length: 4 }, async (_, w) => {
    // A refused or reset connection is a failed client request too: it counts as status 0.
    for (let i = w; load.running; i++)
      statuses.push(
        await chat(bases[i % bases.length], model).then(
          (r) => r.status,
          () => 0,
        ),
      );
  });
  return {
    async stop() {
      load.running = false;
      await Promise.all(workers);
      return statuses;
    },
  };
}
