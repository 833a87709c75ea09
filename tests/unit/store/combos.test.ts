import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StoreConflictError } from "../../../main/store/index.js";
import { openHarness, type StoreHarness } from "./storeFixture.js";

describe("combo repository", () => {
  let h: StoreHarness;
  beforeEach(() => {
    h = openHarness();
  });
  afterEach(() => h.cleanup());

  const input = {
    name: "smart",
    strategy: "priority",
    targets: [{ model: "openai/gpt-x" }, { model: "anth/claude", connectionId: "c2", weight: 2 }],
    config: { comboCooldownWaitEnabled: false, targetTimeoutMs: 30_000 },
  };

  it("R11.1 creates a combo with ordered targets and reads it back after a reopen", () => {
    const created = h.store.combos.create(input);
    expect(created).toEqual({ ...input, createdAt: h.clock.t, updatedAt: h.clock.t });
    expect(h.reopen().combos.get("smart")).toEqual(created);
    expect(h.store.combos.list()).toEqual([created]);
    expect(h.store.combos.get("missing")).toBeNull();
  });

  it("R11.1 defaults an absent config to an empty document", () => {
    const created = h.store.combos.create({ name: "bare", strategy: "round-robin", targets: [] } as never);
    expect(created.config).toEqual({});
    expect(h.store.combos.get("bare")?.config).toEqual({});
  });

  it("R11.1 updates a combo partially without renaming it", () => {
    const created = h.store.combos.create(input);
    h.clock.advance(42);
    const updated = h.store.combos.update("smart", { strategy: "weighted", name: "other" } as never);
    expect(updated).toEqual({ ...created, strategy: "weighted", updatedAt: created.createdAt + 42 });
    expect(h.store.combos.get("smart")).toEqual(updated);
    expect(h.store.combos.get("other")).toBeNull();
    expect(h.store.combos.update("missing", { strategy: "x" })).toBeNull();
  });

  it("R11.1 refuses a duplicate combo name and deletes by name", () => {
    h.store.combos.create(input);
    expect(() => h.store.combos.create(input)).toThrow(StoreConflictError);
    expect(h.store.combos.delete("smart")).toBe(true);
    expect(h.store.combos.delete("smart")).toBe(false);
    expect(h.store.combos.list()).toEqual([]);
  });
});
