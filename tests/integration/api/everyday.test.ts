// Issue 14 over real HTTP against the simulator: the request timeline in the log (attempts with
// verdict, cooldown, latency, bytes; what was skipped before dispatch; the client kind), the log
// filters, one request by id, the last request per client kind, prompt logging (off by default,
// with retention), the import preview, the env:NAME export, the demo and the instance address.
import Database from "better-sqlite3";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ClientActivity, ConfigImportPreview } from "../../../shared/apiTypes.js";
import type { RequestLogEntry } from "../../../shared/types.js";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, startGateway, startSim, type TestGateway } from "../harness.js";

let gw: TestGateway;
let sim: Simulator;

const SECRET_1 = "sk-everyday-secret-one-0001";
const SECRET_2 = "sk-everyday-secret-two-0002";
const chat = (model: string, content = "hello") => ({ model, messages: [{ role: "user", content }] });

beforeAll(async () => {
  sim = await startSim({ label: "upstream" });
  gw = await startGateway({ testClock: true });
  await addProvider(gw, "oai", sim, "openai", [SECRET_1, SECRET_2]);
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

async function send(model: string, ua: string, headers: Record<string, string> = {}, content = "hello"): Promise<string> {
  const r = await gw.post("/v1/chat/completions", chat(model, content), { "user-agent": ua, ...headers });
  return r.headers.get("x-switchyard-request-id")!;
}

async function entry(id: string): Promise<RequestLogEntry> {
  const r = await gw.api("GET", `/api/logs/${id}`);
  expect(r.status).toBe(200);
  return r.body as RequestLogEntry;
}

describe("request timeline (issue 14, R15.1)", () => {
  it("R15.1 a failed-over request logs each attempt's verdict, the cooldown its Retry-After left, latency and bytes, and the client kind", async () => {
    sim.addFault(SECRET_1, { status: 429, retryAfter: 30, times: 1 });
    const id = await send("oai/m1", "claude-cli/2.1.0 (external, cli)");
    const e = await entry(id);
    expect(e.clientKind).toBe("claude-code");
    expect(e.status).toBe(200);
    expect(e.attempts).toHaveLength(2);
    const [first, second] = e.attempts;
    expect(first).toMatchObject({ connectionId: "oai-c1", status: 429, verdict: "rate_limit", retryHintMs: 30_000, retryHintSource: "retry-after" });
    expect(first.after).toMatchObject({ state: "cooling_down" });
    expect(first.after!.remainingMs).toBeGreaterThan(29_000);
    expect(first.after!.remainingMs).toBeLessThanOrEqual(30_000);
    expect(first.bytes).toBeGreaterThan(0);
    expect(second).toMatchObject({ connectionId: "oai-c2", status: 200, verdict: null });
    expect(second.bytes).toBeGreaterThan(0);
    expect(typeof second.latencyMs).toBe("number");
  });

  it("R15.1 the next request records the cooling connection it skipped before dispatch, and why", async () => {
    const id = await send("oai/m1", "curl/8.5.0");
    const e = await entry(id);
    expect(e.clientKind).toBe("curl");
    expect(e.attempts.map((a) => a.connectionId)).toEqual(["oai-c2"]);
    expect(e.skipped).toEqual([expect.objectContaining({ provider: "oai", connectionId: "oai-c1", reason: "unavailable", target: "oai/m1" })]);
    expect(e.skipped![0].remainingMs).toBeGreaterThan(0);
  });

  it("R15.1 the row keeps no secret, no authorization header and no prompt text while prompt logging is off", async () => {
    const id = await send("oai/m1", "OpenAI/Python 1.40.0", { authorization: "Bearer sk-client-key-should-not-be-logged" }, "my private prompt");
    expect((await entry(id)).promptText).toBeUndefined();
    const db = new Database(path.join(gw.home, "switchyard.db"), { readonly: true });
    const rows = JSON.stringify(db.prepare("SELECT * FROM request_log").all());
    db.close();
    for (const forbidden of [SECRET_1, SECRET_2, "sk-client-key-should-not-be-logged", "my private prompt"]) expect(rows).not.toContain(forbidden);
  });

  it("GET /api/logs/:id answers 404 not_found for an unknown request", async () => {
    const r = await gw.api("GET", "/api/logs/no-such-request");
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe("not_found");
  });
});

describe("log filters and client activity (issue 14)", () => {
  it("R15.1 GET /api/logs filters by client kind and by time, and keeps limit and provider", async () => {
    const curl = await gw.api("GET", "/api/logs?client=curl");
    expect(curl.status).toBe(200);
    expect((curl.body as RequestLogEntry[]).length).toBeGreaterThan(0);
    expect((curl.body as RequestLogEntry[]).every((e) => e.clientKind === "curl")).toBe(true);
    const all = (await gw.api("GET", "/api/logs?provider=oai&limit=2")).body as RequestLogEntry[];
    expect(all).toHaveLength(2);
    const newest = all[0].time;
    const after = (await gw.api("GET", `/api/logs?since=${newest + 1}`)).body as RequestLogEntry[];
    expect(after).toEqual([]);
    const before = (await gw.api("GET", `/api/logs?until=${newest}`)).body as RequestLogEntry[];
    expect(before.every((e) => e.time < newest)).toBe(true);
    expect(before.length).toBeGreaterThan(0);
  });

  it("GET /api/logs refuses an unknown client kind with 400 naming the field, and changes nothing", async () => {
    const r = await gw.api("GET", "/api/logs?client=netscape");
    expect(r.status).toBe(400);
    expect(r.body.error.path).toBe("client");
  });

  it("GET /api/clients lists the newest request per client kind, newest first", async () => {
    // aider talks through litellm's OpenAI client: its own mark is the X-Title header.
    const id = await send("oai/m1", "OpenAI/Python 1.40.0", { "x-title": "Aider" });
    const r = await gw.api("GET", "/api/clients");
    expect(r.status).toBe(200);
    const items = r.body.items as ClientActivity[];
    expect(items[0]).toMatchObject({ kind: "aider", requestId: id, model: "oai/m1", status: 200, clientFormat: "openai" });
    expect(items.map((i) => i.kind).sort()).toEqual(["aider", "claude-code", "curl", "openai-sdk"]);
  });
});

describe("prompt logging (issue 14)", () => {
  it("R15.1 prompt text is kept only with promptLogging on, erased when it is turned off, and after its retention", async () => {
    const on = await gw.api("PATCH", "/api/settings", { promptLogging: true, promptRetentionHours: 1 });
    expect(on.body).toMatchObject({ promptLogging: true, promptRetentionHours: 1 });
    const kept = await send("oai/m1", "curl/8", {}, "remember this prompt");
    expect((await entry(kept)).promptText).toBe("user: remember this prompt");

    // Past the retention the next write erases it.
    await gw.api("POST", "/api/debug/clock", { advanceMs: 3_600_000 + 1_000 });
    const later = await send("oai/m1", "curl/8", {}, "a newer prompt");
    expect((await entry(kept)).promptText).toBeUndefined();
    expect((await entry(later)).promptText).toBe("user: a newer prompt");

    await gw.api("PATCH", "/api/settings", { promptLogging: false });
    expect((await entry(later)).promptText).toBeUndefined();
    const off = await send("oai/m1", "curl/8", {}, "not kept");
    expect((await entry(off)).promptText).toBeUndefined();
  });

  it("R10.3 prompt retention is clamped to 1–720 hours and a wrong type is a 400", async () => {
    expect((await gw.api("PATCH", "/api/settings", { promptRetentionHours: 100_000 })).body.promptRetentionHours).toBe(720);
    const bad = await gw.api("PATCH", "/api/settings", { promptLogging: "yes" });
    expect(bad.status).toBe(400);
    expect(bad.body.error.path).toBe("promptLogging");
  });
});

describe("config preview and export (issue 14, R0.4)", () => {
  const yaml = [
    "providers:",
    "  - { id: newp, format: openai, baseUrl: 'http://127.0.0.1:9/v1', category: apikey, models: [x1] }",
    "  - { id: oai, format: openai, baseUrl: 'http://127.0.0.1:9/v1', category: apikey, models: [m1, m2] }",
    "combos:",
    "  - { name: pair, strategy: priority, targets: [{ model: newp/x1 }, { model: oai/m1 }] }",
    "settings: { maxBodyMb: 20 }",
  ].join("\n");

  it("R0.4 POST /api/config/import/preview lists what an import would change and writes nothing", async () => {
    const providersBefore = (await gw.api("GET", "/api/providers")).body;
    const r = await gw.api("POST", "/api/config/import/preview", { format: "yaml", text: yaml });
    expect(r.status).toBe(200);
    const preview = r.body as ConfigImportPreview;
    expect(preview.changes).toEqual([
      { entity: "provider", id: "newp", action: "create", fields: [] },
      { entity: "provider", id: "oai", action: "update", fields: ["baseUrl"] },
      { entity: "combo", id: "pair", action: "create", fields: [] },
    ]);
    expect(preview.settings).toEqual(["maxBodyMb"]);
    expect(preview.total).toBe(3);
    expect((await gw.api("GET", "/api/providers")).body).toEqual(providersBefore);
    expect((await gw.api("GET", "/api/combos")).body).toEqual([]);
  });

  it("R0.4 a bad document fails the preview with the import's 400 and its field path", async () => {
    const r = await gw.api("POST", "/api/config/import/preview", { format: "yaml", text: "combos:\n  - { name: c, strategy: priority, targets: [{ model: ghost/m }] }" });
    expect(r.status).toBe(400);
    expect(r.body.error.path).toBe("combos.0.targets.0.model");
  });

  it("R0.4 export with secrets=env writes env:NAME references, never a key, and re-imports once they are set", async () => {
    const r = await fetch(`${gw.url}/api/config/export?format=yaml&secrets=env`, { headers: { authorization: `Bearer ${gw.token}` } });
    const text = await r.text();
    expect(text).toContain("apiKey: env:SWITCHYARD_KEY_OAI_OAI_C1");
    expect(text).toContain("apiKey: env:SWITCHYARD_KEY_OAI_OAI_C2");
    expect(text).not.toContain(SECRET_1);
    expect(text).not.toContain(SECRET_2);
    const missing = await gw.api("POST", "/api/config/import/preview", { format: "yaml", text });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toContain("SWITCHYARD_KEY_OAI_OAI_C1 is not set");
    process.env.SWITCHYARD_KEY_OAI_OAI_C1 = "sk-moved-one";
    process.env.SWITCHYARD_KEY_OAI_OAI_C2 = "sk-moved-two";
    try {
      const preview = (await gw.api("POST", "/api/config/import/preview", { format: "yaml", text })).body as ConfigImportPreview;
      expect(preview.changes.filter((c) => c.entity === "connection")).toEqual([
        { entity: "connection", id: "oai-c1", action: "update", fields: ["apiKey"] },
        { entity: "connection", id: "oai-c2", action: "update", fields: ["apiKey"] },
      ]);
    } finally {
      delete process.env.SWITCHYARD_KEY_OAI_OAI_C1;
      delete process.env.SWITCHYARD_KEY_OAI_OAI_C2;
    }
  });
});

describe("instance and demo (issue 14, R0.5)", () => {
  it("GET /api/instance names the gateway address the snippets use", async () => {
    const r = await gw.api("GET", "/api/instance");
    expect(r.body).toMatchObject({ url: gw.url });
    expect(typeof r.body.version).toBe("string");
  });

  it("R0.5 POST /api/demo starts the simulated demo once; its combo answers", async () => {
    const first = await gw.api("POST", "/api/demo");
    expect(first.body).toEqual({ ok: true, started: true, combo: "demo", providers: ["sim-a", "sim-b"] });
    const again = await gw.api("POST", "/api/demo");
    expect(again.body.started).toBe(false);
    const ids = ((await gw.api("GET", "/api/providers")).body as Array<{ id: string }>).map((p) => p.id);
    expect(ids).toEqual(expect.arrayContaining(["sim-a", "sim-b"]));
    const r = await gw.post("/v1/chat/completions", chat("demo"));
    expect(r.status).toBe(200);
    expect(r.headers.get("x-switchyard-attempts")).toBe("2");
  });
});

describe("timeline across combo waits (issue 14, R11.4)", () => {
  it("R11.4 a combo that waited keeps what every pass skipped, and how long it waited", async () => {
    for (const id of ["ta", "tb"]) await addProvider(gw, id, sim, "openai", [`${id}-key`]);
    expect((await gw.api("POST", "/api/combos", { name: "waiting", strategy: "priority", targets: [{ model: "ta/m1" }, { model: "tb/m1" }] })).status).toBe(201);
    for (const id of ["ta", "tb"]) {
      sim.addFault(`${id}-key`, { status: 429, retryAfter: 1, times: 1 });
      expect((await gw.post("/v1/chat/completions", chat(`${id}/m1`))).status).toBe(429);
    }
    const id = await send("waiting", "curl/8");
    const e = await entry(id);
    expect(e.status).toBe(200);
    expect(e.comboWaits?.count).toBeGreaterThanOrEqual(1);
    expect(e.comboWaits?.waitedMs).toBeGreaterThan(0);
    const firstPass = e.skipped!.slice(0, 2);
    expect(firstPass).toEqual([
      expect.objectContaining({ connectionId: "ta-c1", reason: "unavailable" }),
      expect.objectContaining({ connectionId: "tb-c1", reason: "unavailable" }),
    ]);
    expect(e.attempts).toHaveLength(1);
  });
});
