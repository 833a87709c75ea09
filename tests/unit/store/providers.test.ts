import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StoreConflictError } from "../../../main/store/index.js";
import { connectionInput, openHarness, providerInput, type StoreHarness } from "./storeFixture.js";

describe("provider repository", () => {
  let h: StoreHarness;
  beforeEach(() => {
    h = openHarness();
  });
  afterEach(() => h.cleanup());

  it("R0.4 creates a provider with defaults and clock timestamps, and reads it back", () => {
    const created = h.store.providers.create({
      id: "sim",
      format: "simulator",
      baseUrl: "http://127.0.0.1:1",
      category: "local",
    } as Parameters<typeof h.store.providers.create>[0]);
    expect(created).toEqual({
      id: "sim",
      format: "simulator",
      baseUrl: "http://127.0.0.1:1",
      category: "local",
      models: [],
      quotaFamilies: {},
      passthroughModels: false,
      rateLimitCooldownSeconds: null,
      priority: 0,
      // R8.1: no provider gate unless one is set.
      maxConcurrent: null,
      options: {},
      createdAt: h.clock.t,
      updatedAt: h.clock.t,
    });
    expect(h.store.providers.get("sim")).toEqual(created);
    expect(h.store.providers.get("missing")).toBeNull();
  });

  it("R0.4 round-trips every provider field, JSON and booleans included, across a reopen", () => {
    const input = providerInput("anth", {
      format: "anthropic",
      category: "oauth",
      models: ["claude-a", "claude-b"],
      quotaFamilies: { opus: ["claude-opus"] },
      passthroughModels: true,
      rateLimitCooldownSeconds: 120,
      options: { headers: { "x-extra": "1" }, faults: [{ status: 429 }] },
    });
    const created = h.store.providers.create(input);
    expect(created).toMatchObject(input);
    const reopened = h.reopen();
    expect(reopened.providers.get("anth")).toEqual(created);
    expect(reopened.providers.list()).toEqual([created]);
  });

  it("R0.4 updates only the given fields, keeps the id and stamps updatedAt", () => {
    const created = h.store.providers.create(providerInput("p1", { models: ["m1"] }));
    h.clock.advance(1_000);
    const updated = h.store.providers.update("p1", {
      id: "renamed",
      baseUrl: "https://new.example.test",
      passthroughModels: true,
      models: undefined,
    });
    expect(updated).toEqual({
      ...created,
      baseUrl: "https://new.example.test",
      passthroughModels: true,
      updatedAt: created.createdAt + 1_000,
    });
    expect(h.store.providers.get("p1")).toEqual(updated);
    expect(h.store.providers.get("renamed")).toBeNull();
    expect(h.store.providers.update("missing", { baseUrl: "x" })).toBeNull();
  });

  it("R0.4 lists providers in creation order", () => {
    h.store.providers.create(providerInput("b"));
    h.clock.advance(1);
    h.store.providers.create(providerInput("a"));
    expect(h.store.providers.list().map((p) => p.id)).toEqual(["b", "a"]);
  });

  it("R0.4 refuses a duplicate provider id with a typed conflict", () => {
    h.store.providers.create(providerInput("dup"));
    expect(() => h.store.providers.create(providerInput("dup"))).toThrow(StoreConflictError);
    try {
      h.store.providers.create(providerInput("dup"));
    } catch (err) {
      expect((err as StoreConflictError).code).toBe("conflict");
    }
  });

  it("R2.5 deleting a provider cascades to its connections, pins and breaker row only", () => {
    const s = h.store;
    s.providers.create(providerInput("gone"));
    s.providers.create(providerInput("kept"));
    s.connections.create(connectionInput("c-gone-1", "gone"), "secret-1");
    s.connections.create(connectionInput("c-gone-2", "gone"));
    s.connections.create(connectionInput("c-kept", "kept"));
    const snapshot = {
      state: "OPEN" as const,
      failureCount: 5,
      successCount: 0,
      openedAt: 1,
      openUntil: 2,
      openCycles: 1,
      lastFailureAt: 1,
      lastFailureKind: "server_error",
      probeStartedAt: null,
      updatedAt: 1,
    };
    s.breakers.save({ provider: "gone", ...snapshot });
    s.breakers.save({ provider: "kept", ...snapshot });

    expect(s.providers.delete("gone")).toBe(true);
    expect(s.providers.delete("gone")).toBe(false);
    expect(s.providers.get("gone")).toBeNull();
    expect(s.connections.list().map((c) => c.id)).toEqual(["c-kept"]);
    expect(s.connections.get("c-gone-1")).toBeNull();
    expect(s.breakers.loadAll().map((b) => b.provider)).toEqual(["kept"]);
  });
});
