// R10.1 / R5.1 / D5: what the settings cards send, and how they report the normaliser's changes.
import { describe, expect, it } from "vitest";
import { DEFAULT_RESILIENCE_SETTINGS } from "../../../shared/resilienceSettings.js";
import { normalizeResilienceSettings } from "../../../shared/schemas/resilienceDocument.js";
import { adjustments, buildPatch, describeValue, getAt, isBuiltInDefault, parseDraft, rangeHint, toDraft, valueSource } from "../../../renderer/src/settingsForm.js";

describe("settings form rules", () => {
  it("R10.1 turns edited paths into one nested partial document", () => {
    expect(buildPatch({ "modelLockout.baseCooldownMs": 1, "modelLockout.enabled": true, "p2cLatency.weight": 3 })).toEqual({
      modelLockout: { baseCooldownMs: 1, enabled: true },
      p2cLatency: { weight: 3 },
    });
    expect(buildPatch({ "providerBreaker.local.degradationThreshold": null })).toEqual({ providerBreaker: { local: { degradationThreshold: null } } });
  });

  it("R10.1 parses what was typed; ranges are left to the server", () => {
    expect(parseDraft("1", "ms")).toEqual({ ok: true, value: 1 });
    expect(parseDraft(" 2.5 ", "number")).toEqual({ ok: true, value: 2.5 });
    expect(parseDraft("", "int")).toEqual({ ok: false, error: "enter a number" });
    expect(parseDraft("abc", "ms")).toEqual({ ok: false, error: "enter a number" });
    expect(parseDraft("", "nullableInt")).toEqual({ ok: true, value: null });
    expect(parseDraft(true, "bool")).toEqual({ ok: true, value: true });
    expect(parseDraft("429, 503;700 404", "codes")).toEqual({ ok: true, value: [429, 503, 700, 404] });
    expect(parseDraft("429, x", "codes")).toEqual({ ok: false, error: '"x" is not a status code' });
    expect(toDraft([403, 404], "codes")).toBe("403, 404");
    expect(toDraft(null, "nullableInt")).toBe("");
    expect(toDraft(true, "bool")).toBe(true);
  });

  it("D5 shows each field's documented range", () => {
    expect(rangeHint({ path: "modelLockout.baseCooldownMs", label: "", kind: "ms" })).toBe("5,000–600,000 ms");
    expect(rangeHint({ path: "streamRecovery.contentStallTimeoutMs", label: "", kind: "ms" })).toBe("0 (off) or 1,000–3,600,000 ms");
    expect(rangeHint({ path: "p2cLatency.weight", label: "", kind: "number" })).toBe("0–20");
    expect(rangeHint({ path: "modelLockout.enabled", label: "", kind: "bool" })).toBeUndefined();
  });

  it("R10.1 reports every sent field the normaliser changed, and cross-field changes of the form", () => {
    const before = normalizeResilienceSettings({}, {}).settings;
    const sent = { "modelLockout.baseCooldownMs": 900_000, "modelLockout.maxBackoffSteps": 99, "modelLockout.enabled": true };
    const after = normalizeResilienceSettings(buildPatch(sent), {}).settings;
    const paths = ["modelLockout.enabled", "modelLockout.baseCooldownMs", "modelLockout.maxCooldownMs", "modelLockout.maxBackoffSteps"];
    expect(adjustments(sent, before, after, paths)).toEqual([
      { path: "modelLockout.baseCooldownMs", sent: 900_000, saved: 600_000 },
      { path: "modelLockout.maxBackoffSteps", sent: 99, saved: 20 },
    ]);
    const raised = normalizeResilienceSettings(buildPatch({ "modelLockout.baseCooldownMs": 600_000, "modelLockout.maxCooldownMs": 10_000 }), {}).settings;
    expect(adjustments({ "modelLockout.baseCooldownMs": 600_000 }, before, raised, paths)).toEqual([{ path: "modelLockout.maxCooldownMs", sent: undefined, saved: 600_000 }]);
    expect(adjustments({ "p2cLatency.weight": null }, before, before, [])).toEqual([]);
  });

  it("R10.2 tells a built-in default from a custom value", () => {
    expect(isBuiltInDefault("modelLockout.baseCooldownMs", 120_000)).toBe(true);
    expect(isBuiltInDefault("modelLockout.baseCooldownMs", 5_000)).toBe(false);
    expect(isBuiltInDefault("modelLockout.errorCodes", [403, 404, 429, 502, 503, 504])).toBe(true);
    expect(getAt({ a: { b: 1 } }, "a.b")).toBe(1);
    expect(getAt({ a: 1 }, "a.b.c")).toBeUndefined();
  });

  it("R10.1 describes values the way the user reads them", () => {
    expect(describeValue(5_000, "ms")).toBe("5,000 ms (5 s)");
    expect(describeValue(50, "ms")).toBe("50 ms");
    expect(describeValue(20, "int")).toBe("20");
    expect(describeValue([429, 503], "codes")).toBe("429, 503");
    expect(describeValue(null, "nullableInt")).toBe("derived");
  });
});

describe("valueSource (R10.2 env-vs-saved precedence shown per field)", () => {
  const envDefaults = structuredClone(DEFAULT_RESILIENCE_SETTINGS);
  envDefaults.streamRecovery.contentStallTimeoutMs = 45_000;

  it("R10.2 a field present in the saved document is `saved`, whatever the env says", () => {
    const sources = { stored: { streamRecovery: { contentStallTimeoutMs: 9_000 } }, envDefaults };
    expect(valueSource("streamRecovery.contentStallTimeoutMs", sources, 9_000)).toBe("saved");
  });

  it("R10.2 an unsaved field whose env-seeded default differs from the built-in one is `env`", () => {
    expect(valueSource("streamRecovery.contentStallTimeoutMs", { stored: {}, envDefaults }, 45_000)).toBe("env");
  });

  it("R10.2 an unsaved field with the built-in default is `default`", () => {
    expect(valueSource("p2cLatency.weight", { stored: {}, envDefaults }, 0)).toBe("default");
  });
});
