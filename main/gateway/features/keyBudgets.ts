// Connection budgets (R18.4) as a feature: a key (connection) over its budget for the period waits
// for the period to end like a cooldown: it is passed over (reason `budget`, with the time left).
import type { BudgetPort } from "../context/ports.js";
import type { RequestFeature } from "./feature.js";

export function keyBudgetsFeature(budgets: BudgetPort): RequestFeature {
  return {
    name: "key-budgets",
    candidates(_ctx, _target, list, scope) {
      // No budget on any of them (the usual case): nothing to read, no new list.
      if (!list.some((c) => c.budget)) return list;
      return list.filter((c) => {
        // What the engine excludes is logged as the engine's reason, as before budgets were read.
        if (scope.excludedBy(c)) return true;
        const budgetMs = budgets.connectionOverBudgetMs(c);
        if (budgetMs === null) return true;
        scope.exclude(c, "budget", budgetMs);
        return false;
      });
    },
  };
}
