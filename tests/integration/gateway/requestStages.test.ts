// R22.1, R22.2: every route that reaches an upstream passes the same stages (lease fence, class,
// log row, /metrics), and keep-alives are not output. Each case here failed on main before issue 33:
// the count routes wrote no row and ignored leases, and a keep-alive turned wait-or-switch and
// shedding off.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, parseSse, startGateway, startSim, type TestGateway } from "../harness.js";

type Json = Record<string, any>;

let gw: TestGateway;
let sim: Simulator;
let session = 0;

const captures = (JSON.parse(readFileSync("tests/fixtures/clients/trafficCaptures.json", "utf8")) as { captures: Json[] }).captures;
const TITLE = captures.find((c) => c.client === "claude-code" && String(c.what).startsWith("session title"))!;
const SYSTEM = [{ type: "text", text: "You are a careful coding agent. Read the code before you change it. ".repeat(120), cache_control: { type: "ephemeral" } }];
const CLAUDE = { "user-agent": "claude-cli/2.1.332 (external, cli)", "anthropic-version": "2023-06-01", "x-api-key": "x" };
const owner = () => `vlo_${randomBytes(32).toString("base64url")}`;

async function createKey(body: Record<string, unknown>): Promise<string> {
  const r = await gw.api("POST", "/api/keys", body);
  expect(r.status).toBe(201);
  return r.body.key as string;
}

async function acquire(key: string, who: string): Promise<number> {
  const r = await gw.post("/api/v1/session-leases", { action: "acquire", owner: who }, { authorization: `Bearer ${key}` });
  expect(r.status).toBe(200);
  return r.body.generation as number;
}

async function rows(n: number): Promise<Json[]> {
  return (await gw.api<Json[]>("GET", `/api/logs?limit=${n}`)).body;
}

