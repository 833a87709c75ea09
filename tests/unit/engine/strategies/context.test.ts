// Strategies that read the request's own facts: token estimate, cache hint, session's previous target.
import { describe, expect, it } from "vitest";
import { order as cacheOptimized } from "../../../../main/engine/strategies/cache-optimized.js";
import { order as contextRelay } from "../../../../main/engine/strategies/context-relay.js";
import { cand, keys, statsView } from "./fixtures.js";

const small = cand("small", 0, { contextWindow: 32_000 });
const unknown = cand("unknown", 1);
const mid = cand("mid", 2, { contextWindow: 128_000 });
const big = cand("big", 3, { contextWindow: 1_000_000 });
const list = [small, unknown, mid, big];

const request = (estimatedInputTokens: number | null, previousCandidateKey: string | null = null, cacheHint = false) =>
  statsView({ request: { estimatedInputTokens, previousCandidateKey, cacheHint } });

describe("context-relay (R11.1)", () => {
  it("R11.1 context-relay: a session stays on its previous target while the conversation fits", () => {
    expect(keys(contextRelay(list, request(20_000, "mid")))).toEqual(["mid", "small", "big", "unknown"]);
  });

  it("R11.1 context-relay: once the conversation outgrows the session's target it relays to the first that holds it", () => {
    expect(keys(contextRelay(list, request(200_000, "mid")))).toEqual(["big", "unknown", "mid", "small"]);
  });

  it("R11.1 context-relay: a conversation growing turn by turn moves small → mid → big and never back", () => {
    let previous: string | null = null;
    const served: string[] = [];
    for (const tokens of [10_000, 30_000, 40_000, 120_000, 130_000, 900_000, 5_000]) {
      previous = contextRelay([small, mid, big], request(tokens, previous))[0].key;
      served.push(previous);
    }
    expect(served).toEqual(["small", "small", "mid", "mid", "big", "big", "big"]);
  });

  it("R11.1 context-relay: without a token estimate or a session it is the combo order with unknown windows after known ones", () => {
    expect(keys(contextRelay(list, request(null)))).toEqual(["small", "mid", "big", "unknown"]);
  });
});

describe("cache-optimized (R11.1)", () => {
  const plain = cand("plain", 0, { cacheSupport: false });
  const meta = cand("no-meta", 1);
  const cacheA = cand("cache-a", 2, { cacheSupport: true });
  const cacheB = cand("cache-b", 3, { cacheSupport: true });
  const all = [plain, meta, cacheA, cacheB];

  it("R11.1 cache-optimized: with a cache hint, caching-capable targets first, the rest in combo order", () => {
    expect(keys(cacheOptimized(all, request(null, null, true)))).toEqual(["cache-a", "cache-b", "plain", "no-meta"]);
  });

  it("R11.1 cache-optimized: a session returns to the target holding its warm cache, even one not marked caching", () => {
    expect(keys(cacheOptimized(all, request(null, "cache-b")))).toEqual(["cache-b", "cache-a", "plain", "no-meta"]);
    expect(keys(cacheOptimized(all, request(null, "no-meta", true)))).toEqual(["no-meta", "cache-a", "cache-b", "plain"]);
  });

  it("R11.1 cache-optimized: nothing to cache (no hint, no session) routes in combo order", () => {
    expect(keys(cacheOptimized(all, request(null)))).toEqual(["plain", "no-meta", "cache-a", "cache-b"]);
  });
});
