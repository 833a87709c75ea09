// R7.1, R20.2: a session stays on the combo target (and, in selection, the connection) that served
// it, whatever the combo's strategy: its warm prompt cache and per-account context live there. The
// strategy still orders everything after it, so failover walks on as usual when the pinned target
// cannot serve (breaker open, every connection excluded), and the pin then moves.
import type { SessionPin } from "../../../engine/sessionAffinity.js";
import type { Target } from "../../context/resolve.js";

/** What of a session pin the plan stage reads. */
export type PinnedTarget = Pick<SessionPin, "provider" | "connectionId" | "model">;

/**
 * The index of the target the pinned session stays on, or -1: a target of the pin's provider that
 * may use the pinned connection, the pin's own model first (a pin restored after a restart knows
 * no model, and takes the first such target in the order given).
 */
export function pinnedTargetIndex(targets: readonly Target[], pin: PinnedTarget): number {
  let sameAccount = -1;
  for (let i = 0; i < targets.length; i++) {
    const t = targets[i];
    if (t.provider.id !== pin.provider || (t.connectionId && t.connectionId !== pin.connectionId)) continue;
    if (t.model === pin.model) return i;
    if (sameAccount === -1) sameAccount = i;
  }
  return sameAccount;
}

/** `ordered` with the pinned session's target first; the same array when it already leads. */
export function pinnedTargetFirst(ordered: Target[], pin: PinnedTarget | null | undefined): Target[] {
  if (!pin || ordered.length < 2) return ordered;
  const index = pinnedTargetIndex(ordered, pin);
  if (index <= 0) return ordered;
  return [ordered[index], ...ordered.slice(0, index), ...ordered.slice(index + 1)];
}
