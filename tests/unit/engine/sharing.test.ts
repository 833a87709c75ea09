// R19: the engine's side of group sharing, still pure: what it hands to its `share` port, and how
// it applies what the group says (announced on its bus, never handed back).
import { answerReader } from "../../../main/gateway/formats/answerReader.js";
import { describe, expect, it } from "vitest";
import type { SwitchyardEvent } from "../../../shared/types.js";
import { createResilienceEngine } from "../../../main/engine/index.js";
import type { BreakerSnapshot, EngineSharedChange } from "../../../main/engine/ports.js";
import { connection, failureInput, fakeClock, MemoryBreakers, MemoryConnections, provider, settingsWith } from "./fixtures.js";

const local = provider({ id: "ollama", category: "local" });

function sharingEngine() {
  const clock = fakeClock();
  const shared: EngineSharedChange[] = [];
  const events: SwitchyardEvent[] = [];
  const store = new MemoryConnections([connection({ id: "c1", provider: "ollama" }), connection({ id: "c2", provider: "ollama" })]);
  const settings = settingsWith({ modelLockout: { enabled: true } });
  const engine = createResilienceEngine({
    clock,
    breakers: new MemoryBreakers(),
    connections: store,
    getSettings: () => settings,
    getAppSettings: () => ({ providerErrorRules: [], providerErrorDefaults: {} }),
    emit: (e) => events.push(e),
    answers: answerReader,
    share: (c) => shared.push(c),
  });
  const failWith = (status: number, connectionId = "c1", probe = false) =>
    engine.recordFailure({ provider: local, connection: store.row(connectionId), model: "m", probe }, engine.classify(failureInput({ provider: local, status, model: "m" })));
  return { clock, shared, events, store, engine, failWith };
}

describe("engine sharing port (R19.1)", () => {
  it("R19.1 a lockout set by a failure is handed to the group with its end; an operator's clear is a force write", () => {
    const a = sharingEngine();
    a.failWith(404);
    const set = a.shared.find((c) => c.kind === "lockout");
    expect(set).toMatchObject({ kind: "lockout", provider: "ollama", connectionId: "c1", entry: { value: { model: "m", reason: expect.any(String) } } });
    expect(set?.kind === "lockout" && set.entry.until).toBeGreaterThan(a.clock.now());
    a.engine.clearModelCooldowns({ all: true });
    expect(a.shared.at(-1)).toMatchObject({ kind: "lockout", connectionId: "c1", entry: { value: null, force: true } });
  });

  it("R19.1 a lockout the group holds excludes the connection here, is announced, and is not handed back", () => {
    const a = sharingEngine();
    const b = sharingEngine();
    a.failWith(404);
    const change = a.shared.find((c) => c.kind === "lockout")!;
    b.engine.applyShared(change);
    expect(b.engine.selectConnections(local, "m", b.store.list()).excluded).toEqual([expect.objectContaining({ connectionId: "c1", reason: "model_lockout" })]);
    expect(b.events).toEqual([expect.objectContaining({ type: "lockout.set", connectionId: "c1", model: "m" })]);
    expect(b.shared).toEqual([]);
    b.engine.applyShared(change);
    expect(b.events).toHaveLength(1);
  });

  it("R19.2 a HALF_OPEN snapshot of the same opening does not take this instance's probe away; its failure still reopens", () => {
    const a = sharingEngine();
    a.failWith(503, "c1");
    a.failWith(503, "c2");
    a.clock.advance(15_000);
    expect(a.engine.admitProvider(local)).toEqual({ allowed: true, probe: true });
    const mine = a.engine.breakerSnapshot(local);
    if (mine.state !== "HALF_OPEN") throw new Error(`expected HALF_OPEN, got ${mine.state}`);
    const withoutProbe: BreakerSnapshot = { ...mine, probeStartedAt: null };
    a.engine.applyShared({ kind: "breaker", snapshot: withoutProbe });
    expect(a.engine.breakerSnapshot(local).probeStartedAt).toBe(mine.probeStartedAt);
    a.failWith(502, "c1", true);
    expect(a.engine.breakerSnapshot(local)).toMatchObject({ state: "OPEN", openCycles: 2 });
  });

  it("R19.1 a breaker snapshot from the group replaces this one's and announces the change of state", () => {
    const a = sharingEngine();
    const b = sharingEngine();
    a.failWith(503, "c1");
    a.failWith(503, "c2");
    b.engine.applyShared({ kind: "breaker", snapshot: a.engine.breakerSnapshot(local) });
    expect(b.engine.admitProvider(local)).toMatchObject({ allowed: false, reason: "circuit_open" });
    expect(b.events).toEqual([expect.objectContaining({ type: "breaker", provider: "ollama", from: "CLOSED", to: "OPEN" })]);
  });
});
