// API.md "Combos" and "API keys" (R11.1, R1.7): exact statuses, referential checks, keys shown
// once and stored hashed.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiServer, SIM_PROVIDER, startApiServer } from "./apiHarness.js";

describe("combos API", () => {
  let api: ApiServer;

  beforeAll(async () => {
    api = await startApiServer();
    expect((await api.call("POST", "/api/providers", SIM_PROVIDER)).status).toBe(201);
    expect((await api.call("POST", "/api/providers", { ...SIM_PROVIDER, id: "alt", models: ["m9"] })).status).toBe(201);
    expect((await api.call("POST", "/api/connections", { id: "alt-1", provider: "alt" })).status).toBe(201);
  });
  afterAll(async () => {
    await api.close();
  });

  it("R11.1 POST /api/combos answers 201 with the combo; GET /api/combos lists it", async () => {
    const res = await api.call("POST", "/api/combos", {
      name: "fast",
      strategy: "round-robin",
      targets: [
        { model: "sim/m1", weight: 2 },
        { model: "alt/m9", connectionId: "alt-1" },
      ],
      config: { comboCooldownWaitEnabled: false, targetTimeoutMs: 5000, quotaShare: true },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: "fast",
      strategy: "round-robin",
      targets: [
        { model: "sim/m1", weight: 2 },
        { model: "alt/m9", connectionId: "alt-1" },
      ],
      config: { comboCooldownWaitEnabled: false, targetTimeoutMs: 5000, quotaShare: true },
    });
    const list = await api.call("GET", "/api/combos");
    expect(list.status).toBe(200);
    expect(list.body.map((c: { name: string }) => c.name)).toEqual(["fast"]);
    expect(api.events).toContainEqual(expect.objectContaining({ type: "config", entity: "combo", id: "fast", action: "created" }));

    const defaulted = await api.call("POST", "/api/combos", { name: "plain", targets: [{ model: "sim/m2" }] });
    expect(defaulted.status).toBe(201);
    expect(defaulted.body).toMatchObject({ strategy: "priority", config: {} });
  });

  it("R11.1 targets must reference known providers and their own connections: 400 with the path", async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ name: "x1", targets: [{ model: "sim/m1" }, { model: "ghost/m1" }] }, "targets.1.model", "unknown_provider"],
      [{ name: "x2", targets: [{ model: "no-slash" }] }, "targets.0.model", "invalid_request"],
      [{ name: "x3", targets: [{ model: "sim/m1", connectionId: "alt-1" }] }, "targets.0.connectionId", "invalid_request"],
      [{ name: "x4", targets: [{ model: "sim/m1", connectionId: "missing" }] }, "targets.0.connectionId", "invalid_request"],
      [{ name: "x5", targets: [] }, "targets", "invalid_request"],
      [{ name: "x6", strategy: "coin-flip", targets: [{ model: "sim/m1" }] }, "strategy", "invalid_request"],
      [{ name: "a/b", targets: [{ model: "sim/m1" }] }, "name", "invalid_request"],
    ];
    for (const [body, path, code] of cases) {
      const res = await api.call("POST", "/api/combos", body);
      expect(res.status, path).toBe(400);
      expect(res.body.error, path).toMatchObject({ code, path });
    }
    expect(
      api.store.combos
        .list()
        .map((c) => c.name)
        .sort(),
    ).toEqual(["fast", "plain"]);
  });

  it("R1.3 a combo name may not clash with a combo, a provider id or an alias: 409", async () => {
    expect((await api.call("PATCH", "/api/settings", { aliases: { quick: "sim/m1" } })).status).toBe(200);
    for (const name of ["fast", "sim", "quick"]) {
      const res = await api.call("POST", "/api/combos", { name, targets: [{ model: "sim/m1" }] });
      expect(res.status, name).toBe(409);
      expect(res.body.error.code).toBe("conflict");
    }
    const providerLikeCombo = await api.call("POST", "/api/providers", { ...SIM_PROVIDER, id: "fast" });
    expect(providerLikeCombo.status).toBe(409);
    // The gateway resolves combos before bare model names, so naming a combo after a model is allowed.
    const modelNamed = await api.call("POST", "/api/combos", { name: "m1", targets: [{ model: "sim/m1" }, { model: "alt/m9" }] });
    expect(modelNamed.status).toBe(201);
    expect((await api.call("DELETE", "/api/combos/m1")).status).toBe(200);
  });

  it("R11.1 PATCH /api/combos/:name updates strategy, targets or config; DELETE removes it", async () => {
    const res = await api.call("PATCH", "/api/combos/fast", { strategy: "weighted", targets: [{ model: "alt/m9" }] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: "fast", strategy: "weighted", targets: [{ model: "alt/m9" }], config: { quotaShare: true } });
    const bad = await api.call("PATCH", "/api/combos/fast", { targets: [{ model: "ghost/x" }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.path).toBe("targets.0.model");
    expect(api.store.combos.get("fast")?.targets).toEqual([{ model: "alt/m9" }]);
    expect((await api.call("PATCH", "/api/combos/none", { strategy: "random" })).status).toBe(404);

    const del = await api.call("DELETE", "/api/combos/fast");
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ ok: true, name: "fast" });
    expect((await api.call("DELETE", "/api/combos/fast")).status).toBe(404);
    expect(api.events).toContainEqual(expect.objectContaining({ entity: "combo", id: "fast", action: "deleted" }));
  });
});

