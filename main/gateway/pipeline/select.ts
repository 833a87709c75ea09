// Which connections of a target may be tried now (DESIGN.md `engine.select(target)`): the engine's
// order (the session's pin first, R7.1), then the features' `candidates` hooks (client logins,
// lease narrowing, budgets, quota cutoff), then the breaker, cooldowns, lockouts and terminal
// states one connection at a time; whatever is skipped is remembered so that the final error can
// say why (R11.5).
import type { Connection } from "../../../shared/types.js";
import type { ConnectionChoice } from "../../engine/connectionOrder.js";
import type { BreakerSnapshot, Clock, ResilienceEngine } from "../../engine/ports.js";
import { exclusionFromConnection } from "../context/outcome.js";
import { accountView } from "../context/clientLogin.js";
import type { ConnectionsPort } from "../context/ports.js";
import type { RequestFeatures } from "../features/index.js";
import type { RequestContext } from "../context/requestContext.js";
import type { CandidateScope } from "../context/candidates.js";
import type { Exclusion } from "../context/outcome.js";
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
}

/** Weights and priorities alone decide (no combo p2c signal): how every plain request chooses. */
export const WEIGHTED_CHOICE: ConnectionChoice = { random: Math.random, latency: null };

/** What selection reads of the request: its features (the `candidates` hook) and its session's pin. */
export interface SelectionRequest {
  readonly features: Pick<RequestFeatures, "candidates">;
  readonly ctx: RequestContext;
}

/** The engine's try order, with the session's pinned connection (if it is one of them) moved to the front. */
function inTryOrder(all: Connection[], ordered: Iterable<Connection>, pinnedId: string | null): Connection[] {
  const pinned = pinnedId === null ? undefined : all.find((c) => c.id === pinnedId);
  const out: Connection[] = pinned ? [pinned] : [];
  for (const c of ordered) if (c !== pinned) out.push(c);
  return out;
}

/** One target's selection as the `candidates` hooks see it. */
class TargetScope implements CandidateScope {
  readonly label: string;
  readonly now: number;
  readonly excludedBy: CandidateScope["excludedBy"];

  constructor(
    private readonly target: Target,
    private readonly deps: SelectionDeps,
    readonly log: SelectionLog,
    private readonly choice: ConnectionChoice,
    private readonly pinnedId: string | null,
  ) {
    this.label = `${target.provider.id}/${target.model}`;
    this.now = deps.clock.now();
    this.excludedBy = deps.engine.exclusionCheck(target.provider, target.model);
  }

  exclude(connection: Connection, reason: Exclusion["reason"], remainingMs: number | null): void {
    this.log.exclusions.push({ target: this.label, reason, remainingMs, provider: this.target.provider.id, connectionId: connection.id });
  }

  order(list: Connection[]): Connection[] {
    return inTryOrder(list, this.deps.engine.connectionOrder(list, this.target.model, this.choice), this.pinnedId);
  }
}

/**
 * Yields the target's connections one at a time, admitting the provider right before each one:
 * a provider that opened its breaker or cooled down during the previous attempt stops yielding.
 * The features' `candidates` hooks (client logins, lease narrowing, budgets, quota cutoff) filter
 * and order the list first; the engine's exclusions are checked one at a time, so a request served
 * by its first connection pays for one check, not for every connection of the provider.
 */
export function* candidatesFor(
  target: Target,
  deps: SelectionDeps,
  log: SelectionLog,
  request: SelectionRequest,
  /** How connections of one priority are chosen: by weight, or by the combo's p2c signal (R4.10). */
  choice: ConnectionChoice = WEIGHTED_CHOICE,
): Generator<Candidate> {
  const { provider } = target;
  // An OPEN breaker excludes the whole target before its connections are even considered;
  // reading the snapshot refreshes it lazily and never consumes the HALF_OPEN probe.
  const breaker = deps.engine.breakerSnapshot(provider);
  if (breaker.state === "OPEN") {
    const now = deps.clock.now();
    log.exclusions.push({ target: `${provider.id}/${target.model}`, reason: "circuit_open", remainingMs: Math.max(0, (breaker.openUntil ?? now) - now), provider: provider.id });
    return;
  }
  const scope = new TargetScope(target, deps, log, choice, request.ctx.session?.pinnedConnectionId() ?? null);
  const listed = deps.connections.listByProvider(provider.id);
  const own = target.connectionId ? listed.filter((c) => c.id === target.connectionId) : listed;
  const excludedBefore = log.exclusions.length;
  const list = request.features.candidates(request.ctx, target, scope.order(own), scope);
  log.connectionCounts.set(provider.id, list.length);
  if (list.length === 0 && log.exclusions.length === excludedBefore) log.exclusions.push({ target: scope.label, reason: "inactive", remainingMs: null, provider: provider.id });
  for (const connection of list) {
    const exclusion = scope.excludedBy(connection);
    if (exclusion) {
      log.exclusions.push(exclusionFromConnection(provider.id, scope.label, exclusion));
      continue;
    }
    if (!log.claim(connection.id, target)) continue;
    const admission = deps.engine.admitProvider(provider);
    if (!admission.allowed) {
      log.exclusions.push({ target: scope.label, reason: admission.reason, remainingMs: admission.retryAfterMs, provider: provider.id });
      return;
    }
    yield { connection, probe: admission.probe };
  }
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
 * breaker, cooldowns and lockouts, and every `candidates` hook again (its budget, the key's
 * connections, the session's lease, the request's login), since any of them may have changed
 * while the request waited. What this second look passes over is not logged: the first one was.
 */
export function sameConnectionAgain(target: Target, deps: SelectionDeps, connectionId: string, request: SelectionRequest): Candidate | null {
  const found = connectionOf(target, deps, connectionId);
  if (!found || deps.engine.breakerSnapshot(target.provider).state === "OPEN") return null;
  // A login's account is chosen again through its client-login connection, by the request's own login.
  const listed = found.accountOf === null ? found : deps.connections.listByProvider(target.provider.id).find((c) => c.id === found.accountOf);
  if (!listed) return null;
  const scope = new TargetScope(target, deps, new SelectionLog(), WEIGHTED_CHOICE, null);
  const connection = request.features.candidates(request.ctx, target, [listed], scope).find((c) => c.id === connectionId);
  if (!connection || scope.excludedBy(connection)) return null;
  const admission = deps.engine.admitProvider(target.provider);
  return admission.allowed ? { connection, probe: admission.probe } : null;
}
