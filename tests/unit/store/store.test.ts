import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { connectionInput, openHarness, providerInput, type StoreHarness } from "./storeFixture.js";

describe("store", () => {
  let h: StoreHarness;
  beforeEach(() => {
    h = openHarness();
  });
  afterEach(() => h.cleanup());

  it("R0.4 transaction commits all writes together", () => {
    const result = h.store.transaction(() => {
      h.store.providers.create(providerInput("p1"));
      h.store.connections.create(connectionInput("c1", "p1"), "k");
      return "done";
    });
    expect(result).toBe("done");
    expect(h.reopen().connections.getSecret("c1")).toBe("k");
  });

  it("R0.4 transaction rolls every write back when the function throws", () => {
    expect(() =>
      h.store.transaction(() => {
        h.store.providers.create(providerInput("p1"));
        h.store.combos.create({ name: "c", strategy: "priority", targets: [], config: {} });
        throw new Error("import failed halfway");
      }),
    ).toThrow("import failed halfway");
    expect(h.store.providers.list()).toEqual([]);
    expect(h.store.combos.list()).toEqual([]);
  });

  it("R0.3 close is idempotent", () => {
    h.store.close();
    expect(() => h.store.close()).not.toThrow();
  });
});
