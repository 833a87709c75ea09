// Budgets of keys and connections (R18.4) as the forms edit them and the pages show them: a draft
// of typed text, the `budget` body it becomes, and "what is used of what" in words and percent.
import type { Budget, BudgetUsed } from "../../shared/types.js";
import { formatCount, formatUsd } from "../../shared/usageText.js";

export type BudgetPeriodChoice = "none" | Budget["period"];

export interface BudgetDraft {
  period: BudgetPeriodChoice;
  maxCostUsd: string;
  maxTokens: string;
}

export function draftFromBudget(budget: Budget | null | undefined): BudgetDraft {
  return {
    period: budget?.period ?? "none",
    maxCostUsd: budget?.maxCostUsd === undefined ? "" : String(budget.maxCostUsd),
    maxTokens: budget?.maxTokens === undefined ? "" : String(budget.maxTokens),
  };
}

/**
 * The `budget` field to send: null for none. Numbers go as typed: a non-number or a budget with
 * neither limit reaches the server's validation, which names the field.
 */
export function budgetFromDraft(draft: BudgetDraft): Budget | null {
  if (draft.period === "none") return null;
  const budget: Budget = { period: draft.period };
  if (draft.maxCostUsd.trim() !== "") budget.maxCostUsd = Number(draft.maxCostUsd);
  if (draft.maxTokens.trim() !== "") budget.maxTokens = Number(draft.maxTokens);
  return budget;
}

const PERIOD_WORDS: Record<Budget["period"], string> = { day: "today", month: "this month" };

/** The share of the budget used: the limit nearest its end counts (the first one reached stops traffic). */
export function budgetPercent(budget: Budget, used: BudgetUsed | null | undefined): number {
  if (!used) return 0;
  const shares: number[] = [];
  if (budget.maxCostUsd !== undefined) shares.push(budget.maxCostUsd > 0 ? used.costUsd / budget.maxCostUsd : 1);
  if (budget.maxTokens !== undefined) shares.push(budget.maxTokens > 0 ? used.tokens / budget.maxTokens : 1);
  return Math.round(Math.max(0, ...shares) * 1000) / 10;
}

/** "$1.20 of $5.00 and 12,000 of 100,000 tokens used today". */
export function budgetUseText(budget: Budget, used: BudgetUsed | null | undefined): string {
  const parts: string[] = [];
  if (budget.maxCostUsd !== undefined) parts.push(`${formatUsd(used?.costUsd ?? 0)} of ${formatUsd(budget.maxCostUsd)}`);
  if (budget.maxTokens !== undefined) parts.push(`${formatCount(used?.tokens ?? 0)} of ${formatCount(budget.maxTokens)} tokens`);
  return `${parts.join(" and ")} used ${PERIOD_WORDS[budget.period]}`;
}

/** "$5.00 per day", "100,000 tokens per month", both joined by "or". */
export function budgetLimitText(budget: Budget): string {
  const limits: string[] = [];
  if (budget.maxCostUsd !== undefined) limits.push(formatUsd(budget.maxCostUsd));
  if (budget.maxTokens !== undefined) limits.push(`${formatCount(budget.maxTokens)} tokens`);
  return `${limits.join(" or ")} per ${budget.period}`;
}
