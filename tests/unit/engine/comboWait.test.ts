// The combo cooldown-wait decision (R11.4, D11) as a pure function: a fake clock is just the
// numbers handed in (remaining ms, waits spent, time already waited).
import { describe, expect, it } from "vitest";
import { decideComboWait, WAIT_SLACK_MS, type ComboWaitInput } from "../../../main/engine/comboWait.js";

const DEFAULTS = { enabled: true, maxWaitMs: 90_000, maxAttempts: 5, budgetMs: 300_000 };

function input(over: Partial<ComboWaitInput> = {}): ComboWaitInput {
  return {
    settings: DEFAULTS,
    comboOptIn: undefined,
    blockers: [
      { reason: "rate_limit", remainingMs: 1_000, hintMs: 1_000 },
      { reason: "unavailable", remainingMs: 3_000 },
    ],
    waitsSoFar: 0,
    waitedMs: 0,
    ...over,
  };
}

describe("decideComboWait (R11.4, D11)", () => {
  it("D11 waits for the earliest expiry plus 50 ms", () => {
    expect(decideComboWait(input())).toEqual({ wait: true, delayMs: 1_000 + WAIT_SLACK_MS });
  });

  it("D11 a larger upstream hint wins over the earliest expiry", () => {
    const d = decideComboWait(
      input({
        blockers: [
          { reason: "rate_limit", remainingMs: 500, hintMs: 2_000 },
          { reason: "model_lockout", remainingMs: 4_000 },
        ],
      }),
    );
    expect(d).toEqual({ wait: true, delayMs: 2_050 });
  });

  it("R11.4 every short transient reason may wait: cooling connection, lockout, provider cooldown, circuit open", () => {
    for (const reason of ["unavailable", "model_lockout", "provider_cooldown", "circuit_open", "rate_limit", "concurrency_limited"]) {
      expect(decideComboWait(input({ blockers: [{ reason, remainingMs: 700 }] })), reason).toEqual({ wait: true, delayMs: 750 });
    }
  });

  it("R11.4 never waits when one target is held by quota_exhausted, auth, not-found, a terminal state or is inactive", () => {
    for (const reason of ["quota_exhausted", "auth_error", "not_found", "model_not_found", "terminal", "inactive", "credits_exhausted"]) {
      const d = decideComboWait(
        input({
          blockers: [
            { reason: "rate_limit", remainingMs: 500 },
            { reason, remainingMs: 500 },
          ],
        }),
      );
      expect(d, reason).toEqual({ wait: false, why: "not_transient" });
    }
  });

  it("D11 a wait longer than maxWaitMs is refused; exactly maxWaitMs is allowed", () => {
    expect(decideComboWait(input({ blockers: [{ reason: "rate_limit", remainingMs: 90_000 }] }))).toEqual({ wait: false, why: "too_long" });
    expect(decideComboWait(input({ blockers: [{ reason: "rate_limit", remainingMs: 90_000 - WAIT_SLACK_MS }] }))).toEqual({ wait: true, delayMs: 90_000 });
  });

  it("D11 a spent attempt count or budget ends the waiting", () => {
    expect(decideComboWait(input({ waitsSoFar: 5 }))).toEqual({ wait: false, why: "attempts_spent" });
    expect(decideComboWait(input({ waitsSoFar: 4 })).wait).toBe(true);
    expect(decideComboWait(input({ waitedMs: 299_000 }))).toEqual({ wait: false, why: "budget_spent" });
    expect(decideComboWait(input({ waitedMs: 298_950 })).wait).toBe(true);
  });

  it("R11.4 disabled globally, or by the literal false of the combo only", () => {
    expect(decideComboWait(input({ settings: { ...DEFAULTS, enabled: false } }))).toEqual({ wait: false, why: "disabled" });
    expect(decideComboWait(input({ comboOptIn: false }))).toEqual({ wait: false, why: "disabled" });
    for (const value of [undefined, true, "false", 0, null]) expect(decideComboWait(input({ comboOptIn: value })).wait, String(value)).toBe(true);
  });

  it("R11.4 nothing blocked or no known expiry: no wait", () => {
    expect(decideComboWait(input({ blockers: [] }))).toEqual({ wait: false, why: "nothing_to_wait_for" });
    expect(decideComboWait(input({ blockers: [{ reason: "rate_limit", remainingMs: null }] }))).toEqual({ wait: false, why: "no_expiry_known" });
  });
});
