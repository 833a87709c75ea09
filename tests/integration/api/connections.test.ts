// API.md "Connections": CRUD, secrets never returned (nor stored in clear), rateLimitProtection
// untouchable by PATCH/PUT, connection test.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiServer, SIM_PROVIDER, startApiServer } from "./apiHarness.js";

const SECRET = "sk-live-SECRET-never-shown-4242";
const SECRET_2 = "sk-live-SECOND-secret-7373";

describe("connections API", () => {
  let api: ApiServer;
  const tested: string[] = [];

  beforeAll(async () => {
    api = await startApiServer({
      testConnection: async (id) => {
        tested.push(id);
        return id === "c-bad" ? { ok: false, latencyMs: 12, error: "401 from upstream" } : { ok: true, latencyMs: 5 };
      },
    });
    expect((await api.call("POST", "/api/providers", SIM_PROVIDER)).status).toBe(201);
    expect((await api.call("POST", "/api/providers", { ...SIM_PROVIDER, id: "other" })).status).toBe(201);
  });
  afterAll(async () => {
    await api.close();
  });

  it("API.md POST /api/connections answers 201 with every documented field and hasSecret, never the secret", async () => {
    const res = await api.call("POST", "/api/connections", {
      id: "c1",
      provider: "sim",
      name: "main key",
      apiKey: SECRET,
      priority: 2,
      weight: 3,
      maxConcurrent: 4,
      rateLimitOverrides: { maxConcurrent: 2, modelConcurrency: { m1: 1 }, maxWaitMs: 1000, executionMaxWaitMs: 2000 },
      providerSpecificData: { rotationOverrides: { rateLimitResetSeconds: 30 }, lowPriorityMode: true, organizationUUID: "org-1" },
      disableCooling: true,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: "c1",
      provider: "sim",
      name: "main key",
      priority: 2,
      weight: 3,
      active: true,
      hasSecret: true,
      testStatus: "active",
      rateLimitedUntil: null,
      backoffLevel: 0,
      lastError: null,
      lastErrorType: null,
      errorCode: null,
      maxConcurrent: 4,
      rateLimitProtection: null,
      disableCooling: true,
      rateLimitOverrides: { maxConcurrent: 2, modelConcurrency: { m1: 1 }, maxWaitMs: 1000, executionMaxWaitMs: 2000 },
      providerSpecificData: { rotationOverrides: { rateLimitResetSeconds: 30 }, lowPriorityMode: true, organizationUUID: "org-1" },
    });
    expect(res.body).not.toHaveProperty("apiKey");
    expect(api.store.connections.getSecret("c1")).toBe(SECRET);
  });

  it("API.md an id is generated when absent, with defaults priority 0, weight 1, active", async () => {
    const res = await api.call("POST", "/api/connections", { provider: "sim" });
    expect(res.status).toBe(201);
    expect(res.body.id).toMatch(/^sim-/);
    expect(res.body).toMatchObject({ priority: 0, weight: 1, active: true, hasSecret: false, maxConcurrent: null });
    expect((await api.call("DELETE", `/api/connections/${res.body.id}`)).status).toBe(200);
  });

  it("R10.1 bad connection input is 400 with the field path (unknown provider included) and saves nothing", async () => {
    const before = api.store.connections.list().length;
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ provider: "ghost", apiKey: "k" }, "provider", "unknown_provider"],
      [{ provider: "sim", priority: "high" }, "priority", "invalid_request"],
      [{ provider: "sim", weight: -1 }, "weight", "invalid_request"],
      [{ provider: "sim", maxConcurrent: 0 }, "maxConcurrent", "invalid_request"],
      [{ provider: "sim", rateLimitOverrides: { maxWaitMs: -5 } }, "rateLimitOverrides.maxWaitMs", "invalid_request"],
      [{ provider: "sim", providerSpecificData: { lowPriorityMode: "yes" } }, "providerSpecificData.lowPriorityMode", "invalid_request"],
      [{ provider: "sim", id: "a/b" }, "id", "invalid_request"],
    ];
    for (const [body, path, code] of cases) {
      const res = await api.call("POST", "/api/connections", body);
      expect(res.status, path).toBe(400);
      expect(res.body.error, path).toMatchObject({ code, path });
    }
    expect(api.store.connections.list()).toHaveLength(before);

    const dup = await api.call("POST", "/api/connections", { id: "c1", provider: "sim" });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe("conflict");
  });

  it("API.md GET /api/connections[?provider=] and GET /api/connections/:id", async () => {
    expect((await api.call("POST", "/api/connections", { id: "c2", provider: "other", apiKey: SECRET_2 })).status).toBe(201);
    const all = await api.call("GET", "/api/connections");
    expect(all.status).toBe(200);
    expect(all.body.map((c: { id: string }) => c.id).sort()).toEqual(["c1", "c2"]);
    const filtered = await api.call("GET", "/api/connections?provider=other");
    expect(filtered.body.map((c: { id: string }) => c.id)).toEqual(["c2"]);
    const one = await api.call("GET", "/api/connections/c1");
    expect(one.status).toBe(200);
    expect(one.body.id).toBe("c1");
    expect((await api.call("GET", "/api/connections/none")).status).toBe(404);
  });

  it("API.md PATCH /api/connections/:id updates fields; apiKey replaces (null removes) the secret", async () => {
    const res = await api.call("PATCH", "/api/connections/c1", { name: "renamed", active: false, apiKey: SECRET_2 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: "c1", name: "renamed", active: false, priority: 2, hasSecret: true });
    expect(api.store.connections.getSecret("c1")).toBe(SECRET_2);

    const keep = await api.call("PATCH", "/api/connections/c1", { priority: 9 });
    expect(keep.body).toMatchObject({ priority: 9, hasSecret: true });
    expect(api.store.connections.getSecret("c1")).toBe(SECRET_2);

    const bad = await api.call("PATCH", "/api/connections/c1", { weight: "heavy" });
    expect(bad.status).toBe(400);
    expect(bad.body.error.path).toBe("weight");
    expect((await api.call("PATCH", "/api/connections/none", { name: "x" })).status).toBe(404);
    expect(api.events).toContainEqual(expect.objectContaining({ type: "config", entity: "connection", id: "c1", action: "updated" }));

    const cleared = await api.call("PATCH", "/api/connections/c1", { apiKey: null });
    expect(cleared.body.hasSecret).toBe(false);
    expect(api.store.connections.getSecret("c1")).toBeNull();
    expect((await api.call("PATCH", "/api/connections/c1", { apiKey: SECRET })).body.hasSecret).toBe(true);
  });

  it("R9.5 PATCH and PUT never change rateLimitProtection: a change is refused with 400 naming the field", async () => {
    api.store.connections.setRateLimitProtection("c1", true);
    const patch = await api.call("PATCH", "/api/connections/c1", { name: "x", rateLimitProtection: false });
    expect(patch.status).toBe(400);
    expect(patch.body.error).toMatchObject({ code: "invalid_request", path: "rateLimitProtection" });
    const put = await api.call("PUT", "/api/connections/c1", { name: "x", rateLimitProtection: null });
    expect(put.status).toBe(400);
    expect(put.body.error.path).toBe("rateLimitProtection");
    const stored = api.store.connections.get("c1");
    expect(stored?.rateLimitProtection).toBe(true);
    expect(stored?.name).toBe("renamed");

    // Sending back what GET returned is not a change, so a whole object round-trips.
    const echoed = await api.call("PATCH", "/api/connections/c1", { ...stored, name: "echoed" });
    expect(echoed.status).toBe(200);
    expect(echoed.body).toMatchObject({ name: "echoed", rateLimitProtection: true });
  });

  it("API.md PUT /api/connections/:id replaces the config (absent fields to defaults) and keeps the secret", async () => {
    const res = await api.call("PUT", "/api/connections/c1", { provider: "sim", name: "replaced", weight: 5 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: "c1",
      name: "replaced",
      weight: 5,
      priority: 0,
      active: true,
      maxConcurrent: null,
      disableCooling: false,
      rateLimitOverrides: {},
      providerSpecificData: {},
      hasSecret: true,
      rateLimitProtection: true,
    });
    expect(api.store.connections.getSecret("c1")).toBe(SECRET);

    const move = await api.call("PUT", "/api/connections/c1", { provider: "other" });
    expect(move.status).toBe(400);
    expect(move.body.error.path).toBe("provider");
    expect((await api.call("PUT", "/api/connections/none", {})).status).toBe(404);
  });

  it("API.md POST /api/connections/:id/test answers {ok, latencyMs, error?}", async () => {
    const ok = await api.call("POST", "/api/connections/c1/test");
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ ok: true, latencyMs: 5 });
    expect(tested).toEqual(["c1"]);
    expect((await api.call("POST", "/api/connections/none/test")).status).toBe(404);
    expect(tested).toEqual(["c1"]);
  });

  it("API.md DELETE /api/connections/:id answers 200, then 404", async () => {
    expect((await api.call("POST", "/api/connections", { id: "gone", provider: "sim", apiKey: "sk-gone-123" })).status).toBe(201);
    const res = await api.call("DELETE", "/api/connections/gone");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, id: "gone" });
    expect((await api.call("DELETE", "/api/connections/gone")).status).toBe(404);
    expect(api.events).toContainEqual(expect.objectContaining({ entity: "connection", id: "gone", action: "deleted" }));
  });

  it("R0.4 no response of this API ever contains a connection secret, and none is stored in clear", async () => {
    await api.call("GET", "/api/connections");
    await api.call("GET", "/api/connections/c1");
    await api.call("GET", "/api/config/export");
    await api.call("GET", "/api/config/export?format=yaml");
    expect(api.transcript.length).toBeGreaterThan(20);
    for (const body of api.transcript) {
      expect(body).not.toContain(SECRET);
      expect(body).not.toContain(SECRET_2);
    }
    const atRest = api.storedBytes();
    expect(atRest).not.toContain(SECRET);
    expect(atRest).not.toContain(SECRET_2);
  });
});
