// API.md "Providers": CRUD with exact statuses, validation paths, conflicts and events.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiServer, SIM_PROVIDER, startApiServer } from "./apiHarness.js";

describe("providers API", () => {
  let api: ApiServer;

  beforeAll(async () => {
    api = await startApiServer();
  });
  afterAll(async () => {
    await api.close();
  });

  it("API.md POST /api/providers answers 201 with the provider and its defaults; GET lists and reads it", async () => {
    const created = await api.call("POST", "/api/providers", {
      id: "anth",
      format: "anthropic",
      baseUrl: "https://api.anthropic.com",
      category: "apikey",
      models: ["claude-a"],
      quotaFamilies: { claude: ["claude-"] },
      rateLimitCooldownSeconds: 60,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: "anth",
      format: "anthropic",
      baseUrl: "https://api.anthropic.com",
      category: "apikey",
      models: ["claude-a"],
      quotaFamilies: { claude: ["claude-"] },
      passthroughModels: false,
      rateLimitCooldownSeconds: 60,
      options: {},
    });
    expect(typeof created.body.createdAt).toBe("number");

    const sim = await api.call("POST", "/api/providers", { id: "local-sim", format: "simulator" });
    expect(sim.status).toBe(201);
    expect(sim.body).toMatchObject({ category: "local", baseUrl: "", models: [] });

    const list = await api.call("GET", "/api/providers");
    expect(list.status).toBe(200);
    expect(list.body.map((p: { id: string }) => p.id).sort()).toEqual(["anth", "local-sim"]);

    const one = await api.call("GET", "/api/providers/anth");
    expect(one.status).toBe(200);
    expect(one.body.id).toBe("anth");
    expect((await api.call("GET", "/api/providers/nope")).status).toBe(404);

    expect(api.events).toContainEqual(expect.objectContaining({ type: "config", entity: "provider", id: "anth", action: "created" }));
  });

  it("R10.1 invalid provider input is a 400 naming the field, and nothing is saved", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...SIM_PROVIDER, id: "bad-format", format: "cohere" }, "format"],
      [{ ...SIM_PROVIDER, id: "no-url", baseUrl: undefined }, "baseUrl"],
      [{ ...SIM_PROVIDER, id: "ftp", baseUrl: "ftp://example.com" }, "baseUrl"],
      [{ ...SIM_PROVIDER, id: "has/slash" }, "id"],
      [{ ...SIM_PROVIDER, id: "models", models: ["ok", 3] }, "models.1"],
      [{ ...SIM_PROVIDER, id: "cool", rateLimitCooldownSeconds: 21_601 }, "rateLimitCooldownSeconds"],
      [{ ...SIM_PROVIDER, id: "cat", category: "free" }, "category"],
    ];
    for (const [body, path] of cases) {
      const res = await api.call("POST", "/api/providers", body);
      expect(res.status, path).toBe(400);
      expect(res.body.error).toMatchObject({ code: "invalid_request", path });
      expect(res.body.error.message).toContain(path);
    }
    expect(
      api.store.providers
        .list()
        .map((p) => p.id)
        .sort(),
    ).toEqual(["anth", "local-sim"]);
  });

  it("API.md a duplicate provider id answers 409 conflict", async () => {
    const res = await api.call("POST", "/api/providers", { ...SIM_PROVIDER, id: "anth" });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("conflict");
    expect(api.store.providers.get("anth")?.format).toBe("anthropic");
  });

  it("API.md PATCH /api/providers/:id changes only the given fields; PUT replaces the whole provider", async () => {
    const patched = await api.call("PATCH", "/api/providers/anth", { models: ["claude-a", "claude-b"], passthroughModels: true });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      id: "anth",
      format: "anthropic",
      models: ["claude-a", "claude-b"],
      passthroughModels: true,
      rateLimitCooldownSeconds: 60,
    });

    const badPatch = await api.call("PATCH", "/api/providers/anth", { format: "openai", baseUrl: "" });
    expect(badPatch.status).toBe(400);
    expect(badPatch.body.error.path).toBe("baseUrl");
    expect(api.store.providers.get("anth")?.format).toBe("anthropic");

    const replaced = await api.call("PUT", "/api/providers/anth", { format: "openai", baseUrl: "https://api.openai.com/v1" });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({
      id: "anth",
      format: "openai",
      category: "apikey",
      models: [],
      quotaFamilies: {},
      passthroughModels: false,
      rateLimitCooldownSeconds: null,
    });

    expect((await api.call("PATCH", "/api/providers/nope", { models: [] })).status).toBe(404);
    expect((await api.call("PUT", "/api/providers/nope", SIM_PROVIDER)).status).toBe(404);
    expect(api.events).toContainEqual(expect.objectContaining({ type: "config", entity: "provider", id: "anth", action: "updated" }));
  });

  it("API.md DELETE /api/providers/:id removes the provider and its connections", async () => {
    const conn = await api.call("POST", "/api/connections", { provider: "anth", name: "k1", apiKey: "sk-provider-delete-1" });
    expect(conn.status).toBe(201);

    const deleted = await api.call("DELETE", "/api/providers/anth");
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ ok: true, id: "anth" });
    expect((await api.call("GET", "/api/providers/anth")).status).toBe(404);
    expect((await api.call("GET", `/api/connections/${conn.body.id}`)).status).toBe(404);
    expect((await api.call("DELETE", "/api/providers/anth")).status).toBe(404);
    expect(api.events).toContainEqual(expect.objectContaining({ entity: "connection", id: conn.body.id, action: "deleted" }));
  });
});
