// Issue 25: the README's team gateway, run for real (R19.4): Debian's nginx with the recipe's own
// nginx.conf in front of two `serve` processes sharing one redis-server. The chaos mix of issue 13
// (tests/chaos/chaosModel.mjs: its faults, routes and client verdicts) goes through it and through
// one instance alone; a faulty key's failure learned on one instance keeps it away from both, so
// the group spends no more attempts on the faulty keys than a single Switchyard does.
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configDocumentSchema } from "../../../shared/schemas/config.js";
import type { SimulatedRequest, Simulator } from "../../../main/simulator/index.js";
import { FAULT_KINDS, REPLY_TEXT, checkStream, jsonText, mulberry32 } from "../../chaos/chaosModel.mjs";
import { startSim } from "../harness.js";
import { freePort, startRedis, type RedisProcess } from "../admission/processes.js";
import { NGINX_CONF, TEAM_KEY, clientPost, sleep, startGroup, startNginx, writeConfig } from "./processes.js";

const REQUESTS = 300;
/**
 * One client at a time, which nginx hands to the instances in turn. With more, the requests already
 * in flight to a key when it fails (and their late successes, which end its cooldown) move the count
 * by several attempts from run to run; one at a time, a single instance spent exactly 18 in every run.
 */
const CONCURRENCY = 1;
/**
 * The client's pause between requests, a few times the propagation median (5–12 ms here): a request
 * that reaches the other instance inside that window may meet the old state, as R19.1 allows
 * (250 ms), and its success may end the cooldown the first instance just set (R4.9): unpaced, one
 * run in about 45 went over the bound. The comparison is about what the group learns.
 */
const PACE_MS = 25;
const RATE = 0.3;
/**
 * What the group may spend above one instance: one attempt per faulty key (bad1 and bad2 of oa and
 * an), a request that reaches the other instance before the cooldown does. Measured: the group
 * spent 18–19; two instances that do not share their state spent 27–33.
 */
const LEAK_PER_FAULTY_KEY = 1;
const FAULTY_KEYS = 4;
const ROUTES = ["chaos-combo", "oa/m1", "an/m1"];

let redis: RedisProcess;
let sim: Simulator;
let config: { file: string; remove(): void };
/**
 * The faults of the run in progress. Each faulty key has its own seeded sequence: its n-th attempt
 * meets the same fault in every run, however the requests interleave, so the runs differ only in
 * how many attempts the gateway sends to a key before it stops.
 */
let chaos = { sequences: new Map<string, () => number>(), faultyAttempts: 0 };

function pickFault(req: SimulatedRequest) {
  if (!req.key?.startsWith("bad")) return undefined;
  chaos.faultyAttempts += 1;
  let random = chaos.sequences.get(req.key);
  if (!random) chaos.sequences.set(req.key, (random = mulberry32([...req.key].reduce((h, c) => h * 31 + c.charCodeAt(0), 25))));
  const [draw, kind] = [random(), random()];
  return draw < RATE ? FAULT_KINDS[Math.floor(kind * FAULT_KINDS.length)].fault : undefined;
}

/**
 * tests/chaos/chaosDriver.mjs's setup as one config file. A failing key cools for 30 s whatever
 * the upstream hints, longer than a run: each faulty key is learned once, and what the runs
 * compare is how many attempts that learning costs, one instance against a group.
 */
function chaosConfig(simUrl: string, refusedPort: number) {
  const providers = [
    { id: "oa", format: "openai", baseUrl: `${simUrl}/v1` },
    { id: "an", format: "anthropic", baseUrl: simUrl },
    { id: "gone", format: "openai", baseUrl: `http://127.0.0.1:${refusedPort}/v1` },
  ];
  const keysOf = (id: string) => (id === "gone" ? ["bad-gone"] : [`bad1-${id}`, `bad2-${id}`, `good-${id}`]);
  return {
    version: 1,
    providers: providers.map((p) => ({ ...p, category: "apikey", models: ["m1"] })),
    connections: providers.flatMap((p) => keysOf(p.id).map((apiKey, i) => ({ id: `${p.id}-${i}`, provider: p.id, name: apiKey, apiKey, priority: i }))),
    combos: [{ name: "chaos-combo", strategy: "priority", targets: [{ model: "gone/m1" }, { model: "oa/m1" }, { model: "an/m1" }] }],
    apiKeys: [{ name: "team", key: TEAM_KEY }],
    settings: { requireClientKey: true },
    resilience: {
      streamRecovery: { contentStallTimeoutMs: 1_000, idleTimeoutMs: 1_000, attemptDeadlineMs: 1_500 },
      connectionCooldown: { apikey: { baseCooldownMs: 30_000, maxBackoffSteps: 0, useUpstreamRetryHints: false } },
    },
  };
}

interface ChaosRun {
  requests: number;
  faultyAttempts: number;
  /** Answers a client could not use: JSON errors, streams failing before their first byte, answers cut short. */
  broken: string[];
  midStreamErrors: number;
}

