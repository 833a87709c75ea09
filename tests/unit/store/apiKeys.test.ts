import { createHash } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openHarness, type StoreHarness } from "./storeFixture.js";

describe("api key repository", () => {
  let h: StoreHarness;
  beforeEach(() => {
    h = openHarness();
  });
  afterEach(() => h.cleanup());

  const request = { name: "laptop", scopes: ["inference", "lease:exclusive"], allowedConnections: ["c1"] };

  it("R1.7 issues sk-sy- keys with a key_ id and a 10-character prefix", () => {
    const { info, key } = h.store.apiKeys.create(request);
    expect(key).toMatch(/^sk-sy-[A-Za-z0-9_-]{32}$/);
    expect(info.id).toMatch(/^key_[A-Za-z0-9_-]{12}$/);
    expect(info).toEqual({
      id: info.id,
      name: "laptop",
      prefix: key.slice(0, 10),
      scopes: ["inference", "lease:exclusive"],
      allowedConnections: ["c1"],
      createdAt: h.clock.t,
      lastUsedAt: null,
      budget: null,
    });
    const second = h.store.apiKeys.create(request);
    expect(second.key).not.toBe(key);
    expect(second.info.id).not.toBe(info.id);
  });

  it("R1.7 stores only the SHA-256 of a key, never the key itself", () => {
    const { info, key } = h.store.apiKeys.create(request);
    const row = h.raw().prepare("SELECT * FROM api_keys WHERE id = ?").get(info.id) as Record<string, unknown>;
    expect(row.key_hash).toBe(createHash("sha256").update(key).digest("hex"));
    expect(JSON.stringify(row)).not.toContain(key);
    expect(JSON.stringify(h.store.apiKeys.list())).not.toContain(key);
  });

  it("R1.7 verifies a presented key by hash and records when it was last used", () => {
    const { info, key } = h.store.apiKeys.create(request);
    h.clock.advance(5_000);
    const verified = h.store.apiKeys.verify(key);
    expect(verified).toEqual({ ...info, lastUsedAt: info.createdAt + 5_000 });
    expect(h.reopen().apiKeys.list()).toEqual([verified]);
    expect(h.store.apiKeys.verify(key + "x")).toBeNull();
    expect(h.store.apiKeys.verify("sk-sy-" + "A".repeat(32))).toBeNull();
  });

  it("R1.7 a deleted key no longer verifies", () => {
    const { info, key } = h.store.apiKeys.create(request);
    expect(h.store.apiKeys.delete(info.id)).toBe(true);
    expect(h.store.apiKeys.delete(info.id)).toBe(false);
    expect(h.store.apiKeys.verify(key)).toBeNull();
    expect(h.store.apiKeys.list()).toEqual([]);
  });
});
