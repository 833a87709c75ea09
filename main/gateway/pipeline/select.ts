// Which connections of a target may be tried now (DESIGN.md `engine.select(target)`): the
// breaker, cooldowns, lockouts and terminal states decide; whatever is skipped is remembered
// so that the final error can say why (R11.5). Session pins and leases (R7) then narrow and order
// what is eligible.
import type { Connection } from "../../../shared/types.js";
import type { ConnectionChoice } from "../../engine/connectionOrder.js";
import type { BreakerSnapshot, Clock, ResilienceEngine } from "../../engine/ports.js";
import { exclusionFromConnection } from "../context/outcome.js";
import { accountView } from "../context/clientLogin.js";
import { upstreamFormatOf } from "../formats/index.js";
import type { BudgetPort, ConnectionsPort } from "../context/ports.js";
import type { RequestSession } from "../context/requestSession.js";
import { cutoffPercentFor, lowOnQuotaLast, type QuotaCutoffPort } from "./quotaCutoff.js";
import type { Target } from "../context/resolve.js";

export type SelectionEngine = Pick<ResilienceEngine, "admitProvider" | "connectionOrder" | "exclusionCheck"> & {
  breakerSnapshot: (provider: Target["provider"]) => BreakerSnapshot;
};

export interface Candidate {
  connection: Connection;
  /** Admitted as the HALF_OPEN probe: it must be recorded (or released) exactly once. */
  probe: boolean;
}

import { SelectionLog } from "../context/attempt.js";
export { SelectionLog };

export interface SelectionDeps {
  engine: SelectionEngine;
  connections: ConnectionsPort;
  clock: Clock;
  budgets?: BudgetPort;
  /** quotaPreflightCutoff: the setting and the learned quotas (absent = off). */
  quotaCutoff?: QuotaCutoffPort;
}

/** Weights and priorities alone decide (no combo p2c signal): how every plain request chooses. */
export const WEIGHTED_CHOICE: ConnectionChoice = { random: Math.random, latency: null };

/** The engine's try order, with the session's pinned connection (if it is one of them) moved to the front. */
function* inTryOrder(all: Connection[], ordered: Iterable<Connection>, pinnedId: string | null): Generator<Connection> {
  const pinned = pinnedId === null ? undefined : all.find((c) => c.id === pinnedId);
  if (pinned) yield pinned;
  for (const c of ordered) if (c !== pinned) yield c;
}

/**
 * Yields the target's connections one at a time, admitting the provider right before each one:
 * a provider that opened its breaker or cooled down during the previous attempt stops yielding.
 */
export function* candidatesFor(
  target: Target,
  deps: SelectionDeps,
  log: SelectionLog,
  allowed: Set<string> | null,
  session: RequestSession | null = null,
  /** How connections of one priority are chosen: by weight, or by the combo's p2c signal (R4.10). */
  choice: ConnectionChoice = WEIGHTED_CHOICE,
): Generator<Candidate> {
  const { provider } = target;
  const name = `${provider.id}/${target.model}`;
  // An OPEN breaker excludes the whole target before its connections are even considered;
  // reading the snapshot refreshes it lazily and never consumes the HALF_OPEN probe.
  const breaker = deps.engine.breakerSnapshot(provider);
  if (breaker.state === "OPEN") {
    const now = deps.clock.now();
    log.exclusions.push({ target: name, reason: "circuit_open", remainingMs: Math.max(0, (breaker.openUntil ?? now) - now), provider: provider.id });
    return;
  }
  const listed = withLoginAccounts(deps, provider, name, deps.connections.listByProvider(provider.id), log);
  const all = allowed ? listed.filter((c) => allowed.has(c.id) || (c.accountOf !== null && allowed.has(c.accountOf))) : listed;
  log.connectionCounts.set(provider.id, all.length);
  if (all.length === 0) log.exclusions.push({ target: name, reason: "inactive", remainingMs: null, provider: provider.id });
  // Checked one at a time, so a request served by its first connection pays for one check,
  // not for every connection of the provider; the exclusions matter only if all are tried.
  const excludedBy = deps.engine.exclusionCheck(provider, target.model);
  const tryOrder = inTryOrder(all, deps.engine.connectionOrder(all, target.model, choice), session?.pinnedConnectionId() ?? null);
  const cutoff = cutoffPercentFor(deps.quotaCutoff, target, all.length);
  const ordered =
    cutoff === null
      ? tryOrder
      : lowOnQuotaLast(tryOrder, target, cutoff, {
          port: deps.quotaCutoff!,
          now: deps.clock.now(),
          passedOver: log.quotaCutoff,
          servable: (c) => !excludedBy(c) && (deps.budgets?.connectionOverBudgetMs(c) ?? null) === null && (!session || session.isFree(c)),
        });
  for (const connection of ordered) {
    const exclusion = excludedBy(connection);
    if (exclusion) {
      if (!target.connectionId || target.connectionId === connection.id) log.exclusions.push(exclusionFromConnection(provider.id, name, exclusion));
      continue;
    }
    // R18.4: over its budget, a connection waits for its period to end like a cooldown.
    const budgetMs = deps.budgets?.connectionOverBudgetMs(connection) ?? null;
    if (budgetMs !== null) {
      if (!target.connectionId || target.connectionId === connection.id)
        log.exclusions.push({ target: name, reason: "budget", remainingMs: budgetMs, provider: provider.id, connectionId: connection.id });
      continue;
    }
    if (target.connectionId && connection.id !== target.connectionId) continue;
    if (session && !session.isFree(connection)) {
      log.leased.push({ provider: provider.id, target: name, connectionId: connection.id });
      continue;
    }
    if (!log.claim(connection.id, target)) continue;
    const admission = deps.engine.admitProvider(provider);
    if (!admission.allowed) {
      log.exclusions.push({ target: name, reason: admission.reason, remainingMs: admission.retryAfterMs, provider: provider.id });
      return;
    }
    yield { connection, probe: admission.probe };
  }
}