/** One chaos request as chaosDriver.mjs builds it, judged as the client sees it: null (usable), "mid" (a mid-stream error event) or what was wrong. */
async function chaosRequest(base: string, i: number, random: () => number): Promise<string | null> {
  const model = ROUTES[i % ROUTES.length];
  const client = Math.floor(i / ROUTES.length) % 2 === 0 ? "openai" : "anthropic";
  const stream = random() < 0.5;
  const messages = [{ role: "user", content: `chaos request ${i}` }];
  const body = client === "openai" ? { model, stream, messages } : { model, stream, max_tokens: 64, messages };
  const r = await clientPost(base, client === "openai" ? "/v1/chat/completions" : "/v1/messages", body, { "anthropic-version": "2023-06-01" });
  // D13: two empty upstream streams in a row end in 502 STREAM_EARLY_EOF; chaos.test.ts counts them apart.
  if (stream && r.status === 502 && r.text.includes('"code":"STREAM_EARLY_EOF"')) return null;
  if (r.status !== 200) return `${model} ${client}: status ${r.status} ${r.text.slice(0, 120)}`;
  if (!stream) return jsonText(client, r.body) === REPLY_TEXT ? null : `${model} ${client}: JSON answer ${r.text.slice(0, 120)}`;
  const verdict = checkStream(client, r.text);
  if (verdict.midStreamError) return "mid";
  return verdict.ok && verdict.text === REPLY_TEXT ? null : `${model} ${client} stream: ${verdict.problem ?? "cut short"}`;
}

async function runChaos(base: string): Promise<ChaosRun> {
  chaos = { sequences: new Map(), faultyAttempts: 0 };
  const clientRandom = mulberry32(7);
  const outcomes: Array<string | null> = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) {
        outcomes.push(await chaosRequest(base, next++, clientRandom));
        await sleep(PACE_MS);
      }
    }),
  );
  const broken = outcomes.filter((o): o is string => o !== null && o !== "mid");
  return { requests: outcomes.length, faultyAttempts: chaos.faultyAttempts, broken, midStreamErrors: outcomes.filter((o) => o === "mid").length };
}

beforeAll(async () => {
  redis = await startRedis();
  sim = await startSim({ label: "chaos", recordLimit: 0, replyText: REPLY_TEXT, pickFault });
  config = writeConfig(chaosConfig(sim.url, await freePort()));
}, 30_000);

afterAll(async () => {
  await sim?.close();
  await redis?.stop();
  config?.remove();
});

describe("the team gateway behind nginx (R19.4)", () => {
  it("R19.4 the README shows the nginx.conf this test runs and the team's config file, verbatim; the config file is valid", () => {
    const readme = readFileSync(path.join(path.dirname(NGINX_CONF), "..", "..", "README.md"), "utf8");
    const yamlFile = readFileSync(path.join(path.dirname(NGINX_CONF), "switchyard.yaml"), "utf8");
    expect(readme).toContain(readFileSync(NGINX_CONF, "utf8"));
    expect(readme).toContain(yamlFile);
    expect(configDocumentSchema.safeParse(parseYaml(yamlFile)).error).toBeUndefined();
  });

  it("R19.4 R11.3 the chaos mix through nginx and two instances: every answer usable, no more attempts on the faulty keys than one instance", { timeout: 90_000 }, async () => {
    const [solo] = await startGroup(1, null, config.file);
    const single = await runChaos(solo.base).finally(() => solo.stop());
    const group = await startGroup(2, redis.url, config.file);
    const nginx = await startNginx(group.map((gw) => new URL(gw.base).host));
    const shared = await runChaos(nginx.url).finally(() => Promise.all([nginx.stop(), ...group.map((gw) => gw.stop())]));
    const line = (r: ChaosRun) => `${r.faultyAttempts} faulty-key attempts in ${r.requests} requests (${r.midStreamErrors} mid-stream errors)`;
    console.log(`chaos at ${RATE * 100} %: one instance ${line(single)}; two behind nginx ${line(shared)}`);
    expect(single.broken).toEqual([]);
    expect(shared.broken).toEqual([]);
    expect(shared.faultyAttempts).toBeLessThanOrEqual(single.faultyAttempts + LEAK_PER_FAULTY_KEY * FAULTY_KEYS);
  });

  it("R19.4 through nginx a streamed answer reaches the client event by event, not at its end", async () => {
    const group = await startGroup(2, redis.url, config.file);
    const nginx = await startNginx(group.map((gw) => new URL(gw.base).host));
    const keys = ["bad1-oa", "bad2-oa", "good-oa"];
    try {
      // Whichever key the request reaches answers slowly: 150 ms between frames.
      for (const key of keys) sim.addFault(key, { trickleMs: 150, times: 1 });
      const started = performance.now();
      const res = await fetch(`${nginx.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${TEAM_KEY}` },
        body: JSON.stringify({ model: "oa/m1", stream: true, messages: [{ role: "user", content: "hi" }] }),
      });
      let text = "";
      let firstWordMs: number | null = null;
      const reader = res.body!.getReader();
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        text += Buffer.from(read.value).toString("utf8");
        if (firstWordMs === null && text.includes(REPLY_TEXT.split(" ")[0])) firstWordMs = performance.now() - started;
      }
      const totalMs = performance.now() - started;
      expect(checkStream("openai", text)).toMatchObject({ ok: true, text: REPLY_TEXT });
      expect(totalMs - firstWordMs!).toBeGreaterThan(500);
    } finally {
      for (const key of keys) sim.clearFaults(key);
      await Promise.all([nginx.stop(), ...group.map((gw) => gw.stop())]);
    }
  });
});
