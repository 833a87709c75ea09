// Inputs of the combo routing strategies (R11.1, D11, R4.10). A strategy only orders what the plan
// stage already resolved; eligibility (breaker, cooldown, lockout, lease) is decided elsewhere.
// Metadata is optional on purpose: it comes from explicit config, the shipped price catalogue or
// learned response headers, and a strategy that lacks it keeps those candidates in combo order
// after the ones that have it.

/** What a provider told us about its quota, from response headers (x-ratelimit-*, anthropic-ratelimit-*). */
export interface QuotaInfo {
  /** Requests (or the header's unit) left in the current window. */
  remaining?: number;
  /** Size of the window's allowance, in the same unit as `remaining`. */
  limit?: number;
  /** Epoch ms at which the window refills. Once past, `remaining` is stale and treated as unknown. */
  resetAt?: number;
}

/** One combo target after resolution (nested combos expanded, optional connection pin applied). */
export interface Candidate {
  /** Stable identity, e.g. "provider/model" or "provider/model@connection". */
  key: string;
  /** Position in the combo (0 = first); the tie-breaker of every strategy. */
  index: number;
  /** Per-target weight, ≥ 0 (the combo target's `weight`, default 1). */
  weight: number;
  /** The pinned connection, when the target names one; p2c then compares per-connection samples too. */
  connectionId?: string;
  /** Price per million input tokens: the provider's modelInfo, else the shipped price catalogue (R18.1). */
  inputPricePerMTok?: number;
  /** Price per million output tokens, from the same source as the input price. */
  outputPricePerMTok?: number;
  /** Context window in tokens, from model metadata. */
  contextWindow?: number;
  /** Whether the model supports prompt caching, from model metadata. */
  cacheSupport?: boolean;
  /** Quota learned from the last response headers of this target. */
  quota?: QuotaInfo;
}

/** One finished attempt, for the R4.10 latency and error signal. */
export interface LatencySample {
  /** Epoch ms when the attempt finished. */
  at: number;
  /** Time to first byte in ms. */
  ttfbMs: number;
  ok: boolean;
}

/** What routing remembers about one candidate of one combo, in memory only. */
export interface CandidateStats {
  /** Requests dispatched to this candidate since start (least-used reads it). */
  requests: number;
  /** Epoch ms of the last success, null when none (lkgp reads it). */
  lastSuccessAt: number | null;
  /** Epoch ms of the last failure, null when none. */
  lastFailureAt: number | null;
  /** Attempts dispatched and not yet settled. */
  inFlight: number;
  /** R4.10 window (last 20 within 15 min) of this target: connection+model when pinned, else the model over its connections. */
  samples: readonly LatencySample[];
}

/** Facts about the request being routed, for the context-* and cache-* strategies. */
export interface RequestFacts {
  /** Estimated input tokens of this request; null when not estimated. */
  estimatedInputTokens: number | null;
  /** The request asks for prompt caching (prompt_cache_key, cache_control, …). */
  cacheHint: boolean;
  /** Key of the candidate that served the previous request of the same session, if any. */
  previousCandidateKey: string | null;
}

/** Read-only view the plan stage hands to a strategy; built from in-memory state, never SQLite. */
export interface RoutingStats {
  /** By Candidate.key; a candidate never seen has no entry. */
  candidates: ReadonlyMap<string, CandidateStats>;
  /** R4.10 window per connection id, across all its models. */
  connections: ReadonlyMap<string, readonly LatencySample[]>;
  request: RequestFacts;
  /** R4.10 `p2cLatency.weight`, 0–20; 0 switches the latency and error signal off. */
  p2cLatencyWeight: number;
}

/** R4.10 windows by connection, for ranking one target's connections (RoutingStatsBook keeps them). */
export interface ConnectionWindows {
  /** The connection's window for `model`, or across all its models when `model` is null. */
  connectionWindow(connectionId: string, model: string | null): readonly LatencySample[] | undefined;
}

/**
 * Per-combo memory of the stateful strategies. In memory only: lost on restart, which is harmless
 * (round-robin restarts at the first target, strict-random deals a fresh deck).
 */
export interface StrategyState {
  /** round-robin: how many requests were routed (the next start position, modulo the size). */
  cursor: number;
  /** strict-random: keys still to be dealt in this cycle, next first. */
  deck: string[];
  /** strict-random: the candidate keys the deck was shuffled for; a change starts a new cycle. */
  deckOf: string[];
}

export function createStrategyState(): StrategyState {
  return { cursor: 0, deck: [], deckOf: [] };
}

/** `order` returns a permutation of `candidates`: every one exactly once, so failover walks on. */
export type OrderFn = (candidates: readonly Candidate[], stats: RoutingStats, now: number, random: () => number, state: StrategyState) => Candidate[];

/** What a strategy reads, next to its `order`: the router computes a request fact only for the strategies that say they read it. */
export interface StrategyReads {
  /** In words, for the README's strategy table (a test holds the two together). */
  inputs: string;
  /** The request's estimated input tokens. */
  tokens?: true;
  /** The session's previous target (its combo then remembers whom each session was served by). */
  previousTarget?: true;
  /** Whether the request asks for prompt caching. */
  cacheHint?: true;
  /** Model prices: the catalogue is looked up only for these (modelInfo prices come with the provider). */
  price?: true;
}

export interface Strategy {
  order: OrderFn;
  reads: StrategyReads;
}
