import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { BreakerSnapshot } from "../../../main/engine/ports.js";
import { openHarness, type StoreHarness } from "./storeFixture.js";

const open: BreakerSnapshot = {
  provider: "openai",
  state: "OPEN",
  failureCount: 5,
  successCount: 0,
  openedAt: 1_700_000_000_000,
  openUntil: 1_700_000_030_000,
  openCycles: 2,
  cyclesByKind: "server_error=2",
  lastFailureAt: 1_700_000_000_000,
  lastFailureKind: "server_error",
  probeStartedAt: null,
  updatedAt: 1_700_000_000_000,
};

describe("breaker snapshot persistence", () => {
  let h: StoreHarness;
  beforeEach(() => {
    h = openHarness();
  });
  afterEach(() => h.cleanup());

  it("R2.5 a saved breaker survives closing and reopening the same file", () => {
    h.store.breakers.save(open);
    expect(h.reopen().breakers.loadAll()).toEqual([open]);
  });

  it("R2.5 saving again replaces the provider's single row", () => {
    h.store.breakers.save(open);
    const halfOpen: BreakerSnapshot = {
      ...open,
      state: "HALF_OPEN",
      probeStartedAt: 1_700_000_031_000,
      updatedAt: 1_700_000_031_000,
    };
    h.store.breakers.save(halfOpen);
    const closed: BreakerSnapshot = {
      provider: "anth",
      state: "CLOSED",
      failureCount: 0,
      successCount: 3,
      openedAt: null,
      openUntil: null,
      openCycles: 0,
      cyclesByKind: "",
      lastFailureAt: null,
      lastFailureKind: null,
      probeStartedAt: null,
      updatedAt: 5,
    };
    h.store.breakers.save(closed);
    expect(h.reopen().breakers.loadAll()).toEqual([closed, halfOpen]);
  });

  it("R2.5 deletes one provider's breaker", () => {
    h.store.breakers.save(open);
    h.store.breakers.save({ ...open, provider: "other" });
    h.store.breakers.delete("openai");
    h.store.breakers.delete("never-saved");
    expect(h.store.breakers.loadAll().map((b) => b.provider)).toEqual(["other"]);
  });
});
