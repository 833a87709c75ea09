// Guards on every route: admin token on /api, loopback Host allowlist, body limit in the client's
// format, client keys when required, and secrets never leaving the process (API.md, R1.7).
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, startGateway, startSim, type TestGateway } from "../harness.js";

let gw: TestGateway;
let sim: Simulator;
const SECRET = "sk-live-VERY-SECRET-value-0123456789";

beforeAll(async () => {
  sim = await startSim();
  gw = await startGateway();
  await addProvider(gw, "oai", sim, "openai", [SECRET, "second-key"]);
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

describe("guards", () => {
  it("API.md every /api call without the admin token → 401", async () => {
    const none = await fetch(gw.url + "/api/providers");
    expect(none.status).toBe(401);
    expect((await none.json()).error.code).toBe("unauthorized");
    const wrong = await fetch(gw.url + "/api/providers", { headers: { authorization: "Bearer nope" } });
    expect(wrong.status).toBe(401);
  });

  it("API.md a non-loopback Host header → 403 on client and management routes", async () => {
    for (const route of ["/v1/models", "/api/providers", "/health"]) {
      const r = await request(gw.url + route, { headers: { host: "evil.example", authorization: `Bearer ${gw.token}` } });
      expect(r.statusCode).toBe(403);
      await r.body.text();
    }
    const ok = await request(gw.url + "/health", { headers: { host: "localhost:1234" } });
    expect(ok.statusCode).toBe(200);
    await ok.body.text();
  });

  it("API.md a body above maxBodyMb → 413 in the client's format, and the limit applies live", async () => {
    const patch = await gw.api("PATCH", "/api/settings", { maxBodyMb: 1 });
    expect(patch.status).toBe(200);
    const big = "x".repeat(1.5 * 1024 * 1024);
    const oai = await gw.post("/v1/chat/completions", { model: "oai/m1", messages: [{ role: "user", content: big }] });
    expect(oai.status).toBe(413);
    expect(oai.body.error.code).toBe("payload_too_large");
    const ant = await gw.post("/v1/messages", { model: "oai/m1", max_tokens: 5, messages: [{ role: "user", content: big }] });
    expect(ant.status).toBe(413);
    expect(ant.body.type).toBe("error");
    await gw.api("PATCH", "/api/settings", { maxBodyMb: 50 });
  });

  it("R1.5 malformed JSON or a missing model → 400 invalid_request in the client's format", async () => {
    const bad = await fetch(gw.url + "/v1/chat/completions", { method: "POST", headers: { "content-type": "application/json" }, body: "{oops" });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.code).toBe("invalid_request");
    const noModel = await gw.post("/v1/messages", { max_tokens: 5, messages: [] });
    expect(noModel.status).toBe(400);
    expect(noModel.body.error.type).toBe("invalid_request_error");
  });

  it("R1.7 with requireClientKey on, only a valid Switchyard key passes (Bearer or x-api-key), limited to its allowedConnections", async () => {
    const key = await gw.api("POST", "/api/keys", { name: "ci" });
    expect(key.status).toBe(201);
    expect(key.body.key).toMatch(/^sk-sy-/);
    await gw.api("PATCH", "/api/settings", { requireClientKey: true });
    const denied = await gw.post("/v1/chat/completions", { model: "oai/m1", messages: [{ role: "user", content: "hi" }] });
    expect(denied.status).toBe(401);
    expect(denied.body.error.code).toBe("unauthorized");
    const bearer = await gw.post("/v1/chat/completions", { model: "oai/m1", messages: [{ role: "user", content: "hi" }] }, { authorization: `Bearer ${key.body.key}` });
    expect(bearer.status).toBe(200);
    const xkey = await gw.post("/v1/messages", { model: "oai/m1", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }, { "x-api-key": key.body.key });
    expect(xkey.status).not.toBe(401);
    const limited = await gw.api("POST", "/api/keys", { name: "only-c2", allowedConnections: ["oai-c2"] });
    const viaLimited = await gw.post("/v1/chat/completions", { model: "oai/m1", messages: [{ role: "user", content: "hi" }] }, { authorization: `Bearer ${limited.body.key}` });
    expect(viaLimited.headers.get("x-omniroute-selected-connection-id")).toBe("oai-c2");
    await gw.api("PATCH", "/api/settings", { requireClientKey: false });
  });

  it("R0.4 the provider secret never appears in any API response, export, log or client response", async () => {
    sim.addFault(SECRET, { status: 401, body: `{"error":{"message":"Incorrect API key provided: ${SECRET}"}}`, times: 1 });
    const client = await gw.post("/v1/chat/completions", { model: "oai/m1", messages: [{ role: "user", content: "hi" }] });
    const bodies = [client.text];
    for (const route of [
      "/api/connections",
      "/api/connections/oai-c1",
      "/api/providers",
      "/api/config/export",
      "/api/config/export?format=yaml",
      "/api/logs",
      "/api/resilience/cooldowns",
      "/api/monitoring/health",
    ]) {
      const r = await gw.api("GET", route);
      expect(r.status, route).toBe(200);
      bodies.push(r.text);
    }
    for (const text of bodies) expect(text).not.toContain(SECRET);
    const conn = await gw.api("GET", "/api/connections/oai-c1");
    expect(conn.body.hasSecret).toBe(true);
    expect(sim.requests.some((r) => r.key === SECRET)).toBe(true);
  });

  it("API.md /api refuses cross-origin browser requests and never sends permissive CORS headers", async () => {
    const r = await fetch(gw.url + "/api/providers", { headers: { authorization: `Bearer ${gw.token}`, origin: "http://evil.example" } });
    expect(r.status).toBe(403);
    expect(r.headers.get("access-control-allow-origin")).toBeNull();
  });
});
