import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openHarness, type StoreHarness } from "./storeFixture.js";

describe("settings documents", () => {
  let h: StoreHarness;
  beforeEach(() => {
    h = openHarness();
  });
  afterEach(() => h.cleanup());

  it("R10.2 persists JSON documents by key across a reopen", () => {
    const settings = { requireClientKey: true, aliases: { fast: "openai/gpt-x" }, emergencyFallback: { enabled: false, model: null } };
    const resilience = { connectionCooldown: { apikey: { baseMs: 3000 } }, list: [1, 2, 3] };
    h.store.settings.setDocument("settings", settings);
    h.store.settings.setDocument("resilience", resilience);
    const reopened = h.reopen();
    expect(reopened.settings.getDocument("settings")).toEqual(settings);
    expect(reopened.settings.getDocument<typeof resilience>("resilience")).toEqual(resilience);
  });

  it("R10.2 a missing document reads as null and a write replaces the whole document", () => {
    expect(h.store.settings.getDocument("settings")).toBeNull();
    h.store.settings.setDocument("settings", { a: 1, b: 2 });
    h.store.settings.setDocument("settings", { b: 3 });
    expect(h.store.settings.getDocument("settings")).toEqual({ b: 3 });
    h.store.settings.setDocument("settings", undefined);
    expect(h.store.settings.getDocument("settings")).toBeNull();
  });
});
