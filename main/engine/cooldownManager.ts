// Cooldown Manager (R6, D6): one view of every connection out of routing for a temporary reason
// or in a terminal state, and the operator's "clear" over it. Terminal states are listed, never
// cleared here. Rows carry runtime fields only, never a credential.
import type { ClearCooldownsResult, CooldownRow, CooldownRowStatus } from "../../shared/apiTypes.js";
import type { Connection, ConnectionRuntime, Provider } from "../../shared/types.js";
import { activeCooldownUntil, isTerminal, successPatch } from "./connectionCooldown.js";
import type { LockoutEntry } from "./modelLockout.js";

export type ClearCooldownsRequest = { connectionIds?: string[]; all?: true; provider?: string };

/** What the manager needs from the engine's in-memory state for one connection. */
export interface ConnectionTimers {
  /** Extra connection-level cooldown outside the row (R3.2 window gate), in ms. */
  extraCoolingMs(connection: Connection): number;
  activeLockouts(connection: Connection): LockoutEntry[];
  /** R12.6: until when the connection runs in the usage wall's slow lane, or null. */
  slowLaneUntil(connection: Connection): number | null;
}

/** D6: terminal > cooling_down > model_locked > unavailable > slow_lane (R12.6) > healthy (null). */
export function rowStatus(connection: Connection, coolingMs: number, lockouts: LockoutEntry[], slowLane = false): CooldownRowStatus | null {
  if (isTerminal(connection.testStatus)) return "terminal";
  if (coolingMs > 0) return "cooling_down";
  if (lockouts.length > 0) return "model_locked";
  // Marked unavailable with no timer at all: out of rotation until a success or an operator clears it.
  if (connection.testStatus === "unavailable" && connection.rateLimitedUntil === null) return "unavailable";
  return slowLane ? "slow_lane" : null;
}

function coolingMsOf(connection: Connection, timers: ConnectionTimers, now: number): number {
  const until = activeCooldownUntil(connection, now);
  return Math.max(until === null ? 0 : until - now, timers.extraCoolingMs(connection));
}

/** GET /api/resilience/cooldowns: non-healthy rows, in the order of the given providers, then priority. */
export function listCooldownRows(
  providers: Provider[],
  connections: Connection[],
  timers: ConnectionTimers,
  now: number,
  filter?: { provider?: string },
): { items: CooldownRow[] } {
  const providerOrder = new Map(providers.map((p, index) => [p.id, index]));
  const rank = (c: Connection) => providerOrder.get(c.provider) ?? providers.length;
  const items: CooldownRow[] = [];
  const ordered = connections
    .filter((c) => filter?.provider === undefined || c.provider === filter.provider)
    .map((c, index) => ({ c, index }))
    .sort((a, b) => rank(a.c) - rank(b.c) || a.c.priority - b.c.priority || a.index - b.index);
  for (const { c } of ordered) {
    const locks = timers.activeLockouts(c);
    const coolingMs = coolingMsOf(c, timers, now);
    const slowLaneUntil = timers.slowLaneUntil(c);
    const status = rowStatus(c, coolingMs, locks, slowLaneUntil !== null);
    if (status === null) continue;
    const lockouts = locks
      .map((l) => ({ model: l.family ? l.family.name : l.model, reason: l.reason, remainingMs: l.expiresAt - now }))
      .sort((a, b) => b.remainingMs - a.remainingMs);
    const remainingMs = status === "cooling_down" ? coolingMs : status === "model_locked" ? lockouts[0].remainingMs : status === "slow_lane" ? slowLaneUntil! - now : null;
    items.push({
      connectionId: c.id,
      provider: c.provider,
      name: c.name,
      status,
      testStatus: c.testStatus,
      remainingMs,
      rateLimitedUntil: c.rateLimitedUntil,
      backoffLevel: c.backoffLevel,
      lastErrorType: c.lastErrorType,
      lockouts,
      slowLaneUntil,
    });
  }
  return { items };
}

export interface ClearEffects {
  /** Drops the connection's lockouts and other in-memory timers; returns the active lockouts removed. */
  clearTimers(connection: Connection): { lockouts: LockoutEntry[]; otherTimers: boolean };
  freshRuntime(connection: Connection): ConnectionRuntime;
  writeRuntime(connection: Connection, patch: Partial<ConnectionRuntime>, wasCooling: boolean): void;
}

/** POST /api/resilience/cooldowns (R6.2): ids not found count as unchanged. */
export function clearCooldownRows(request: ClearCooldownsRequest, connections: Connection[], effects: ClearEffects, now: number): ClearCooldownsResult {
  const result: ClearCooldownsResult = { ok: true, cleared: 0, unchanged: 0, skippedTerminal: 0, lockoutsCleared: 0 };
  let targets: Connection[];
  if (request.connectionIds) {
    const byId = new Map(connections.map((c) => [c.id, c]));
    const ids = [...new Set(request.connectionIds)];
    targets = ids.flatMap((id) => byId.get(id) ?? []);
    result.unchanged += ids.length - targets.length;
  } else {
    targets = connections.filter((c) => request.provider === undefined || c.provider === request.provider);
  }
  for (const connection of targets) {
    const runtime = effects.freshRuntime(connection);
    if (isTerminal(runtime.testStatus)) {
      result.skippedTerminal++;
      continue;
    }
    const { lockouts, otherTimers } = effects.clearTimers(connection);
    const cooling = activeCooldownUntil(runtime, now) !== null;
    const marked = cooling || runtime.testStatus === "unavailable" || runtime.backoffLevel > 0;
    const patch = marked ? successPatch(runtime) : null;
    if (patch) effects.writeRuntime(connection, patch, cooling || runtime.testStatus === "unavailable");
    result.lockoutsCleared += lockouts.length;
    if (patch || lockouts.length > 0 || otherTimers) result.cleared++;
    else result.unchanged++;
  }
  return result;
}
