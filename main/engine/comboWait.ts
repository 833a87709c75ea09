// Cooldown-aware combo retry (R11.4, D11): when no target of a combo could answer and every one
// was held back by a SHORT transient timer, waiting for the earliest timer and dispatching again
// beats telling the client to retry. Pure: the gateway supplies the clock's readings and owns the
// real timer.

/** The resilience settings' `comboCooldownWait`. */
export interface ComboWaitSettings {
  enabled: boolean;
  maxWaitMs: number;
  maxAttempts: number;
  budgetMs: number;
}

/** Why one target (or one attempt on it) did not answer, and for how long that holds. */
export interface Blocker {
  reason: string;
  /** When the holding timer expires, in ms from now; null when unknown. */
  remainingMs: number | null;
  /** An upstream hint (Retry-After and the like) in ms, when an attempt got one. */
  hintMs?: number | null;
}

export interface ComboWaitInput {
  settings: ComboWaitSettings;
  /** The combo's `config.comboCooldownWaitEnabled`; only a literal false opts out. */
  comboOptIn: unknown;
  blockers: readonly Blocker[];
  /** Waits already spent by this request. */
  waitsSoFar: number;
  /** Ms spent waiting so far by this request. */
  waitedMs: number;
}

export type ComboWaitDecision = { wait: true; delayMs: number } | { wait: false; why: string };

/**
 * Short transient reasons: a timer that ends soon on its own. quota_exhausted (locked until the
 * window resets), auth, terminal, not-found and inactive never end by waiting a little.
 */
const SHORT_TRANSIENT = new Set(["rate_limit", "concurrency_limited", "unavailable", "model_lockout", "provider_cooldown", "circuit_open"]);

/** Slack after the expiry so the re-dispatch lands after the timer, not on its edge. */
export const WAIT_SLACK_MS = 50;

export function decideComboWait(input: ComboWaitInput): ComboWaitDecision {
  const { settings, blockers } = input;
  if (!settings.enabled || input.comboOptIn === false) return { wait: false, why: "disabled" };
  if (blockers.length === 0) return { wait: false, why: "nothing_to_wait_for" };
  if (!blockers.every((b) => SHORT_TRANSIENT.has(b.reason))) return { wait: false, why: "not_transient" };
  if (input.waitsSoFar >= settings.maxAttempts) return { wait: false, why: "attempts_spent" };
  const timers = blockers.map((b) => b.remainingMs).filter((ms): ms is number => typeof ms === "number" && ms > 0);
  const hints = blockers.map((b) => b.hintMs).filter((ms): ms is number => typeof ms === "number" && ms > 0);
  if (timers.length === 0 && hints.length === 0) return { wait: false, why: "no_expiry_known" };
  const earliest = timers.length ? Math.min(...timers) : 0;
  const hint = hints.length ? Math.max(...hints) : 0;
  const delayMs = Math.max(earliest, hint) + WAIT_SLACK_MS;
  if (delayMs > settings.maxWaitMs) return { wait: false, why: "too_long" };
  if (input.waitedMs + delayMs > settings.budgetMs) return { wait: false, why: "budget_spent" };
  return { wait: true, delayMs };
}
