// The plan stage's strategy step (R11.1, D11): a combo's resolved targets are ordered by its
// strategy, and failover then walks that order (R11.3). Each combo keeps its strategy state and
// its RoutingStatsBook in memory — round-robin cursors, strict-random decks, request counts and
// latency samples survive nothing, a restart starts them afresh. No SQLite on this path: model
// metadata comes with the provider (cached by the store), prices it lacks from the price catalogue
// shipped in the package (looked up once per provider version and model), quotas from response
// headers.
import type { Combo, WireFormat } from "../../../../shared/types.js";
import type { ConnectionChoice } from "../../../engine/connectionOrder.js";
import {
  createStrategyState,
  isStrategyName,
  RoutingStatsBook,
  STRATEGIES,
  type Candidate,
  type QuotaInfo,
  type RequestFacts,
  type StrategyState,
} from "../../../engine/strategies/index.js";
import { clientHalf } from "../../formats/index.js";
import type { Target } from "../../context/resolve.js";
import { createPricer, type Pricer } from "../../context/usage/pricing.js";
import type { LearnedQuotas } from "./learnedQuota.js";
import { pinnedTargetFirst, pinnedTargetIndex, type PinnedTarget } from "./sessionTarget.js";

interface ComboMemory {
  state: StrategyState;
  book: RoutingStatsBook;
  /** The combo's strategy (at its last ordering) keeps a session on its previous target. */
  readsPrevious: boolean;
  /** R4.10: its p2c connection choice, remade only when the setting or the random source changes. */
  choice: ConnectionChoice | null;
}

/** Sessions remembered per router for context-relay and cache-optimized; the oldest go first. */
const MAX_REMEMBERED_SESSIONS = 10_000;

function sessionSlot(combo: string, sessionKey: string): string {
  return `${combo}\u0000${sessionKey}`;
}

/**
 * Each target's key, made once: a plan's targets are the memoised resolution's objects, the same
 * on every request until the catalog changes (plan.ts), and a key built anew on every lookup had to
 * be hashed anew by each of the four maps that read it per request (issue 12).
 */
const keys = new WeakMap<Target, string>();

/** What ordering by strategy needs; absent, a combo keeps its stored order. */
export interface PlanRouting {
  router: ComboRouter;
  /** The client's format, whose half reads the body for the strategies that look at it. */
  format: WireFormat;
  body: Record<string, unknown>;
  now: number;
  random: () => number;
  /** The client's session, for strategies that keep a session on its previous target. */
  sessionKey: string | null;
  /** R7.1: the session's live pin; its target goes first whatever the strategy (absent = none). */
  pin?: PinnedTarget | null;
  /** The request, whose input token estimate is made once and shared with the fit check (R25.1). */
  estimate?: { inputTokens(): number };
}

export function candidateKey(target: Target): string {
  let key = keys.get(target);
  if (key === undefined) {
    const base = `${target.provider.id}/${target.model}`;
    key = target.connectionId ? `${base}@${target.connectionId}` : base;
    keys.set(target, key);
  }
  return key;
}

export class ComboRouter {
  private readonly memory = new Map<string, ComboMemory>();
  /** combo + session → the candidate that last answered that session (in memory, like the rest). */
  private readonly lastServed = new Map<string, string>();
  private plainChoice: ConnectionChoice | null = null;

  constructor(
    private readonly quotas: LearnedQuotas,
    private readonly p2cLatencyWeight: () => number,
    private readonly prices: Pick<Pricer, "rates"> = createPricer(),
    /** R25.1: each target's window as the gateway knows it (modelInfo, the catalogue, what refusals taught). */
    private readonly windows: { windowOf(provider: Target["provider"], model: string): number | null } | null = null,
  ) {}

  private memoryOf(combo: string): ComboMemory {
    let m = this.memory.get(combo);
    if (!m) this.memory.set(combo, (m = { state: createStrategyState(), book: new RoutingStatsBook(), readsPrevious: false, choice: null }));
    return m;
  }

