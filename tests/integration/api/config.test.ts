// R0.4 declarative config: export (secrets redacted, JSON or YAML), import (env:NAME secrets,
// upserts, one transaction: all or nothing) and the CLI's `--config file` path.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import YAML from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError, applyConfigDocument, loadConfigFile } from "../../../main/api/index.js";
import { type ApiServer, startApiServer } from "./apiHarness.js";

const SECRET_A = "sk-live-AAAA-export-never-1111";
const SECRET_ENV = "sk-live-FROM-ENV-2222";

describe("config export and import", () => {
  let source: ApiServer;
  let target: ApiServer;

  beforeAll(async () => {
    source = await startApiServer();
    target = await startApiServer();
    const setup: Array<[string, string, unknown]> = [
      ["POST", "/api/providers", { id: "sim", format: "openai", baseUrl: "http://127.0.0.1:9/v1", models: ["m1"] }],
      ["POST", "/api/providers", { id: "anth", format: "anthropic", baseUrl: "https://api.anthropic.com", quotaFamilies: { c: ["c-"] } }],
      ["POST", "/api/connections", { id: "c1", provider: "sim", name: "keyed", apiKey: SECRET_A, priority: 1 }],
      ["POST", "/api/connections", { id: "c2", provider: "anth", name: "keyless", weight: 2 }],
      ["POST", "/api/combos", { name: "duo", strategy: "weighted", targets: [{ model: "sim/m1" }, { model: "anth/c-1", connectionId: "c2" }] }],
      ["PATCH", "/api/settings", { requireClientKey: true, aliases: { quick: "duo" } }],
    ];
    for (const [verb, route, body] of setup) {
      const res = await source.call(verb, route, body);
      expect(res.status, `${verb} ${route}: ${res.text}`).toBeLessThan(300);
    }
    source.store.connections.setRateLimitProtection("c1", true);
    source.store.settings.setDocument("resilience", { comboCooldownWait: { enabled: false } });
  });
  afterAll(async () => {
    await source.close();
    await target.close();
    delete process.env.SY_TEST_SECRET;
  });

  it("R0.4 GET /api/config/export is the whole config with secrets redacted and runtime state left out", async () => {
    const res = await source.call("GET", "/api/config/export");
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.version).toBe(1);
    expect(doc.providers.map((p: { id: string }) => p.id).sort()).toEqual(["anth", "sim"]);
    expect(doc.providers[0]).not.toHaveProperty("createdAt");
    const c1 = doc.connections.find((c: { id: string }) => c.id === "c1");
    const c2 = doc.connections.find((c: { id: string }) => c.id === "c2");
    expect(c1).toEqual({
      id: "c1",
      provider: "sim",
      name: "keyed",
      priority: 1,
      weight: 1,
      active: true,
      maxConcurrent: null,
      rateLimitOverrides: {},
      providerSpecificData: {},
      disableCooling: false,
      rateLimitProtection: true,
      apiKey: "<redacted>",
    });
    expect(c2).not.toHaveProperty("apiKey");
    expect(doc.combos).toEqual([{ name: "duo", strategy: "weighted", targets: [{ model: "sim/m1" }, { model: "anth/c-1", connectionId: "c2" }], config: {} }]);
    expect(doc.settings).toMatchObject({ requireClientKey: true, aliases: { quick: "duo" }, maxBodyMb: 50 });
    expect(doc.resilience).toEqual({ comboCooldownWait: { enabled: false } });
    expect(res.text).not.toContain(SECRET_A);
  });

  it("R0.4 ?format=yaml serves the same document as text/yaml", async () => {
    const json = await source.call("GET", "/api/config/export?format=json");
    const yaml = await source.call("GET", "/api/config/export?format=yaml");
    expect(yaml.status).toBe(200);
    expect(String(yaml.headers["content-type"])).toMatch(/^text\/yaml/);
    expect(YAML.parse(yaml.text)).toEqual(json.body);
    expect(yaml.text).not.toContain(SECRET_A);
    const bad = await source.call("GET", "/api/config/export?format=xml");
    expect(bad.status).toBe(400);
    expect(bad.body.error.path).toBe("format");
  });

  it("R0.4 an export imports into an empty Switchyard; env:NAME secrets are resolved at import", async () => {
    process.env.SY_TEST_SECRET = SECRET_ENV;
    const doc = (await source.call("GET", "/api/config/export")).body;
    doc.connections.find((c: { id: string }) => c.id === "c1").apiKey = "env:SY_TEST_SECRET";
    const res = await target.call("POST", "/api/config/import", doc);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, imported: { providers: 2, connections: 2, combos: 1, keys: 0 } });
    expect(res.text).not.toContain(SECRET_ENV);

    expect(target.store.connections.getSecret("c1")).toBe(SECRET_ENV);
    expect(target.store.connections.get("c1")?.rateLimitProtection).toBe(true);
    expect(target.store.connections.get("c2")?.hasSecret).toBe(false);
    const again = (await target.call("GET", "/api/config/export")).body;
    expect(again).toEqual((await source.call("GET", "/api/config/export")).body);
    expect(target.events).toContainEqual(expect.objectContaining({ type: "config", entity: "connection", id: "c1", action: "created" }));
    expect(target.events).toContainEqual(expect.objectContaining({ type: "settings", scope: "resilience" }));
    expect(target.settingsChanged()).toBeGreaterThan(0);
  });

  it("R0.4 re-importing a redacted export keeps the stored secret and updates in place", async () => {
    const doc = (await target.call("GET", "/api/config/export")).body;
    doc.connections.find((c: { id: string }) => c.id === "c1").name = "renamed";
    doc.providers.find((p: { id: string }) => p.id === "sim").models = ["m1", "m2"];
    const res = await target.call("POST", "/api/config/import", doc);
    expect(res.status).toBe(200);
    expect(target.store.connections.getSecret("c1")).toBe(SECRET_ENV);
    expect(target.store.connections.get("c1")?.name).toBe("renamed");
    expect(target.store.providers.get("sim")?.models).toEqual(["m1", "m2"]);
    expect(target.store.providers.list()).toHaveLength(2);
    expect(target.events).toContainEqual(expect.objectContaining({ entity: "provider", id: "sim", action: "updated" }));
  });

  it('R0.4 POST /api/config/import accepts {format: "yaml", text}', async () => {
    const text = YAML.stringify({
      providers: [{ id: "yml", format: "simulator" }],
      connections: [{ provider: "yml", name: "first", apiKey: "sk-literal-yaml-3333" }],
      combos: [{ name: "ycombo", targets: [{ model: "yml/any" }] }],
    });
    const res = await target.call("POST", "/api/config/import", { format: "yaml", text });
    expect(res.status).toBe(200);
    expect(res.body.imported).toEqual({ providers: 1, connections: 1, combos: 1, keys: 0 });
    const [conn] = target.store.connections.list({ provider: "yml" });
    expect(target.store.connections.getSecret(conn.id)).toBe("sk-literal-yaml-3333");

    // Without an id, provider + name find the same connection again instead of duplicating it.
    expect((await target.call("POST", "/api/config/import", { format: "yaml", text })).status).toBe(200);
    expect(target.store.connections.list({ provider: "yml" })).toHaveLength(1);

    const broken = await target.call("POST", "/api/config/import", { format: "yaml", text: "providers: [unclosed" });
    expect(broken.status).toBe(400);
    expect(broken.body.error.path).toBe("text");
  });

  it("R0.4 a bad document is refused with the field path and changes nothing (all or nothing)", async () => {
    const before = (await target.call("GET", "/api/config/export")).text;
    const eventsBefore = target.events.length;
    const cases: Array<[Record<string, unknown>, string]> = [
      [
        {
          providers: [{ id: "new-p", format: "openai", baseUrl: "http://127.0.0.1:9/v1" }],
          connections: [
            { id: "ok", provider: "new-p" },
            { id: "bad", provider: "ghost" },
          ],
        },
        "connections.1.provider",
      ],
      [
        {
          providers: [{ id: "new-p", format: "openai", baseUrl: "http://127.0.0.1:9/v1" }],
          connections: [{ id: "envless", provider: "new-p", apiKey: "env:SY_TEST_NOT_SET_ANYWHERE" }],
        },
        "connections.0.apiKey",
      ],
      [
        { providers: [{ id: "new-p", format: "openai", baseUrl: "http://127.0.0.1:9/v1" }], combos: [{ name: "c", targets: [{ model: "new-p/m" }, { model: "ghost/m" }] }] },
        "combos.0.targets.1.model",
      ],
      [{ providers: [{ id: "new-p", format: "openai" }] }, "providers.0.baseUrl"],
      [
        {
          providers: [
            { id: "new-p", format: "openai", baseUrl: "http://x" },
            { id: "new-p", format: "simulator" },
          ],
        },
        "providers.1.id",
      ],
      [{ providers: [{ id: "new-p", format: "openai", baseUrl: "http://x" }], settings: { maxBodyMb: "huge" } }, "settings.maxBodyMb"],
      [{ providers: [{ id: "new-p", format: "openai", baseUrl: "http://x" }], apiKeys: [{ name: "k", allowedConnections: ["nobody"] }] }, "apiKeys.0.allowedConnections.0"],
      [{ version: 2 }, "version"],
      [{ provider: [] }, "provider"],
    ];
    for (const [doc, path] of cases) {
      const res = await target.call("POST", "/api/config/import", doc);
      expect(res.status, path).toBe(400);
      expect(res.body.error.path, path).toBe(path);
    }
    expect(target.store.providers.get("new-p")).toBeNull();
    expect((await target.call("GET", "/api/config/export")).text).toBe(before);
    expect(target.events).toHaveLength(eventsBefore);
  });

  it("R0.4 config-declared API keys: generated once (shown in the answer), kept on re-import, never exported", async () => {
    const doc = { apiKeys: [{ name: "ci", scopes: ["lease:exclusive"], allowedConnections: ["c1"] }] };
    const first = await target.call("POST", "/api/config/import", doc);
    expect(first.status).toBe(200);
    expect(first.body.imported.keys).toBe(1);
    const [created] = first.body.createdKeys;
    expect(created).toMatchObject({ name: "ci" });
    expect(target.store.apiKeys.verify(created.key)?.name).toBe("ci");

    const second = await target.call("POST", "/api/config/import", doc);
    expect(second.status).toBe(200);
    expect(second.body).not.toHaveProperty("createdKeys");
    expect(target.store.apiKeys.list().filter((k) => k.name === "ci")).toHaveLength(1);

    const changed = await target.call("POST", "/api/config/import", { apiKeys: [{ name: "ci", scopes: [] }] });
    expect(changed.status).toBe(409);
    expect(changed.body.error.path).toBe("apiKeys.0");
    expect((await target.call("GET", "/api/config/export")).text).not.toContain(created.key);
  });
  it("R0.4 an apiKeys entry with key env:NAME registers exactly that key, never echoed back", async () => {
    process.env.SY_TEST_CLIENT_KEY = "sk-sy-fixed-client-key-from-env-5555";
    try {
      const res = await target.call("POST", "/api/config/import", {
        providers: [{ id: "with-key", format: "simulator" }],
        apiKeys: [{ name: "fixed", key: "env:SY_TEST_CLIENT_KEY", scopes: ["lease:exclusive"], allowedConnections: ["c1"] }],
      });
      expect(res.text).not.toContain("sk-sy-fixed-client-key-from-env-5555");
      expect(res.status).toBe(200);
      expect(target.store.apiKeys.verify("sk-sy-fixed-client-key-from-env-5555")?.name).toBe("fixed");
      expect(res.body).not.toHaveProperty("createdKeys");
      const short = await target.call("POST", "/api/config/import", { apiKeys: [{ name: "short", key: "sk-sy-tiny" }] });
      expect(short.status).toBe(400);
      expect(short.body.error.path).toBe("apiKeys.0.key");
    } finally {
      delete process.env.SY_TEST_CLIENT_KEY;
    }
  });
});

