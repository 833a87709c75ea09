// R18.4 budgets: what each client key and connection has used in its current period (a UTC day or
// month), against its cap in cost, tokens or both. Pure: the clock says the time, and what a period
// used before this process started comes from a port (the usage rollups), asked once per period.
import type { Budget, BudgetUsed } from "../../shared/types.js";
import type { Clock } from "./ports.js";

export type BudgetScope = "key" | "connection";

/** The thresholds that notify the user (R18.4), lowest first. */
export const BUDGET_THRESHOLDS = [80, 100] as const;
export type BudgetThreshold = (typeof BUDGET_THRESHOLDS)[number];

/** The start of the UTC day or month holding `now`, and the start of the next one. */
export function budgetPeriod(period: Budget["period"], now: number): { start: number; end: number } {
  const d = new Date(now);
  if (period === "day") {
    const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
    return { start, end: start + 86_400_000 };
  }
  return { start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) };
}

/** The larger share of the budget used: cost and tokens each count when capped. 0 cap = full at once. */
export function budgetShare(budget: Budget, used: { costUsd: number; tokens: number }): number {
  const share = (value: number, cap: number | undefined) => (cap === undefined ? 0 : cap <= 0 ? Infinity : value / cap);
  return Math.max(share(used.costUsd, budget.maxCostUsd), share(used.tokens, budget.maxTokens));
}

interface PeriodUse {
  period: Budget["period"];
  start: number;
  end: number;
  costUsd: number;
  tokens: number;
  /** The highest threshold already announced in this period (0: none). */
  announced: number;
}

/** What a period used before the book first saw it (the rollups), read once per period. */
export type PriorUse = (scope: BudgetScope, id: string, since: number) => { costUsd: number; tokens: number };

export interface BudgetCrossing {
  scope: BudgetScope;
  id: string;
  percent: BudgetThreshold;
  used: BudgetUsed;
}

export class BudgetBook {
  private readonly uses = new Map<string, PeriodUse>();

  constructor(
    private readonly clock: Clock,
    private readonly prior: PriorUse,
  ) {}

  /** The current period's use; a new period (or another period kind) starts from what the rollups hold. */
  private use(scope: BudgetScope, id: string, budget: Budget): PeriodUse {
    const { period } = budget;
    const key = `${scope}\u0000${id}`;
    const now = this.clock.now();
    const current = this.uses.get(key);
    if (current && current.period === period && now >= current.start && now < current.end) return current;
    const { start, end } = budgetPeriod(period, now);
    const before = this.prior(scope, id, start);
    const fresh: PeriodUse = { period, start, end, costUsd: before.costUsd, tokens: before.tokens, announced: 0 };
    // Already past a threshold when first seen (after a restart): it was announced then, not again now.
    for (const t of BUDGET_THRESHOLDS) if (budgetShare(budget, fresh) * 100 >= t) fresh.announced = t;
    this.uses.set(key, fresh);
    return fresh;
  }

  used(scope: BudgetScope, id: string, budget: Budget | null): BudgetUsed | null {
    if (!budget) return null;
    const u = this.use(scope, id, budget);
    return { costUsd: u.costUsd, tokens: u.tokens, resetAt: u.end };
  }

  /** Milliseconds until the period ends when the budget is spent, else null. */
  overBudgetMs(scope: BudgetScope, id: string, budget: Budget | null): number | null {
    if (!budget) return null;
    const u = this.use(scope, id, budget);
    return budgetShare(budget, u) >= 1 ? Math.max(0, u.end - this.clock.now()) : null;
  }

  /** Adds a finished request's use; returns the threshold it crossed, if any (each once per period). */
  add(scope: BudgetScope, id: string, budget: Budget | null, costUsd: number, tokens: number): BudgetCrossing | null {
    if (!budget) return null;
    const u = this.use(scope, id, budget);
    u.costUsd += costUsd;
    u.tokens += tokens;
    const after = budgetShare(budget, u);
    let crossed: BudgetThreshold | null = null;
    for (const t of BUDGET_THRESHOLDS) if (after * 100 >= t && u.announced < t) crossed = t;
    if (crossed === null) return null;
    u.announced = crossed;
    return { scope, id, percent: crossed, used: { costUsd: u.costUsd, tokens: u.tokens, resetAt: u.end } };
  }

  /** A budget changed or its owner went: its period is read again from the rollups next time. */
  forget(scope: BudgetScope, id: string): void {
    this.uses.delete(`${scope}\u0000${id}`);
  }
}
