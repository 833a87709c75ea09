// GET/PATCH /api/settings (R10.3, R12.4, R1.7, R7.1) and GET /api/logs (R15.1).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_APP_SETTINGS } from "../../../shared/appSettings.js";
import { normaliseAppSettingsWithReport } from "../../../shared/schemas/appSettings.js";
import type { RequestLogEntry } from "../../../shared/types.js";
import { type ApiServer, startApiServer } from "./apiHarness.js";

const DAY = 24 * 3_600_000;

describe("settings API", () => {
  let api: ApiServer;

  beforeAll(async () => {
    api = await startApiServer();
  });
  afterAll(async () => {
    await api.close();
  });

  it("R10.3 GET /api/settings returns the full document with defaults applied", async () => {
    const res = await api.call("GET", "/api/settings");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      sessionAffinityTtlMs: 3_600_000,
      requireClientKey: false,
      maxBodyMb: 50,
      proxyEnabled: true,
      providerErrorRules: [],
      providerErrorDefaults: {},
      emergencyFallback: { enabled: false, model: null },
      aliases: {},
      requestLogRetention: 10_000,
      promptLogging: false,
      promptRetentionHours: 24,
      responsesRetentionHours: 24,
      redisUrl: null,
      metricsPublic: false,
      // R8.1: no global gate unless one is set.
      maxConcurrent: null,
    });
  });

  it("R10.3 PATCH /api/settings saves a partial patch, clamps numbers, notifies the gateway and the renderer", async () => {
    const changesBefore = api.settingsChanged();
    const res = await api.call("PATCH", "/api/settings", {
      requireClientKey: true,
      sessionAffinityTtlMs: 0,
      maxBodyMb: 9_000,
      emergencyFallback: { enabled: true },
      aliases: { fast: "sim/m1", best: "my-combo" },
      providerErrorRules: [
        { provider: "sim", status: 403, scope: "connection", cooldownMs: 30 * DAY },
        { provider: "sim", match: "insufficient_quota", scope: "model", reason: "quota_exhausted" },
      ],
      providerErrorDefaults: { sim: { cooldownMs: 60_000, scope: "provider" } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      requireClientKey: true,
      sessionAffinityTtlMs: 0,
      maxBodyMb: 500,
      proxyEnabled: true,
      emergencyFallback: { enabled: true, model: null },
      aliases: { fast: "sim/m1", best: "my-combo" },
      providerErrorDefaults: { sim: { cooldownMs: 60_000, scope: "provider" } },
    });
    expect(res.body.providerErrorRules).toEqual([
      { provider: "sim", status: 403, scope: "connection", cooldownMs: 30 * DAY },
      { provider: "sim", match: "insufficient_quota", scope: "model", reason: "quota_exhausted" },
    ]);
    expect((await api.call("GET", "/api/settings")).body).toEqual(res.body);
    expect(api.settingsChanged()).toBe(changesBefore + 1);
    expect(api.events).toContainEqual(expect.objectContaining({ type: "settings", scope: "settings" }));

    const merged = await api.call("PATCH", "/api/settings", { emergencyFallback: { model: "sim/m2" } });
    expect(merged.body.emergencyFallback).toEqual({ enabled: true, model: "sim/m2" });
    expect(merged.body.requireClientKey).toBe(true);
  });

  it("R12.4 invalid error rules and defaults are 400 with the field path, and nothing is saved", async () => {
    const before = (await api.call("GET", "/api/settings")).body;
    const tooMany = Array.from({ length: 51 }, (_, i) => ({ provider: "sim", status: 400 + (i % 100) }));
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ providerErrorRules: [{ provider: "sim", scope: "model" }] }, "providerErrorRules.0.status"],
      [
        {
          providerErrorRules: [
            { provider: "sim", status: 429 },
            { provider: "sim", match: "x", cooldownMs: 30 * DAY + 1 },
          ],
        },
        "providerErrorRules.1.cooldownMs",
      ],
      [{ providerErrorRules: [{ provider: "sim", match: { source: "x.*" } }] }, "providerErrorRules.0.match"],
      [{ providerErrorRules: [{ provider: "sim", status: 429, scope: "global" }] }, "providerErrorRules.0.scope"],
      [{ providerErrorRules: tooMany }, "providerErrorRules"],
      [{ providerErrorDefaults: { sim: { cooldownMs: 59_999 } } }, "providerErrorDefaults.sim.cooldownMs"],
      [{ providerErrorDefaults: { sim: { cooldownMs: 31 * DAY } } }, "providerErrorDefaults.sim.cooldownMs"],
      [{ requireClientKey: "yes" }, "requireClientKey"],
      [{ maxBodyMb: "big" }, "maxBodyMb"],
      [{ aliases: { fast: "" } }, "aliases.fast"],
      [{ noSuchSetting: true }, "noSuchSetting"],
    ];
    for (const [body, path] of cases) {
      const res = await api.call("PATCH", "/api/settings", { requireClientKey: false, ...body });
      expect(res.status, path).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
      expect(res.body.error.path, path).toBe(path);
    }
    expect((await api.call("GET", "/api/settings")).body).toEqual(before);
  });

  it("R10.1 the settings normaliser tolerates stale documents: clamps, drops invalid entries, reports them", () => {
    const { settings, adjusted } = normaliseAppSettingsWithReport({
      maxBodyMb: 0,
      requestLogRetention: 5,
      requireClientKey: "true",
      providerErrorRules: [{ provider: "p", status: 429 }, { provider: "p" }, { provider: "p", match: "x", cooldownMs: -1 }],
      providerErrorDefaults: { ok: { cooldownMs: 120_000 }, bad: { cooldownMs: 1 } },
      aliases: { a: "p/m", b: 3 },
    });
    expect(settings).toMatchObject({
      maxBodyMb: 1,
      requestLogRetention: 100,
      requireClientKey: false,
      providerErrorRules: [{ provider: "p", status: 429, scope: "connection" }],
      providerErrorDefaults: { ok: { cooldownMs: 120_000 } },
      aliases: { a: "p/m" },
      sessionAffinityTtlMs: DEFAULT_APP_SETTINGS.sessionAffinityTtlMs,
    });
    expect(adjusted.sort()).toEqual([
      "aliases.b",
      "maxBodyMb",
      "providerErrorDefaults.bad",
      "providerErrorRules.1",
      "providerErrorRules.2",
      "requestLogRetention",
      "requireClientKey",
    ]);
  });
});

