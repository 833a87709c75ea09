// Usage, cost and budgets put together (R18.1, R18.2, R18.4): the pricer, the budget book, the
// metered request log the pipeline writes to, the usage report handlers, and what the gateway asks
// before dispatch (is this key, this connection over its budget?).
import type { CooldownRow, UsageReport } from "../../shared/apiTypes.js";
import type { ContractHandlers } from "../../shared/contract.js";
import type { ApiKeyInfo, Connection } from "../../shared/types.js";
import { rawResponse } from "../api/index.js";
import { BudgetBook, type BudgetCrossing } from "../engine/budgets.js";
import type { Clock } from "../engine/ports.js";
import { createUsageMeter } from "../gateway/context/usage/meter.js";
import { createPricer } from "../gateway/context/usage/pricing.js";
import type { Store } from "../store/index.js";
import type { EventBus } from "./eventBus.js";
import type { Logger } from "./logger.js";

const DAY_MS = 86_400_000;

export interface BudgetGate {
  /** Milliseconds until the key's period ends when its budget is spent, else null (R18.4). */
  keyOverBudgetMs(keyId: string | null): number | null;
  connectionOverBudgetMs(connection: Connection): number | null;
}

type KeyBudget = Pick<ApiKeyInfo, "id" | "name" | "budget">;

/** CSV text: quoted when needed, and a leading =, +, - or @ defused so a spreadsheet shows it as text. */
function csvField(value: string | number): string {
  if (typeof value === "number") return String(value);
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function usageCsv(report: UsageReport): string {
  const lines = [["time", report.groupBy, "requests", "inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens", "reasoningTokens", "costUsd"].join(",")];
  for (const s of report.series) {
    for (const p of s.points) {
      const row = [
        new Date(p.t).toISOString(),
        s.key,
        p.requests,
        p.inputTokens,
        p.outputTokens,
        p.cacheReadTokens,
        p.cacheWriteTokens,
        p.reasoningTokens,
        Number(p.costUsd.toFixed(6)),
      ];
      lines.push(row.map(csvField).join(","));
    }
  }
  return lines.join("\n") + "\n";
}

/** R18.4: connections over budget are listed in the Cooldown Manager beside the cooling ones. */
export function withBudgetRows(rows: { items: CooldownRow[] }, connections: Connection[], gate: BudgetGate | undefined, provider?: string): { items: CooldownRow[] } {
  if (!gate) return rows;
  const listed = new Set(rows.items.map((r) => r.connectionId));
  for (const c of connections) {
    if (listed.has(c.id) || (provider !== undefined && c.provider !== provider)) continue;
    const remainingMs = gate.connectionOverBudgetMs(c);
    if (remainingMs === null) continue;
    rows.items.push({
      connectionId: c.id,
      provider: c.provider,
      name: c.name,
      status: "budget",
      testStatus: c.testStatus,
      remainingMs,
      rateLimitedUntil: c.rateLimitedUntil,
      backoffLevel: c.backoffLevel,
      lastErrorType: c.lastErrorType,
      lockouts: [],
      slowLaneUntil: null,
    });
  }
  return rows;
}

export function createUsageParts(deps: { store: Store; bus: EventBus; clock: Clock; logger: Logger }) {
  const { store, bus, clock, logger } = deps;
  const pricer = createPricer();
  const budgets = new BudgetBook(clock, (scope, id, since) => store.usage.usedSince(scope, id, since));
  // Keys are read per request (the row's key, its budget): kept in memory, reloaded on a key change.
  let keys = new Map<string, KeyBudget>();
  const reloadKeys = () => (keys = new Map(store.apiKeys.list().map((k) => [k.id, { id: k.id, name: k.name, budget: k.budget }])));
  reloadKeys();
  bus.subscribe((e) => {
    if (e.type !== "config" || (e.entity !== "key" && e.entity !== "connection")) return;
    if (e.entity === "key") reloadKeys();
    // A new cap (or none) starts its thresholds over from what the rollups hold.
    if (e.action !== "created") budgets.forget(e.entity, e.id);
  });

  const onCrossing = (c: BudgetCrossing, name: string) => {
    const what = c.scope === "key" ? `API key "${name}"` : `connection "${name}"`;
    logger.warn(
      { scope: c.scope, id: c.id, percent: c.percent, usedCostUsd: c.used.costUsd, usedTokens: c.used.tokens, resetAt: new Date(c.used.resetAt).toISOString() },
      `budget: ${what} has used ${c.percent} % of its budget`,
    );
    bus.emit({
      type: "budget",
      scope: c.scope,
      id: c.id,
      name,
      percent: c.percent,
      usedCostUsd: c.used.costUsd,
      usedTokens: c.used.tokens,
      resetAt: c.used.resetAt,
      at: clock.now(),
    });
  };

  const report = (q: { from?: number; to?: number; groupBy: UsageReport["groupBy"]; bucket: UsageReport["bucket"] }) => {
    const to = q.to ?? clock.now();
    return store.usage.report({ from: q.from ?? to - DAY_MS, to, groupBy: q.groupBy, bucket: q.bucket });
  };

  const gate: BudgetGate = {
    keyOverBudgetMs(keyId) {
      const key = keyId ? keys.get(keyId) : undefined;
      return key?.budget ? budgets.overBudgetMs("key", key.id, key.budget) : null;
    },
    connectionOverBudgetMs: (connection) => (connection.budget ? budgets.overBudgetMs("connection", connection.id, connection.budget) : null),
  };

  return {
    gate,
    budgetUsed: budgets.used.bind(budgets),
    /** The request log as the gateway writes to it. */
    log: store.logs,
    /** What prices each request's row and counts it against budgets, as the row is written. */
    meter: createUsageMeter({
      providerById: (id) => store.providers.get(id),
      connectionById: (id) => store.connections.get(id),
      keyById: (id) => keys.get(id) ?? null,
      pricer,
      budgets,
      onCrossing,
    }),
    handlers: {
      getUsage: (q) => report(q),
      getUsageCsv: (q) => rawResponse("text/csv; charset=utf-8", usageCsv(report(q))),
    } satisfies Pick<ContractHandlers, "getUsage" | "getUsageCsv">,
  };
}
