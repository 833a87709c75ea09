// One line per strategy for the README: what it reads. What each does, in one line, lives with
// the names in shared/catalog.ts, where the dashboard can read it too.
// Record over the catalog's names, so a new strategy without its line fails to compile.
import type { COMBO_STRATEGIES } from "../../../shared/catalog.js";

type Name = (typeof COMBO_STRATEGIES)[number];

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
