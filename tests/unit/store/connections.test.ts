import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ConnectionRuntime } from "../../../shared/types.js";
import { StoreConflictError, StoreReferenceError } from "../../../main/store/index.js";
import { connectionInput, openHarness, providerInput, type StoreHarness } from "./storeFixture.js";

const PLAIN_SECRET = "sk-upstream-PLAINTEXT-do-not-store-1234567890";

const TERMINAL_RUNTIME: ConnectionRuntime = {
  testStatus: "banned",
  rateLimitedUntil: 1_700_000_999_000,
  backoffLevel: 4,
  lastError: "account suspended",
  lastErrorType: "banned",
  errorCode: "account_banned",
  lastErrorAt: 1_700_000_000_500,
  authFailureCount: 2,
};

describe("connection repository", () => {
  let h: StoreHarness;
  beforeEach(() => {
    h = openHarness();
    h.store.providers.create(providerInput("openai"));
    h.store.providers.create(providerInput("other"));
  });
  afterEach(() => h.cleanup());

  it("R4.1 creates a connection with config defaults and a clean runtime state", () => {
    const created = h.store.connections.create({ id: "c1", provider: "openai" } as Parameters<typeof h.store.connections.create>[0]);
    expect(created).toEqual({
      id: "c1",
      provider: "openai",
      name: "c1",
      priority: 0,
      weight: 1,
      active: true,
      hasSecret: false,
      maxConcurrent: null,
      rateLimitOverrides: {},
      rateLimitProtection: null,
      providerSpecificData: {},
      disableCooling: false,
      subscription: false,
      budget: null,
      credential: "key",
      accountOf: null,
      testStatus: "active",
      rateLimitedUntil: null,
      backoffLevel: 0,
      lastError: null,
      lastErrorType: null,
      errorCode: null,
      lastErrorAt: null,
      authFailureCount: 0,
      createdAt: h.clock.t,
      updatedAt: h.clock.t,
    });
    expect(h.store.connections.get("c1")).toEqual(created);
    expect(h.store.connections.getSecret("c1")).toBeNull();
  });

  it("R4.1 round-trips every config field across a reopen", () => {
    const input = connectionInput("c1", "openai", {
      name: "Team key",
      priority: 3,
      weight: 2.5,
      active: false,
      maxConcurrent: 4,
      rateLimitOverrides: { maxConcurrent: 2, modelConcurrency: { "gpt-x": 1 }, maxWaitMs: 500 },
      providerSpecificData: { rotationOverrides: { rateLimitResetSeconds: 30 }, lowPriorityMode: true },
      disableCooling: true,
    });
    const created = h.store.connections.create(input, PLAIN_SECRET);
    const { id: _id, ...config } = input;
    expect(created).toMatchObject({ ...config, id: "c1", hasSecret: true });
    expect(h.reopen().connections.get("c1")).toEqual(created);
    expect(h.store.connections.getSecret("c1")).toBe(PLAIN_SECRET);
  });

  it("R0.3 keeps the secret encrypted at rest and out of every listed connection", () => {
    h.store.connections.create(connectionInput("c1", "openai"), PLAIN_SECRET);
    const row = h.raw().prepare("SELECT * FROM connections WHERE id = 'c1'").get() as Record<string, unknown>;
    expect(typeof row.secret).toBe("string");
    expect(row.secret).toMatch(/^v1:/);
    expect(JSON.stringify(row)).not.toContain(PLAIN_SECRET);
    expect(JSON.stringify(h.store.connections.list())).not.toContain(PLAIN_SECRET);
    expect(h.store.connections.get("c1")).not.toHaveProperty("secret");
    expect(h.store.connections.getSecret("c1")).toBe(PLAIN_SECRET);
  });

  it("R4.1 lists by priority ascending, then creation time, optionally for one provider", () => {
    const s = h.store.connections;
    s.create(connectionInput("late-p0", "openai", { priority: 0 }));
    h.clock.advance(10);
    s.create(connectionInput("p-1", "openai", { priority: -1 }));
    s.create(connectionInput("p5", "openai", { priority: 5 }));
    h.clock.advance(10);
    s.create(connectionInput("later-p0", "openai", { priority: 0 }));
    s.create(connectionInput("elsewhere", "other", { priority: -10 }));
    expect(s.list({ provider: "openai" }).map((c) => c.id)).toEqual(["p-1", "late-p0", "later-p0", "p5"]);
    expect(s.list().map((c) => c.id)).toEqual(["elsewhere", "p-1", "late-p0", "later-p0", "p5"]);
    expect(s.list({ provider: "nobody" })).toEqual([]);
  });

  it("R4.1 updates config partially and keeps, removes or replaces the secret on request", () => {
    const s = h.store.connections;
    const created = s.create(connectionInput("c1", "openai", { weight: 3 }), PLAIN_SECRET);
    h.clock.advance(5);
    const renamed = s.update("c1", { name: "renamed", maxConcurrent: 2, weight: undefined });
    expect(renamed).toEqual({ ...created, name: "renamed", maxConcurrent: 2, updatedAt: created.createdAt + 5 });
    expect(s.getSecret("c1")).toBe(PLAIN_SECRET);

    expect(s.update("c1", {}, "replacement")?.hasSecret).toBe(true);
    expect(s.getSecret("c1")).toBe("replacement");
    expect(s.update("c1", {}, null)?.hasSecret).toBe(false);
    expect(s.getSecret("c1")).toBeNull();

    expect(s.update("missing", { name: "x" })).toBeNull();
  });

  it("R4.1 updateRuntime writes only the runtime fields given and persists them", () => {
    const s = h.store.connections;
    const created = s.create(connectionInput("c1", "openai"), PLAIN_SECRET);
    h.clock.advance(1_000);
    s.updateRuntime("c1", { rateLimitedUntil: 1_700_000_060_000, backoffLevel: 2, lastError: "429" });
    s.updateRuntime("c1", { lastErrorType: "rate_limit", lastError: undefined });
    const after = h.reopen().connections.get("c1");
    expect(after).toEqual({
      ...created,
      rateLimitedUntil: 1_700_000_060_000,
      backoffLevel: 2,
      lastError: "429",
      lastErrorType: "rate_limit",
    });

    h.store.connections.updateRuntime("c1", { rateLimitedUntil: null, lastError: null });
    expect(h.store.connections.get("c1")).toMatchObject({ rateLimitedUntil: null, lastError: null, backoffLevel: 2 });
    expect(() => h.store.connections.updateRuntime("missing", { backoffLevel: 1 })).not.toThrow();
  });

  it("R4.6 a new secret clears a terminal state, errors and backoff; a config edit does not", () => {
    const s = h.store.connections;
    s.create(connectionInput("c1", "openai"), "old-key");
    s.updateRuntime("c1", TERMINAL_RUNTIME);

    expect(s.update("c1", { name: "still banned" })).toMatchObject(TERMINAL_RUNTIME);
    expect(s.update("c1", {}, null)).toMatchObject({ testStatus: "banned" });

    expect(s.update("c1", {}, "new-key")).toMatchObject({
      testStatus: "active",
      rateLimitedUntil: null,
      backoffLevel: 0,
      lastError: null,
      lastErrorType: null,
      errorCode: null,
      lastErrorAt: null,
      authFailureCount: 0,
      hasSecret: true,
    });
  });

  it("R9.5 setRateLimitProtection is the only writer of rateLimitProtection", () => {
    const s = h.store.connections;
    s.create(connectionInput("c1", "openai"));
    h.clock.advance(7);
    expect(s.setRateLimitProtection("c1", true)).toMatchObject({ rateLimitProtection: true, updatedAt: h.clock.t });
    s.update("c1", { rateLimitProtection: false, name: "n" } as never);
    expect(s.get("c1")?.rateLimitProtection).toBe(true);
    expect(s.setRateLimitProtection("c1", false)?.rateLimitProtection).toBe(false);
    expect(s.setRateLimitProtection("c1", null)?.rateLimitProtection).toBeNull();
    expect(s.setRateLimitProtection("missing", true)).toBeNull();
  });

  it("R4.1 refuses duplicate ids and unknown providers with typed errors", () => {
    const s = h.store.connections;
    s.create(connectionInput("c1", "openai"));
    expect(() => s.create(connectionInput("c1", "openai"))).toThrow(StoreConflictError);
    let caught: unknown;
    try {
      s.create(connectionInput("c2", "nope"));
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(StoreReferenceError);
    expect((caught as StoreReferenceError).code).toBe("unknown_provider");
    expect(s.get("c2")).toBeNull();
  });

  it("R4.1 deletes a connection and its secret", () => {
    const s = h.store.connections;
    s.create(connectionInput("c1", "openai"), PLAIN_SECRET);
    expect(s.delete("c1")).toBe(true);
    expect(s.delete("c1")).toBe(false);
    expect(s.get("c1")).toBeNull();
    expect(s.getSecret("c1")).toBeNull();
  });

  it("store: deleting a connection removes its rows in session_account_affinity", () => {
    h.store.connections.create(connectionInput("c1", "openai"));
    h.store.connections.create(connectionInput("c2", "openai"));
    const writer = new Database(h.dbPath);
    const pin = writer.prepare("INSERT INTO session_account_affinity (session_key, provider, connection_id, expires_at) VALUES (?, 'openai', ?, 1)");
    pin.run("s1", "c1");
    pin.run("s2", "c2");
    writer.close();
    h.store.connections.delete("c1");
    const left = h.raw().prepare("SELECT session_key FROM session_account_affinity").all();
    expect(left).toEqual([{ session_key: "s2" }]);
  });
});
