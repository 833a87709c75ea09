import { describe, expect, it } from "vitest";
import { connection, fail, harness, provider, T0 } from "./fixtures.js";

const rows = () => [
  connection({ id: "healthy", name: "Healthy" }),
  connection({ id: "cooling", name: "Cooling", priority: 1 }),
  connection({ id: "locked", name: "Locked" }),
  connection({ id: "dead", name: "Dead", testStatus: "banned", rateLimitedUntil: T0 + 60_000 }),
  connection({ id: "marked", name: "Marked", testStatus: "unavailable", rateLimitedUntil: null }),
  connection({ id: "lapsed", name: "Lapsed", testStatus: "unavailable", rateLimitedUntil: T0 - 1, backoffLevel: 2 }),
  connection({ id: "other", provider: "q", name: "Other" }),
];

function setup() {
  const h = harness({ connections: rows(), settings: { modelLockout: { enabled: true, errorCodes: [404] } } });
  fail(h, { status: 503 }, { connectionId: "cooling" });
  fail(h, { status: 404, model: "m1" }, { connectionId: "locked" });
  fail(h, { status: 503, provider: provider({ id: "q" }) }, { connectionId: "other", provider: provider({ id: "q" }) });
  return h;
}

describe("GET /api/resilience/cooldowns (R6.1, D6)", () => {
  it("D6 lists only non-healthy rows with status priority terminal > cooling_down > model_locked > unavailable", () => {
    const h = setup();
    fail(h, { status: 404, model: "m2" }, { connectionId: "cooling" });
    const { items } = h.engine.listCooldowns([provider(), provider({ id: "q" })], h.store.list());
    expect(items.map((i) => [i.connectionId, i.status])).toEqual([
      ["locked", "model_locked"],
      ["dead", "terminal"],
      ["marked", "unavailable"],
      ["cooling", "cooling_down"],
      ["other", "cooling_down"],
    ]);
  });

  it("R6.1 a row carries status, remaining cooldown, backoff level, last error type and its lockouts, never a credential", () => {
    const h = setup();
    h.clock.advance(1_000);
    const { items } = h.engine.listCooldowns([provider()], h.store.list(), { provider: "p" });
    expect(items.find((i) => i.connectionId === "cooling")).toEqual({
      connectionId: "cooling",
      provider: "p",
      name: "Cooling",
      status: "cooling_down",
      testStatus: "unavailable",
      remainingMs: 2_000,
      rateLimitedUntil: T0 + 3_000,
      backoffLevel: 1,
      lastErrorType: "server_error",
      lockouts: [],
      slowLaneUntil: null,
    });
    expect(items.find((i) => i.connectionId === "locked")).toMatchObject({
      status: "model_locked",
      remainingMs: 119_000,
      lockouts: [{ model: "m1", reason: "not_found", remainingMs: 119_000 }],
    });
    expect(items.find((i) => i.connectionId === "dead")).toMatchObject({ status: "terminal", remainingMs: null, testStatus: "banned" });
    expect(JSON.stringify(items)).not.toMatch(/secret|apiKey|hasSecret/i);
    expect(items.every((i) => i.provider === "p")).toBe(true);
  });

  it("R12.6 an otherwise healthy connection in the usage wall's slow lane is listed as slow_lane, until when", () => {
    const h = setup();
    h.engine.usageWall.enterLane("lapsed", T0 + 3_600_000, T0);
    const row = h.engine.listCooldowns([provider()], h.store.list()).items.find((i) => i.connectionId === "lapsed");
    expect(row).toMatchObject({ status: "slow_lane", slowLaneUntil: T0 + 3_660_000, remainingMs: 3_660_000 });
    const cooling = h.engine.listCooldowns([provider()], h.store.list()).items.find((i) => i.connectionId === "cooling");
    expect(cooling?.status).toBe("cooling_down");
  });

  it("R4.9 a lapsed cooldown is healthy again and not listed", () => {
    const h = setup();
    expect(h.engine.listCooldowns([provider()], h.store.list()).items.map((i) => i.connectionId)).not.toContain("lapsed");
  });
});

describe("POST /api/resilience/cooldowns (R6.2, D6)", () => {
  it("R6.2 {connectionIds} clears the listed rows; terminal is skipped, unknown and healthy are unchanged", () => {
    const h = setup();
    const result = h.engine.clearCooldowns({ connectionIds: ["cooling", "locked", "dead", "healthy", "missing", "marked"] }, h.store.list());
    expect(result).toEqual({ ok: true, cleared: 3, unchanged: 2, skippedTerminal: 1, lockoutsCleared: 1 });
    expect(h.store.row("cooling")).toMatchObject({ testStatus: "active", rateLimitedUntil: null, backoffLevel: 0 });
    expect(h.store.row("marked").testStatus).toBe("active");
    expect(h.store.row("dead").testStatus).toBe("banned");
    expect(h.engine.listModelCooldowns().items).toEqual([]);
    expect(h.events).toContainEqual(expect.objectContaining({ type: "cooldown.cleared", connectionId: "cooling" }));
    expect(h.events).toContainEqual(expect.objectContaining({ type: "lockout.cleared", connectionId: "locked", model: "m1" }));
  });

  it("R6.2 {all:true, provider} clears one provider's rows; a lapsed row with backoff is reset too", () => {
    const h = setup();
    const result = h.engine.clearCooldowns({ all: true, provider: "p" }, h.store.list());
    expect(result).toEqual({ ok: true, cleared: 4, unchanged: 1, skippedTerminal: 1, lockoutsCleared: 1 });
    expect(h.store.row("lapsed")).toMatchObject({ testStatus: "active", backoffLevel: 0 });
    expect(h.store.row("other").rateLimitedUntil).not.toBeNull();
  });

  it("R6.2 {all:true} clears every provider; terminal states are listed but never cleared", () => {
    const h = setup();
    const result = h.engine.clearCooldowns({ all: true }, h.store.list());
    expect(result.skippedTerminal).toBe(1);
    expect(h.engine.listCooldowns([provider(), provider({ id: "q" })], h.store.list()).items.map((i) => i.connectionId)).toEqual(["dead"]);
  });

  it("R6.2 after clearing, the connection is eligible again", () => {
    const h = setup();
    h.engine.clearCooldowns({ connectionIds: ["cooling"] }, h.store.list());
    expect(h.engine.selectConnections(provider(), "m", [h.store.row("cooling")]).eligible).toHaveLength(1);
  });
});