describe("R0.4 --config file.(json|yaml) for the CLI", () => {
  let dir: string;
  let api: ApiServer;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "switchyard-config-"));
    api = await startApiServer();
  });
  afterAll(async () => {
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("R0.4 loadConfigFile parses YAML and JSON by extension; applyConfigDocument seeds the store", () => {
    const yamlPath = path.join(dir, "switchyard.yaml");
    writeFileSync(
      yamlPath,
      [
        "version: 1",
        "providers:",
        "  - id: openai",
        "    format: openai",
        "    baseUrl: https://api.openai.com/v1",
        "    models: [gpt-x]",
        "connections:",
        "  - id: oa-1",
        "    provider: openai",
        "    apiKey: env:OPENAI_KEY_FOR_TEST",
        "settings:",
        "  requireClientKey: true",
      ].join("\n"),
    );
    const result = applyConfigDocument(api.store, loadConfigFile(yamlPath), { OPENAI_KEY_FOR_TEST: "sk-from-cli-env-4444" });
    expect(result.imported).toEqual({ providers: 1, connections: 1, combos: 0, keys: 0 });
    expect(api.store.connections.getSecret("oa-1")).toBe("sk-from-cli-env-4444");
    expect(api.store.settings.getDocument<{ requireClientKey: boolean }>("settings")?.requireClientKey).toBe(true);

    const jsonPath = path.join(dir, "more.json");
    writeFileSync(jsonPath, JSON.stringify({ combos: [{ name: "gpt", targets: [{ model: "openai/gpt-x" }] }] }));
    expect(applyConfigDocument(api.store, loadConfigFile(jsonPath), {}).imported.combos).toBe(1);
    expect(api.store.combos.get("gpt")?.strategy).toBe("priority");
  });

  it("R0.4 a missing env secret, bad syntax or an unknown extension fails loudly and writes nothing", () => {
    const bad = path.join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify({ providers: [{ id: "p2", format: "simulator" }], connections: [{ provider: "p2", apiKey: "env:NOPE_NOT_SET" }] }));
    expect(() => applyConfigDocument(api.store, loadConfigFile(bad), {})).toThrow(ApiError);
    expect(api.store.providers.get("p2")).toBeNull();

    const broken = path.join(dir, "broken.yaml");
    writeFileSync(broken, "providers: [");
    expect(() => loadConfigFile(broken)).toThrow(/invalid YAML/);
    const toml = path.join(dir, "c.toml");
    writeFileSync(toml, "");
    expect(() => loadConfigFile(toml)).toThrow(/\.json, \.yaml or \.yml/);
  });
});
