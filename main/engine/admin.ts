// The management side of the resilience engine (R2.6, R5.5, R6, D5, D6): what the API and the
// tray call to read and reset its state, and how a group applies another instance's changes (R19).
import type { ClearCooldownsResult, CooldownRow, ModelLockoutItem, ResilienceHealth } from "../../shared/apiTypes.js";
import type { Connection, Provider } from "../../shared/types.js";
import type { ClearCooldownsRequest } from "./cooldownManager.js";
import type { AttemptContext, BreakerSnapshot, EngineSharedChange, Verdict } from "./ports.js";
import type { UsageWallBook } from "./usageWall.js";

export type ClearModelCooldownsRequest = { all: true } | { provider: string; model: string; connectionId?: string | null };

/** What the management API and the tray call (R2.6, R5.5, R6, D5, D6). */
export interface ResilienceAdmin {
  monitoringHealth(providers: Provider[]): ResilienceHealth;
  resetBreakers(provider?: string): { ok: true; resetCount: number };
  listCooldowns(providers: Provider[], connections: Connection[], filter?: { provider?: string }): { items: CooldownRow[] };
  clearCooldowns(body: ClearCooldownsRequest, connections: Connection[]): ClearCooldownsResult;
  listModelCooldowns(): { items: ModelLockoutItem[] };
  clearModelCooldowns(body: ClearModelCooldownsRequest): { ok: true; removed: number } | { ok: true; clearedAll: true };
  /** R2.4: a passing connection test clears DEGRADED. */
  connectionTestPassed(provider: Provider): void;
  /** R9.4: a long typed retry delay becomes a model lockout of exactly that length. */
  lockModel(input: { provider: Provider; connectionId: string; model: string; durationMs: number; reason: string }): void;
  /** The breaker as every reader sees it (lazily refreshed). */
  breakerSnapshot(provider: Provider): BreakerSnapshot;
  /** R12.6: the per-connection usage-wall state the gateway's Claude calls consult. */
  readonly usageWall: UsageWallBook;
  /**
   * R12.5: after an egress-bucketed 429 of `ctx.connection` (already recorded), cool the siblings
   * that last left from the same IP until the failing connection's own cooldown ends; returns their ids.
   */
  coolEgressSiblings(ctx: AttemptContext, verdict: Verdict, siblings: Connection[]): string[];
  /** R19: a change another instance of the group made (a breaker, a lockout, a provider cooldown); never shared back. */
  applyShared(change: EngineSharedChange): void;
}