beforeAll(async () => {
  sim = await startSim({ label: "stages" });
  gw = await startGateway({ env: { SWITCHYARD_STREAM_HEARTBEAT_MS: "150" } });
  await addProvider(gw, "st-a", sim, "anthropic", ["skey-a"]);
  await addProvider(gw, "st-b", sim, "anthropic", ["skey-b"]);
  await addProvider(gw, "st-r", sim, "openai-responses", ["skey-r"]);
  await addProvider(gw, "st-g", sim, "gemini", ["skey-g"]);
  expect((await gw.api("POST", "/api/combos", { name: "pair", strategy: "priority", targets: [{ model: "st-a/m1" }, { model: "st-b/m1" }] })).status).toBe(201);
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

beforeEach(async () => {
  sim.clearFaults();
  await gw.api("PATCH", "/api/resilience", { waitOrSwitch: { enabled: true, maxWaitMs: 8_000 }, trafficClasses: { enabled: true, mainHeadroom: 1 } });
  await gw.api("POST", "/api/resilience/cooldowns", { all: true });
  session++;
});

const COUNT_ROUTES = [
  { name: "count_tokens", connection: "st-a-c1", path: "/v1/messages/count_tokens", body: { model: "st-a/m1", messages: [{ role: "user", content: "count me" }] } },
  { name: "input_tokens", connection: "st-r-c1", path: "/v1/responses/input_tokens", body: { model: "st-r/m1", input: "count me" } },
  { name: "Gemini countTokens", connection: "st-g-c1", path: "/v1beta/models/st-g%2Fm1:countTokens", body: { contents: [{ role: "user", parts: [{ text: "count me" }] }] } },
] as const;

describe("R22.1 the count and compact routes pass the same stages as a generation", () => {
  it.each(COUNT_ROUTES)("R22.1 $name is counted upstream, has a log row classed count, and is in /metrics", async ({ path, body }) => {
    const before = sim.requests.length;
    const r = await gw.post(path, body, { "x-api-key": "x" });
    expect(r.status).toBe(200);
    expect(r.headers.get("x-switchyard-request-id")).toBeTruthy();
    expect(r.headers.get("x-switchyard-token-count")).toBeNull();
    expect(sim.requests.length).toBe(before + 1);
    const [row] = await rows(1);
    expect(row).toMatchObject({ id: r.headers.get("x-switchyard-request-id"), trafficClass: "count", status: 200 });
    expect(row.attempts).toHaveLength(1);
    const metrics = (await gw.api("GET", "/metrics")).text;
    expect(metrics).toMatch(/switchyard_requests_by_class_total\{traffic_class="count",status="200"\} [1-9]/);
  });

  it("R22.1 a count with no upstream that counts still answers with the estimate, and its row says so", async () => {
    sim.addFault("skey-a", { status: 503, times: 1 });
    const r = await gw.post("/v1/messages/count_tokens", { model: "st-a/m1", messages: [{ role: "user", content: "count me" }] }, { "x-api-key": "x" });
    expect(r.status).toBe(200);
    expect(r.headers.get("x-switchyard-token-count")).toBe("estimate");
    expect(r.body.input_tokens).toBeGreaterThan(0);
    const [row] = await rows(1);
    expect(row).toMatchObject({ trafficClass: "count", status: 200 });
    expect(row.attempts[0]).toMatchObject({ connectionId: "st-a-c1", status: 503, verdict: "count_unavailable" });
  });

  const FENCED = [
    ...COUNT_ROUTES,
    { name: "compact", connection: "st-r-c1", path: "/v1/responses/compact", body: { model: "st-r/m1", input: [{ role: "user", content: "a long conversation" }] } },
  ];

  it.each(FENCED)("R22.1 R7.2 $name with a stale lease generation is refused 409 LEASE_FENCE_STALE and never reaches the upstream", async ({ connection, path, body }) => {
    const leaseKey = await createKey({ name: `leased ${connection}`, scopes: ["lease:exclusive"], allowedConnections: [connection] });
    const me = owner();
    const generation = await acquire(leaseKey, me);
    const before = sim.requests.length;
    const stale = await gw.post(path, body, { authorization: `Bearer ${leaseKey}`, "x-omniroute-lease-owner": me, "x-omniroute-lease-generation": String(generation + 1) });
    expect(stale.status).toBe(409);
    const code = path.includes("/v1beta/") ? stale.body.error.details[0].reason : stale.body.error.code;
    expect(code).toBe("LEASE_FENCE_STALE");
    expect(sim.requests.length).toBe(before);
    const fresh = await gw.post(path, body, { authorization: `Bearer ${leaseKey}`, "x-omniroute-lease-owner": me, "x-omniroute-lease-generation": String(generation) });
    await gw.post("/api/v1/session-leases", { action: "release", owner: me, generation }, { authorization: `Bearer ${leaseKey}` });
    expect(fresh.status).toBe(200);
    expect(sim.requests.at(-1)?.key).toBe(`skey-${connection.split("-")[1]}`);
  });
});

/** The conversation after `turns` user turns, each answered. */
function conversation(turns: number): Json[] {
  const messages: Json[] = [];
  for (let i = 1; i <= turns; i++) {
    if (i > 1) messages.push({ role: "assistant", content: [{ type: "text", text: `Answer ${i - 1}` }] });
    messages.push({ role: "user", content: [{ type: "text", text: `Step ${i}: carry on.` }] });
  }
  return messages;
}

function turn(turns: number, stream = false) {
  const body = { model: "pair", max_tokens: 1024, stream, system: SYSTEM, messages: conversation(turns) };
  return gw.post("/v1/messages", body, { ...CLAUDE, "x-claude-code-session-id": `stages-session-${session}` });
}

const keysSince = (from: number) => sim.requests.slice(from).map((r) => r.key);

describe("R22.2 keep-alives are not output", () => {
  it("R22.2 R20.4 a 2-second 429 that arrives after keep-alives went out is still waited out on the warm account", async () => {
    expect((await turn(1)).status).toBe(200);
    const from = sim.requests.length;
    // The 429 comes after 600 ms: by then the streaming client has had its keep-alives (every 150 ms).
    sim.addFault("skey-a", { status: 429, retryAfter: 2, latencyMs: 600, times: 1 });
    const res = await turn(2, true);
    expect(res.status).toBe(200);
    expect(parseSse(res.text).filter((e) => e.event === "ping").length).toBeGreaterThanOrEqual(3);
    expect(parseSse(res.text).some((e) => e.event === "message_stop")).toBe(true);
    expect(keysSince(from)).toEqual(["skey-a", "skey-a"]);
    const [row] = await rows(1);
    expect(row.connectionId).toBe("st-a-c1");
    expect(row.waitOrSwitch).toEqual([{ choice: "wait", reason: "within_max_wait", connectionId: "st-a-c1", hintMs: 2_000, waitedMs: expect.any(Number), maxWaitMs: 8_000 }]);
  });

  it("R22.2 R20.3 background work met by a 429 after a keep-alive is shed, its stream ending with a well-formed error event", async () => {
    const from = sim.requests.length;
    sim.addFault("skey-a", { status: 429, retryAfter: 3, latencyMs: 500, times: 1 });
    const headers = { ...(TITLE.headers as Record<string, string>), "x-api-key": "x", "x-claude-code-session-id": `stages-session-${session}` };
    const res = await gw.post("/v1/messages?beta=true", { ...TITLE.body, model: "pair", stream: true }, headers);
    expect(res.status).toBe(200);
    const events = parseSse(res.text);
    expect(events.some((e) => e.event === "ping")).toBe(true);
    const last = events.at(-1)!;
    expect(last.event).toBe("error");
    expect(JSON.parse(last.data)).toMatchObject({ type: "error", error: { type: "rate_limit_error", code: "traffic_shed" } });
    expect(keysSince(from)).toEqual(["skey-a"]);
    const [row] = await rows(1);
    expect(row).toMatchObject({ trafficClass: "background", errorCode: "traffic_shed" });
  });
});

describe("R20.4 R18.4 the retry after a wait is checked again", () => {
  it("R20.4 R18.4 a warm account that went over its budget during the wait is not retried: the turn moves to the cold account", async () => {
    expect((await turn(1)).status).toBe(200);
    const from = sim.requests.length;
    sim.addFault("skey-a", { status: 429, retryAfter: 2, times: 1 });
    const pending = turn(2, true);
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Turn 1 already spent more than one token on the warm account: from now on it is over budget.
    expect((await gw.api("PATCH", "/api/connections/st-a-c1", { budget: { period: "day", maxTokens: 1 } })).status).toBe(200);
    try {
      const res = await pending;
      expect(res.status).toBe(200);
      expect(keysSince(from)).toEqual(["skey-a", "skey-b"]);
      const [row] = await rows(1);
      expect(row.connectionId).toBe("st-b-c1");
      expect(row.waitOrSwitch[0]).toMatchObject({ choice: "wait", maxWaitMs: 8_000 });
    } finally {
      await gw.api("PATCH", "/api/connections/st-a-c1", { budget: null });
    }
  });
});
