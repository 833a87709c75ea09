// R18.1 and R18.4 at the end of each request: the log row gets its cost (and the model it was
// priced as), and the key's and the connection's budgets count what it used. It wraps the request
// log's sink, so every row — the pipeline's, an unknown route's — passes here exactly once, after the
// client was answered.
import type { ApiKeyInfo, Budget, Connection, Provider, RequestLogEntry } from "../../../shared/types.js";
import type { BudgetBook, BudgetCrossing, BudgetScope } from "../../engine/budgets.js";
import type { RequestLogSink } from "../ports.js";
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

/** The model the answering attempt asked its upstream for (a combo or alias names another). */
function answeringModel(entry: RequestLogEntry): string | null {
  for (let i = entry.attempts.length - 1; i >= 0; i--) {
    const a = entry.attempts[i]!;
    if (a.connectionId === entry.connectionId && a.provider === entry.provider) return a.model;
  }
  return null;
}

/** Fills the row's cost fields in place (the same object goes to the live event stream); `connection` answered it. */
export function priceEntry(entry: RequestLogEntry, connection: Connection | null, deps: Pick<UsageMeterDeps, "providerById" | "pricer">): void {
  const model = answeringModel(entry);
  entry.servedModel = entry.provider && model ? `${entry.provider}/${model}` : null;
  if (entry.inputTokens === null && entry.outputTokens === null) {
    entry.costUsd = null;
    entry.costSource = null;
    return;
  }
  const provider = entry.provider ? deps.providerById(entry.provider) : null;
  const price = deps.pricer.price(provider, model ?? "", {
    inputTokens: entry.inputTokens ?? 0,
    outputTokens: entry.outputTokens ?? 0,
    cacheReadTokens: entry.cacheReadTokens ?? 0,
    cacheWriteTokens: entry.cacheWriteTokens ?? 0,
  });
  entry.costUsd = price.costUsd;
  entry.costSource = price.costSource;
  if (price.costUsd !== null && connection?.subscription) entry.costNotional = true;
}

export function meteredLog(log: RequestLogSink, deps: UsageMeterDeps): RequestLogSink {
  const count = (scope: BudgetScope, id: string, name: string, budget: Budget | null, entry: RequestLogEntry) => {
    if (!budget) return;
    const tokens = (entry.inputTokens ?? 0) + (entry.outputTokens ?? 0);
    const crossing = deps.budgets.add(scope, id, budget, entry.costUsd ?? 0, tokens);
    if (crossing) deps.onCrossing(crossing, name);
  };
  return {
    append(entry) {
      // Looked up once: it says whether the cost is notional and carries the connection's budget.
      const connection = entry.connectionId ? deps.connectionById(entry.connectionId) : null;
      priceEntry(entry, connection, deps);
      if (entry.apiKeyId) {
        const key = deps.keyById(entry.apiKeyId);
        if (key) count("key", key.id, key.name, key.budget, entry);
      }
      if (connection) count("connection", connection.id, connection.name, connection.budget, entry);
      log.append(entry);
    },
  };
}
