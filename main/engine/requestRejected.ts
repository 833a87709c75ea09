// Per-request refusals (R4.7, D4): an upstream that refuses one request (an OAuth 403 "Request not
// allowed") says nothing about the account, so it never bans. A streak per connection+model grows
// the model's time out of rotation: 5 min, 15 min, 45 min, then 60 min; an hour without one resets it.
import { REQUEST_REJECTED_MAX_COOLDOWN_MS, REQUEST_REJECTED_STEPS_MS, REQUEST_REJECTED_STREAK_RESET_MS } from "../../shared/resilienceSettings.js";

interface Streak {
  count: number;
  lastAt: number;
}

/** The n-th refusal of a streak (n >= 1): the ladder's step, or the cap once past it. */
export function requestRejectedCooldownMs(streak: number): number {
  return Math.min(REQUEST_REJECTED_STEPS_MS[streak - 1] ?? REQUEST_REJECTED_MAX_COOLDOWN_MS, REQUEST_REJECTED_MAX_COOLDOWN_MS);
}

export class RequestRejectedStreaks {
  private readonly streaks = new Map<string, Streak>();

  /** Counts one refusal and returns how long the model (or, without a model, the connection) stays out. */
  record(connectionId: string, model: string | null, now: number): number {
    const key = `${connectionId}\u0000${model ?? ""}`;
    const previous = this.streaks.get(key);
    const continuing = previous !== undefined && now - previous.lastAt < REQUEST_REJECTED_STREAK_RESET_MS;
    const count = continuing ? previous.count + 1 : 1;
    this.streaks.set(key, { count, lastAt: now });
    return requestRejectedCooldownMs(count);
  }

  clearConnection(connectionId: string): void {
    for (const key of this.streaks.keys()) if (key.startsWith(`${connectionId}\u0000`)) this.streaks.delete(key);
  }

  clearAll(): void {
    this.streaks.clear();
  }
}