describe("API keys API", () => {
  let api: ApiServer;

  beforeAll(async () => {
    api = await startApiServer();
    expect((await api.call("POST", "/api/providers", SIM_PROVIDER)).status).toBe(201);
    expect((await api.call("POST", "/api/connections", { id: "c1", provider: "sim" })).status).toBe(201);
  });
  afterAll(async () => {
    await api.close();
  });

  it("R1.7 POST /api/keys answers 201 {id, key, name, scopes, allowedConnections, createdAt}; the key is shown once and stored hashed", async () => {
    const res = await api.call("POST", "/api/keys", { name: "leases", scopes: ["lease:exclusive"], allowedConnections: ["c1"] });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(["allowedConnections", "budget", "createdAt", "id", "key", "name", "scopes"]);
    expect(res.body).toMatchObject({ name: "leases", scopes: ["lease:exclusive"], allowedConnections: ["c1"] });
    const key: string = res.body.key;
    expect(key).toMatch(/^sk-sy-/);
    expect(api.events).toContainEqual(expect.objectContaining({ type: "config", entity: "key", id: res.body.id, action: "created" }));

    const list = await api.call("GET", "/api/keys");
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).toMatchObject({ id: res.body.id, name: "leases", scopes: ["lease:exclusive"], allowedConnections: ["c1"] });
    expect(list.body[0]).not.toHaveProperty("key");
    expect(list.text).not.toContain(key);

    expect(api.store.apiKeys.verify(key)?.id).toBe(res.body.id);
    const atRest = api.storedBytes();
    expect(atRest).not.toContain(key);
    expect(atRest).toContain(createHash("sha256").update(key).digest("hex"));

    const plain = await api.call("POST", "/api/keys", { name: "plain" });
    expect(plain.status).toBe(201);
    expect(plain.body).toMatchObject({ scopes: [], allowedConnections: [] });
    expect(plain.body.key).not.toBe(key);
  });

  it("R1.7 invalid key input is 400 with the path; unknown allowedConnections are refused", async () => {
    const before = api.store.apiKeys.list().length;
    const noName = await api.call("POST", "/api/keys", { scopes: [] });
    expect(noName.status).toBe(400);
    expect(noName.body.error.path).toBe("name");
    const unknown = await api.call("POST", "/api/keys", { name: "k", allowedConnections: ["c1", "ghost"] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.path).toBe("allowedConnections.1");
    const badScope = await api.call("POST", "/api/keys", { name: "k", scopes: ["has space"] });
    expect(badScope.status).toBe(400);
    expect(badScope.body.error.path).toBe("scopes.0");
    expect(api.store.apiKeys.list()).toHaveLength(before);
  });

  it("R1.7 DELETE /api/keys/:id revokes the key: 200, then 404, and the key no longer verifies", async () => {
    const created = await api.call("POST", "/api/keys", { name: "temp" });
    const del = await api.call("DELETE", `/api/keys/${created.body.id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ ok: true, id: created.body.id });
    expect(api.store.apiKeys.verify(created.body.key)).toBeNull();
    expect((await api.call("DELETE", `/api/keys/${created.body.id}`)).status).toBe(404);
  });
});