  /**
   * The combo's targets in the order its strategy picks; unknown strategy names route as priority.
   * A pinned session's target goes first under every strategy (R7.1). The two strategies that read
   * the session's previous target place it themselves (context-relay moves a conversation that
   * outgrew it), the pin standing in for a previous target this router has not seen served.
   */
  order(combo: Combo, targets: Target[], { format, body, now, random, sessionKey, pin, estimate }: Omit<PlanRouting, "router">): Target[] {
    const name = isStrategyName(combo.strategy) ? combo.strategy : "priority";
    if (name === "priority" || targets.length < 2) return pinnedTargetFirst(targets, pin);
    const memory = this.memoryOf(combo.name);
    const { state, book } = memory;
    // Each strategy says what it reads: only those pay for the estimate or the cache hint, and only
    // those reading the previous target make their combo remember whom each session was served by
    // (a combo switched to one of them starts that memory afresh, as after a restart).
    const { reads } = STRATEGIES[name];
    memory.readsPrevious = reads.previousTarget === true;
    const candidates = targets.map((t, index) => this.candidate(t, index, now, reads.price === true, reads.tokens === true));
    const facts: RequestFacts = {
      estimatedInputTokens: reads.tokens ? (estimate?.inputTokens() ?? clientHalf(format).estimateInputTokens(body)) : null,
      cacheHint: reads.cacheHint ? clientHalf(format).hasCacheHint(body) : false,
      previousCandidateKey: memory.readsPrevious ? this.previousOf(combo.name, targets, sessionKey, pin) : null,
    };
    const ordered = STRATEGIES[name].order(candidates, book.view(facts, this.p2cLatencyWeight()), now, random, state);
    const routed = ordered.map((c) => targets[c.index]);
    return memory.readsPrevious ? routed : pinnedTargetFirst(routed, pin);
  }

  /** The candidate that last answered the session on this combo, else the one its pin names. */
  private previousOf(combo: string, targets: readonly Target[], sessionKey: string | null, pin: PinnedTarget | null | undefined): string | null {
    if (sessionKey === null) return null;
    const served = this.lastServed.get(sessionSlot(combo, sessionKey));
    if (served !== undefined) return served;
    const index = pin ? pinnedTargetIndex(targets, pin) : -1;
    return index === -1 ? null : candidateKey(targets[index]);
  }

  /**
   * How a request chooses among one target's connections of the same priority: a p2c combo with
   * `p2cLatency.weight` > 0 ranks them by its latency and error windows (R4.10), anything else by
   * connection weight. Made once and kept, so the common case allocates nothing per request.
   */
  connectionChoice(combo: Combo | undefined, random: () => number): ConnectionChoice {
    const weight = combo?.strategy === "p2c" ? this.p2cLatencyWeight() : 0;
    if (combo && weight > 0) {
      const memory = this.memoryOf(combo.name);
      if (memory.choice?.random !== random || memory.choice.latency?.weight !== weight) memory.choice = { random, latency: { weight, windows: memory.book } };
      return memory.choice;
    }
    if (this.plainChoice?.random !== random) this.plainChoice = { random, latency: null };
    return this.plainChoice;
  }

  private candidate(t: Target, index: number, now: number, readsPrice: boolean, readsWindow: boolean): Candidate {
    const info = t.provider.modelInfo?.[t.model];
    const quota: QuotaInfo | undefined = this.quotas.forTarget(t.provider.id, t.model, t.connectionId, now);
    const candidate: Candidate = { key: candidateKey(t), index, weight: t.weight ?? 1, connectionId: t.connectionId, ...info, quota };
    if (readsPrice && info?.inputPricePerMTok === undefined) this.priceFromCatalog(candidate, t);
    const window = readsWindow && this.windows ? this.windows.windowOf(t.provider, t.model) : null;
    if (window !== null) candidate.contextWindow = window;
    return candidate;
  }

  /**
   * R18.1: a target whose modelInfo names no input price is priced as its cost will be, from the
   * shipped catalogue (a tiered price by its base rate); a model the catalogue lacks stays unpriced.
   */
  private priceFromCatalog(candidate: Candidate, t: Target): void {
    const rates = this.prices.rates(t.provider, t.model);
    if (rates?.source !== "catalog") return;
    if (rates.input) candidate.inputPricePerMTok = rates.input.base;
    if (rates.output) candidate.outputPricePerMTok = rates.output.base;
  }

  /** An attempt on `target` of `combo` left. */
  dispatched(combo: string, target: Target): void {
    this.memoryOf(combo).book.dispatched(candidateKey(target));
  }

  /** The attempt ended; a null outcome says nothing about the upstream (client gone). */
  settled(combo: string, target: Target, connectionId: string, outcome: { ok: boolean; ttfbMs: number } | null, now: number, sessionKey: string | null = null): void {
    const key = candidateKey(target);
    const memory = this.memoryOf(combo);
    memory.book.settled(key, connectionId, outcome, now, target.model);
    if (outcome?.ok && sessionKey !== null && memory.readsPrevious) this.rememberServed(sessionSlot(combo, sessionKey), key);
  }

  private rememberServed(slot: string, key: string): void {
    this.lastServed.delete(slot);
    this.lastServed.set(slot, key);
    if (this.lastServed.size > MAX_REMEMBERED_SESSIONS) {
      const oldest = this.lastServed.keys().next();
      if (!oldest.done) this.lastServed.delete(oldest.value);
    }
  }
}