describe("request log API", () => {
  let api: ApiServer;

  function entry(i: number, provider: string): RequestLogEntry {
    return {
      id: `req-${i}`,
      time: 1_700_000_000_000 + i * 1000,
      clientFormat: "openai",
      model: `${provider}/m1`,
      combo: null,
      provider,
      connectionId: null,
      status: i % 2 ? 200 : 429,
      errorCode: null,
      latencyMs: 10 + i,
      ttfbMs: 5,
      stream: false,
      inputTokens: 1,
      outputTokens: 2,
      attempts: [],
    };
  }

  beforeAll(async () => {
    api = await startApiServer();
    for (let i = 0; i < 6; i += 1) api.store.logs.append(entry(i, i < 4 ? "a" : "b"));
  });
  afterAll(async () => {
    await api.close();
  });

  it("R15.1 GET /api/logs?limit=&provider= returns entries newest first, including ones not yet flushed", async () => {
    const all = await api.call("GET", "/api/logs");
    expect(all.status).toBe(200);
    expect(all.body.map((e: RequestLogEntry) => e.id)).toEqual(["req-5", "req-4", "req-3", "req-2", "req-1", "req-0"]);
    const limited = await api.call("GET", "/api/logs?limit=2&provider=a");
    expect(limited.body.map((e: RequestLogEntry) => e.id)).toEqual(["req-3", "req-2"]);
    const bad = await api.call("GET", "/api/logs?limit=zero");
    expect(bad.status).toBe(400);
    expect(bad.body.error.path).toBe("limit");
  });

  it("R15.1 GET /api/logs?combo= returns only the requests that named that combo (the combo page's traffic)", async () => {
    api.store.logs.append({ ...entry(10, "a"), id: "combo-1", model: "duo", combo: "duo" });
    api.store.logs.append({ ...entry(11, "b"), id: "other-1", model: "solo", combo: "solo" });
    api.store.logs.append({ ...entry(12, "b"), id: "combo-2", model: "duo", combo: "duo" });
    const duo = await api.call("GET", "/api/logs?combo=duo&limit=50");
    expect(duo.status).toBe(200);
    expect(duo.body.map((e: RequestLogEntry) => e.id)).toEqual(["combo-2", "combo-1"]);
    expect((await api.call("GET", "/api/logs?combo=none")).body).toEqual([]);
    expect((await api.call("GET", "/api/logs?combo=")).status).toBe(400);
  });
});
