// R24.6 in `npm test`: a bounded run of the mixed-use simulation (docs/simulation.md) — a few seeded
// laptops and days against the real server and simulators, every invariant checked after every
// request. A failure names the one line that reproduces it with `npm run sim`.
import { describe, expect, it } from "vitest";
import { reproducerLine, runSimulation } from "./run.js";

/** Three days of 100 requests: about 30 s on a 2-core machine. */
const BOUNDED = [
  { seed: 2024, requests: 100 },
  { seed: 31337, requests: 100 },
  { seed: 8642, requests: 100 },
];

describe("R24.6 mixed use, simulated (bounded run)", () => {
  for (const { seed, requests } of BOUNDED) {
    it(`R24.6 seed ${seed}: ${requests} requests of every client shape hold every invariant`, async () => {
      const result = await runSimulation({ seed, requests });
      expect(result.firstByInvariant.map((f) => reproducerLine(seed, requests, f))).toEqual([]);
    }, 90_000);
  }
});
