// Budgets with what they have used this period (R18.4), for keys and connections alike, each with
// a meter and the time until the period starts over.
import type { Budget, BudgetUsed } from "../../../../shared/types.js";
import { formatRemaining } from "../../../../shared/usageText.js";
import { budgetLimitText, budgetPercent, budgetUseText } from "../../budget.js";
import { DataTable } from "../../components/DataTable.js";
import { Meter } from "../../components/Meter.js";
import { useNow } from "../../useNow.js";

export interface BudgetHolder {
  kind: "API key" | "Connection";
  id: string;
  name: string;
  budget: Budget | null;
  budgetUsed?: BudgetUsed | null;
}

export function BudgetsCard({ holders, error, serverNowAt }: { holders: BudgetHolder[] | null; error: string | null; serverNowAt(local: number): number }) {
  // Periods are days or months: a countdown in minutes is precise enough.
  const serverNow = serverNowAt(useNow(30_000));
  const withBudget = (holders ?? []).filter((h): h is BudgetHolder & { budget: Budget } => h.budget !== null);
  return (
    <section className="card" aria-labelledby="budgets-title">
      <h2 id="budgets-title">Budgets</h2>
      {error && (
        <p role="alert" className="error-banner">
          Could not load budgets: {error}
        </p>
      )}
      {holders && withBudget.length === 0 && (
        <p className="muted">
          No budgets set. Give a key a budget on the <a href="#/keys">API keys</a> page, or a connection one in its form on the <a href="#/providers">Providers</a> page.
        </p>
      )}
      {withBudget.length > 0 && (
        <DataTable caption="Budgets and their use this period" columns={["Name", "Kind", "Limit", "Used", "Resets in"]}>
          {withBudget.map((h) => {
            const text = budgetUseText(h.budget, h.budgetUsed);
            const percent = budgetPercent(h.budget, h.budgetUsed);
            return (
              <tr key={`${h.kind}|${h.id}`}>
                <th scope="row">{h.name}</th>
                <td>{h.kind}</td>
                <td>{budgetLimitText(h.budget)}</td>
                <td>
                  <span className="field-hint">
                    {text} ({percent} %)
                  </span>
                  <Meter label={`Budget of ${h.name}`} percent={percent} text={`${percent} %: ${text}`} />
                </td>
                <td className="nowrap">{h.budgetUsed ? formatRemaining(h.budgetUsed.resetAt - serverNow) : <span className="muted">—</span>}</td>
              </tr>
            );
          })}
        </DataTable>
      )}
    </section>
  );
}
