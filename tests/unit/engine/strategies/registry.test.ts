// The registry covers exactly the catalog's strategies, and every order is a permutation. Each
// strategy says what it reads (issue 26): what it does not declare cannot change its order, and
// the README's strategy table is the modules' own words.
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { COMBO_STRATEGIES } from "../../../../shared/catalog.js";
import { isStrategyName, STRATEGIES, STRATEGY_INPUTS, STRATEGY_SUMMARIES } from "../../../../main/engine/strategies/index.js";
import { createStrategyState, type Candidate } from "../../../../main/engine/strategies/types.js";
import { NOW, samples, seeded, statsView } from "./fixtures.js";

const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

const candidateList = fc.array(
  fc.record({
    weight: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 100, noNaN: true })),
    inputPricePerMTok: maybe(fc.double({ min: 0, max: 100, noNaN: true })),
    contextWindow: maybe(fc.integer({ min: 1_000, max: 2_000_000 })),
    cacheSupport: maybe(fc.boolean()),
    connectionId: maybe(fc.constantFrom("c1", "c2")),
    quota: maybe(
      fc.record({
        remaining: maybe(fc.integer({ min: 0, max: 500 })),
        limit: maybe(fc.integer({ min: 0, max: 500 })),
        resetAt: maybe(fc.integer({ min: NOW - 60_000, max: NOW + 60_000 })),
      }),
    ),
    requests: fc.integer({ min: 0, max: 50 }),
    inFlight: fc.integer({ min: 0, max: 3 }),
    sampleCount: fc.integer({ min: 0, max: 25 }),
    ttfb: fc.integer({ min: 1, max: 2_000 }),
  }),
  { minLength: 0, maxLength: 12 },
);

function isPermutation(ordered: readonly Candidate[], input: readonly Candidate[]): boolean {
  const seen = new Set(ordered);
  return ordered.length === input.length && seen.size === input.length && input.every((c) => seen.has(c));
}

describe("strategy registry (R11.1)", () => {
  it("R11.1 the registry, its summaries and inputs name exactly the 20 catalog strategies", () => {
    expect(Object.keys(STRATEGIES).sort()).toEqual([...COMBO_STRATEGIES].sort());
    expect(Object.keys(STRATEGY_SUMMARIES).sort()).toEqual([...COMBO_STRATEGIES].sort());
    expect(Object.keys(STRATEGY_INPUTS).sort()).toEqual([...COMBO_STRATEGIES].sort());
    expect(COMBO_STRATEGIES).toHaveLength(20);
    expect(isStrategyName("weighted")).toBe(true);
    expect(isStrategyName("toString")).toBe(false);
  });

  it("R11.1 every strategy returns a permutation of its input, for any targets, stats and request", () => {
    fc.assert(
      fc.property(candidateList, fc.integer(), fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 300_000 }), (rows, seed, weight, tokens) => {
        const candidates: Candidate[] = rows.map((r, index) => ({ key: `p/m${index}`, index, ...r }));
        const stats = statsView({
          p2cLatencyWeight: weight,
          candidates: Object.fromEntries(rows.map((r, i) => [`p/m${i}`, { requests: r.requests, inFlight: r.inFlight, samples: samples(r.sampleCount, r.ttfb, 0.8) }])),
          connections: { c1: samples(4, 100), c2: samples(5, 300, 0.5) },
          request: { estimatedInputTokens: tokens, cacheHint: seed % 2 === 0, previousCandidateKey: rows.length > 0 ? `p/m${Math.abs(seed) % rows.length}` : null },
        });
        const random = seeded(seed);
        const broken: string[] = [];
        for (const [name, strategy] of Object.entries(STRATEGIES)) {
          const state = createStrategyState();
          for (let round = 0; round < 3; round++) {
            const ordered = strategy.order(candidates, stats, NOW, random, state);
            if (!isPermutation(ordered, candidates)) broken.push(name);
          }
        }
        expect(broken).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it("issue26 R11.1 a request fact a strategy does not declare it reads never changes its order", () => {
    fc.assert(
      fc.property(candidateList, fc.integer(), fc.integer({ min: 0, max: 300_000 }), fc.integer({ min: 0, max: 300_000 }), (rows, seed, tokensA, tokensB) => {
        const candidates: Candidate[] = rows.map((r, index) => ({ key: `p/m${index}`, index, ...r }));
        const facts = [
          { estimatedInputTokens: tokensA, cacheHint: true, previousCandidateKey: rows.length > 0 ? "p/m0" : null },
          { estimatedInputTokens: tokensB, cacheHint: false, previousCandidateKey: rows.length > 1 ? `p/m${rows.length - 1}` : null },
        ];
        const undeclared: string[] = [];
        for (const [name, strategy] of Object.entries(STRATEGIES)) {
          const orderWith = (request: (typeof facts)[number]) => {
            const stats = statsView({
              p2cLatencyWeight: 5,
              candidates: Object.fromEntries(rows.map((r, i) => [`p/m${i}`, { requests: r.requests, inFlight: r.inFlight, samples: samples(r.sampleCount, r.ttfb, 0.8) }])),
              request,
            });
            return strategy.order(candidates, stats, NOW, seeded(seed), createStrategyState()).map((c) => c.key);
          };
          // Each fact in turn takes the second value while the others keep the first.
          const base = orderWith(facts[0]);
          const vary = {
            tokens: { ...facts[0], estimatedInputTokens: facts[1].estimatedInputTokens },
            cacheHint: { ...facts[0], cacheHint: facts[1].cacheHint },
            previousTarget: { ...facts[0], previousCandidateKey: facts[1].previousCandidateKey },
          } as const;
          for (const [fact, request] of Object.entries(vary)) {
            if (strategy.reads[fact as keyof typeof vary]) continue;
            if (orderWith(request).join() !== base.join()) undeclared.push(`${name} reads ${fact}`);
          }
        }
        expect(undeclared).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it("issue26 the README's strategy table is the modules' own summary and inputs, one row per strategy", () => {
    const readme = readFileSync(new URL("../../../../README.md", import.meta.url), "utf8");
    const rows = readme.split("\n").filter((line) => /^\| [a-z0-9-]+ \| /.test(line) && isStrategyName(line.split(" | ")[0].slice(2)));
    const expected = COMBO_STRATEGIES.map((name) => `| ${name} | ${STRATEGY_SUMMARIES[name]} | ${STRATEGY_INPUTS[name]} |`);
    expect(rows).toEqual(expected);
  });
});
