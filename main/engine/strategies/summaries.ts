// One line per strategy for the dashboard (what it does) and the README (what it reads).
// Record over the catalog's names, so a new strategy without its lines fails to compile.
import type { COMBO_STRATEGIES } from "../../../shared/catalog.js";

type Name = (typeof COMBO_STRATEGIES)[number];

export const STRATEGY_SUMMARIES: Record<Name, string> = {
  priority: "Always the first target; the others only when it fails.",
  weighted: "Random by target weight (1:3 gives about 25 %/75 %); all weights 0 means uniform.",
  "round-robin": "Each request starts at the next target: a, b, c, a, …",
  "fill-first": "The first target until its quota is used up, then the next.",
  p2c: "Two random targets, the less loaded one first (optionally also the faster, more reliable one).",
  random: "A uniformly random target on every request.",
  "strict-random": "Random without repeats: every target leads once per cycle of a shuffled deck.",
  "least-used": "The target with the fewest requests so far.",
  "cost-optimized": "The cheapest input price first.",
  "reset-aware": "Spend first the quota that resets soonest.",
  "reset-window": "The target with the most quota left per second until its reset.",
  headroom: "The target with the largest share of its quota left.",
  "quota-weighted": "Random in proportion to the quota each target has left.",
  lkgp: "The target that last answered successfully, then the combo order.",
  "context-optimized": "The largest context window first.",
  "context-relay": "Stay on the session's target while the conversation fits, then move to one that holds it.",
  "cache-optimized": "Keep a session on the target with its warm prompt cache, then caching-capable targets.",
  auto: "The healthiest target by error rate, latency, load and quota, decided without randomness.",
  fusion: "A blend of the combo order, price, context window, quota left and health rankings.",
  pipeline: "The target with the fewest requests in flight, so concurrent requests spread out.",
};

export const STRATEGY_INPUTS: Record<Name, string> = {
  priority: "combo order",
  weighted: "target weight",
  "round-robin": "combo order; in-memory cursor per combo",
  "fill-first": "learned quota headers (remaining, resetAt)",
  p2c: "in-flight count, learned quota headers; with p2cLatency.weight > 0 also latency/error samples",
  random: "nothing",
  "strict-random": "in-memory deck per combo",
  "least-used": "in-memory request count per target",
  "cost-optimized": "model metadata: inputPricePerMTok, outputPricePerMTok",
  "reset-aware": "learned quota headers (remaining, resetAt)",
  "reset-window": "learned quota headers (remaining, resetAt)",
  headroom: "learned quota headers (remaining, limit, resetAt)",
  "quota-weighted": "learned quota headers (remaining, resetAt)",
  lkgp: "in-memory last success time per target",
  "context-optimized": "model metadata: contextWindow",
  "context-relay": "model metadata: contextWindow; request token estimate; session's previous target",
  "cache-optimized": "model metadata: cacheSupport; request cache hint; session's previous target",
  auto: "latency/error samples, in-flight count, learned quota headers",
  fusion: "everything cost-optimized, context-optimized, headroom and auto read",
  pipeline: "in-memory in-flight count per target",
};
