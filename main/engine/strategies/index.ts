// The registry of combo routing strategies (R11.1): one module per strategy, each an `order`
// returning a permutation of the resolved targets. Typed as a Record over the catalog's names, so
// a strategy missing here fails to compile.
import type { COMBO_STRATEGIES } from "../../../shared/catalog.js";
import * as auto from "./auto.js";
import * as cacheOptimized from "./cache-optimized.js";
import * as contextOptimized from "./context-optimized.js";
import * as contextRelay from "./context-relay.js";
import * as costOptimized from "./cost-optimized.js";
import * as fillFirst from "./fill-first.js";
import * as fusion from "./fusion.js";
import * as headroom from "./headroom.js";
import * as leastUsed from "./least-used.js";
import * as lkgp from "./lkgp.js";
import * as p2c from "./p2c.js";
import * as pipeline from "./pipeline.js";
import * as priority from "./priority.js";
import * as quotaWeighted from "./quota-weighted.js";
import * as random from "./random.js";
import * as resetAware from "./reset-aware.js";
import * as resetWindow from "./reset-window.js";
import * as roundRobin from "./round-robin.js";
import * as strictRandom from "./strict-random.js";
import type { Strategy } from "./types.js";
import * as weighted from "./weighted.js";

export type StrategyName = (typeof COMBO_STRATEGIES)[number];

export const STRATEGIES: Record<StrategyName, Strategy> = {
  priority,
  weighted,
  "round-robin": roundRobin,
  "fill-first": fillFirst,
  p2c,
  random,
  "strict-random": strictRandom,
  "least-used": leastUsed,
  "cost-optimized": costOptimized,
  "reset-aware": resetAware,
  "reset-window": resetWindow,
  headroom,
  "quota-weighted": quotaWeighted,
  lkgp,
  "context-optimized": contextOptimized,
  "context-relay": contextRelay,
  "cache-optimized": cacheOptimized,
  auto,
  fusion,
  pipeline,
};

export function isStrategyName(name: string): name is StrategyName {
  return Object.hasOwn(STRATEGIES, name);
}

export { RoutingStatsBook, type AttemptOutcome } from "./routingStatsBook.js";
export { STRATEGY_SUMMARIES } from "../../../shared/catalog.js";
/** What each strategy reads, in words, from the modules themselves (the README's table is held to it). */
// eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- one entry per StrategyName; fromEntries cannot type keys
export const STRATEGY_INPUTS = Object.fromEntries(Object.entries(STRATEGIES).map(([name, s]) => [name, s.reads.inputs])) as Record<StrategyName, string>;
export { createStrategyState } from "./types.js";
export type { Candidate, CandidateStats, ConnectionWindows, LatencySample, OrderFn, QuotaInfo, RequestFacts, RoutingStats, Strategy, StrategyState } from "./types.js";
