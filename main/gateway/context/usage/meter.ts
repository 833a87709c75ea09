// R18.1 and R18.4 at the end of each request: its row's cost (at the model the answering attempt
// asked for), and the key's and the connection's budgets count what it used. The request's
// RequestRecord asks once per row, as it writes the row after the client was answered.
import type { ApiKeyInfo, Budget, Connection, Provider, RequestLogEntry } from "../../../../shared/types.js";
import type { BudgetBook, BudgetCrossing, BudgetScope } from "../../../engine/budgets.js";
import type { RowCost, UsageMeter } from "../requestRecord.js";
import type { Pricer } from "./pricing.js";

export interface UsageMeterDeps {
  providerById(id: string): Provider | null;
  connectionById(id: string): Connection | null;
  /** The key's name and budget (kept in memory: this runs once per request). */
  keyById(id: string): Pick<ApiKeyInfo, "id" | "name" | "budget"> | null;
  pricer: Pricer;
  budgets: BudgetBook;
  /** A budget crossed 80 % or 100 % of its period (R18.4): notify the user. */
  onCrossing(crossing: BudgetCrossing, name: string): void;
}

const UNPRICED: RowCost = { costUsd: null, costSource: null, notional: false };

/** The row's cost; `connection` answered it (a subscription's cost is notional). */
function costOf(row: RequestLogEntry, model: string | null, connection: Connection | null, deps: Pick<UsageMeterDeps, "providerById" | "pricer">): RowCost {
  if (row.inputTokens === null && row.outputTokens === null) return UNPRICED;
  const provider = row.provider ? deps.providerById(row.provider) : null;
  const price = deps.pricer.price(provider, model ?? "", {
    inputTokens: row.inputTokens ?? 0,
    outputTokens: row.outputTokens ?? 0,
    cacheReadTokens: row.cacheReadTokens ?? 0,
    cacheWriteTokens: row.cacheWriteTokens ?? 0,
  });
  return { costUsd: price.costUsd, costSource: price.costSource, notional: price.costUsd !== null && connection?.subscription === true };
}

export function createUsageMeter(deps: UsageMeterDeps): UsageMeter {
  const count = (scope: BudgetScope, id: string, name: string, budget: Budget | null, row: RequestLogEntry, costUsd: number | null) => {
    if (!budget) return;
    const tokens = (row.inputTokens ?? 0) + (row.outputTokens ?? 0);
    const crossing = deps.budgets.add(scope, id, budget, costUsd ?? 0, tokens);
    if (crossing) deps.onCrossing(crossing, name);
  };
  return {
    meter(row, model) {
      // Looked up once: it says whether the cost is notional and carries the connection's budget.
      const connection = row.connectionId ? deps.connectionById(row.connectionId) : null;
      const cost = costOf(row, model, connection, deps);
      if (row.apiKeyId) {
        const key = deps.keyById(row.apiKeyId);
        if (key) count("key", key.id, key.name, key.budget, row, cost.costUsd);
      }
      if (connection) count("connection", connection.id, connection.name, connection.budget, row, cost.costUsd);
      return cost;
    },
  };
}