/**
 * R21.1, R21.2: the provider's connections as this request may use them. A login's account is never
 * chosen by itself; a client-login connection serves the request's own login as that login's
 * account, and is skipped (`no_client_credential`) when the request carries none. Providers without
 * a client-login connection pay one pass over their list.
 */
function withLoginAccounts(deps: SelectionDeps, provider: Target["provider"], target: string, listed: Connection[], log: SelectionLog): Connection[] {
  if (!listed.some((c) => c.credential === "client")) return listed;
  const providerId = provider.id;
  // Same format only: a login never crosses into another format, and is never translated.
  const login = log.login && upstreamFormatOf(provider, log.login.format) === log.login.format ? log.login : null;
  const out: Connection[] = [];
  for (const c of listed) {
    if (c.accountOf !== null) continue;
    if (c.credential !== "client") out.push(c);
    else if (login && c.active && deps.connections.accountFor) out.push(deps.connections.accountFor(c, login));
    else log.exclusions.push({ target, reason: "no_client_credential", remainingMs: null, provider: providerId, connectionId: c.id });
  }
  return out;
}

function connectionOf(target: Target, deps: SelectionDeps, connectionId: string): Connection | undefined {
  const listed = deps.connections.listByProvider(target.provider.id);
  const found = listed.find((c) => c.id === connectionId);
  if (!found || found.accountOf === null) return found;
  const template = listed.find((c) => c.id === found.accountOf);
  return template && deps.connections.accountFor ? accountView(template, found) : undefined;
}

/** R20.4: how long a connection stays excluded for this target after a failure (0: free now; null: no end known). */
export function blockedForMs(target: Target, deps: SelectionDeps, connectionId: string): number | null {
  const connection = connectionOf(target, deps, connectionId);
  if (!connection) return null;
  const exclusion = deps.engine.exclusionCheck(target.provider, target.model)(connection);
  if (!exclusion) return 0;
  return exclusion.reason === "cooling_down" || exclusion.reason === "model_lockout" ? exclusion.remainingMs : null;
}

/**
 * R20.4: the same connection once more after a wait for it, when nothing excludes it now: its
 * breaker, cooldowns and lockouts, its budget (R18.4), the key's connections and the session's
 * lease (R7.2) are checked again, since any of them may have changed while the request waited.
 */
export function sameConnectionAgain(
  target: Target,
  deps: SelectionDeps,
  connectionId: string,
  scope: { allowed: Set<string> | null; session: RequestSession | null },
): Candidate | null {
  const connection = connectionOf(target, deps, connectionId);
  if (!connection || deps.engine.breakerSnapshot(target.provider).state === "OPEN") return null;
  if (deps.engine.exclusionCheck(target.provider, target.model)(connection)) return null;
  if ((deps.budgets?.connectionOverBudgetMs(connection) ?? null) !== null) return null;
  if (
    (scope.allowed && !scope.allowed.has(connection.id) && !(connection.accountOf !== null && scope.allowed.has(connection.accountOf))) ||
    (scope.session && !scope.session.mayStillUse(connection))
  )
    return null;
  const admission = deps.engine.admitProvider(target.provider);
  return admission.allowed ? { connection, probe: admission.probe } : null;
}
