// R19: what another instance of the group changed, applied to this engine's memory and announced
// on its bus as a change of its own would be (so the dashboard and the event stream see it). Never
// shared back: the classes' apply methods do not call their sharing port.
import type { ModelLockouts } from "./modelLockout.js";
import type { EngineSharedChange, EventSink } from "./ports.js";
import type { ProviderCooldowns } from "./providerCooldown.js";

export interface SharedApplyParts {
  lockouts: ModelLockouts;
  providerCooldowns: ProviderCooldowns;
  emit: EventSink;
}

export function applySharedChange(change: Exclude<EngineSharedChange, { kind: "breaker" }>, parts: SharedApplyParts, now: number): void {
  if (change.kind === "providerCooldown") {
    const value = change.entry.value;
    parts.providerCooldowns.applyShared(change.provider, change.part, value?.until ?? null, value?.failures);
    return;
  }
  const { provider, connectionId, scope, entry } = change;
  if (entry.value === null) {
    const cleared = parts.lockouts.applySharedClear(provider, connectionId, scope, now);
    if (cleared) parts.emit({ type: "lockout.cleared", provider, connectionId, model: cleared.model, at: now });
    return;
  }
  const set = parts.lockouts.applyShared(connectionId, scope, entry.value, now);
  if (set) parts.emit({ type: "lockout.set", provider, connectionId, model: set.model, reason: set.reason, expiresAt: set.expiresAt, at: now });
}
