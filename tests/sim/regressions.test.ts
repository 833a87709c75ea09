// Every failing seed the mixed-use simulation found (R24.6), kept as a regression case: each runs its
// seed for as many requests as it took to fail, and every invariant must hold (docs/simulation.md).
//
// OPEN: seeds whose bug is still open — they fail, on purpose, until the bug named beside them is
// fixed. Nothing is skipped: fix the bug, see the case pass, and move it to FIXED.
// FIXED: seeds whose bug was fixed (issue 38: R24.1–R24.5, and the window that runs out after output
// with no reset in its error event); each must keep passing.
import { describe, expect, it } from "vitest";
import { reproducerLine, runSimulation } from "./run.js";

interface RegressionCase {
  seed: number;
  requests: number;
  /** The invariant that broke, and the bug the failure points at. */
  found: string;
}

export const OPEN: RegressionCase[] = [];

export const FIXED: RegressionCase[] = [
  { seed: 2, requests: 6, found: "I1/I10 R24.1: Claude Code's placeholder key `x` is taken as a login: sent upstream on the login connection, and given an account row" },
  { seed: 5, requests: 11, found: "I1/I10 R24.1: Codex's placeholder `switchyard` is taken as a ChatGPT login and sent to the ChatGPT backend" },
  { seed: 1, requests: 2, found: "I1 R24.2: a name the login provider does not list (gemini-x, listed by gemini) goes out on that provider's held work key" },
  { seed: 3, requests: 20, found: "I3 R24.2: an unknown model (claude-haiku-x unlisted) reaches the login provider's held key instead of 404" },
  { seed: 6, requests: 8, found: "I3 R24.2: an unknown model with no login is answered 404 no_executable_targets, not model_not_found" },
  { seed: 9, requests: 24, found: "I3 R24.2: an unknown model is answered 503 all_targets_cooling_down, not 404 model_not_found" },
  { seed: 37, requests: 15, found: "I4 R24.3: a count whose login's window is used up goes to a metered key under billingBoundary.count wait (a reset beyond maxWaitMs)" },
  { seed: 7, requests: 58, found: "I2 R24.4: a Responses stream that fails after keep-alives (window_exhausted) lacks resets_in_seconds/resets_at" },
  { seed: 43, requests: 54, found: "I2 R24.4: an Anthropic stream error event (window_exhausted) after keep-alives lacks retry_after/reset_at" },
  {
    seed: 101,
    requests: 579,
    found:
      "I4 R21.5: a wait for the window's reset forgot the window's failure; the subscription, excluded after the wait by a sibling's 503, let the turn cross to the metered key",
  },
  { seed: 112, requests: 930, found: "I4 R21.5: the same, a main Codex turn under billingBoundary wait crossing to the metered key after its ChatGPT login's 429" },
  { seed: 14, requests: 49, found: "I1 R24.5: a login's account row switched off (active: false) still serves that login" },
  {
    seed: 315,
    requests: 56,
    found:
      "I4 R21.5/R25.1: a Codex turn too long for its ChatGPT login's window (the login used up, billingBoundary wait) was passed over for its size and served on the metered key",
  },
  { seed: 316, requests: 1624, found: "I4 R21.5/R25.1: the same, a compaction request under billingBoundary wait" },
];

function regression({ seed, requests, found }: RegressionCase): void {
  it(`R24.6 seed ${seed} × ${requests} holds every invariant (found: ${found})`, async () => {
    const result = await runSimulation({ seed, requests });
    expect(result.firstByInvariant.map((f) => reproducerLine(seed, requests, f))).toEqual([]);
  }, 120_000);
}

// A suite with no test fails vitest; the open cases join it only when there are any.
if (OPEN.length > 0)
  describe("R24.6 simulation regressions whose bug is still open (expected to fail until fixed)", () => {
    for (const c of OPEN) regression(c);
  });

describe("R24.6 simulation regressions whose bug is fixed", () => {
  for (const c of FIXED) regression(c);
  it("R24.6 every kept seed is listed once", () => {
    const names = [...OPEN, ...FIXED].map((c) => `${c.seed}×${c.requests}`);
    expect(new Set(names).size).toBe(names.length);
  });
});
