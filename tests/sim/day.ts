// A "day" (R24.6): M requests from every client shape, with the world's events between them:
// upstream faults, subscription windows running out (also inside a 200 stream), restarts of the
// server on the same home, the test clock moving (the gateway's and the simulators' together), lease
// acquire/release, and edits of a login's account row. Drawn in full from the seed before the run.
import { drawRequest, type RequestPlan } from "./clients.js";
import type { Laptop } from "./laptop.js";
import type { Prng } from "./prng.js";

export interface FaultPlan {
  status?: number;
  retryAfter?: number;
  latencyMs?: number;
  reset?: boolean;
  endAfterChunks?: number;
  /** R25.6: an upstream's own x-should-retry. */
  headers?: Record<string, string>;
  /** R25.4: an in-stream error event after this many content chunks. */
  errorEventAfterChunks?: number;
  times: number;
}

export type Step =
  | { kind: "request"; index: number; plan: RequestPlan }
  | { kind: "fault"; provider: string; key: string | null; fault: FaultPlan }
  | { kind: "exhaust"; provider: string; login: string; window: "5h" | "7d"; resetInSeconds: number }
  | { kind: "streamCut"; provider: string; login: string; afterChunks: number }
  | { kind: "clock"; advanceMs: number }
  | { kind: "restart" }
  | { kind: "lease"; action: "acquire" | "release" }
  | { kind: "editAccount"; login: string; patch: { active?: boolean; priority?: number } };

function drawFault(rng: Prng, laptop: Laptop): Step {
  const provider = rng.pick(laptop.providers);
  const held = provider.held.length > 0 && rng.chance(0.6) ? rng.pick(provider.held).key : null;
  const kind = rng.weighted({ burst: 3, outage: 2, overloaded: 1, reset: 1, slow: 1, truncated: 1, refused: 1 });
  const fault: FaultPlan = { times: rng.int(1, 3) };
  // R25.6: a wait over a minute (120 s) is never a Retry-After; the answer says x-should-retry: false.
  if (kind === "burst") Object.assign(fault, { status: 429, retryAfter: rng.pick([1, 2, 30, 120]) });
  if (kind === "outage") fault.status = rng.pick([500, 502]);
  if (kind === "overloaded")
    Object.assign(fault, { status: provider.format === "anthropic" ? 529 : 503, retryAfter: 1, ...(rng.chance(0.5) ? { headers: { "x-should-retry": "true" } } : {}) });
  // R25.6: a target that refuses the credential or does not know the model; when every target fails, the precedence decides.
  if (kind === "refused") Object.assign(fault, { status: rng.pick([401, 403, 404]), times: 1 });
  if (kind === "reset") fault.reset = true;
  if (kind === "slow") fault.latencyMs = rng.int(50, 300);
  if (kind === "truncated") fault.endAfterChunks = rng.int(0, 2);
  // R25.4, drawn from its own fork so the kept seeds' other draws stay as they were: an error event inside
  // a 200 stream, or a 400 refusing the request as malformed (the client's fault, or the gateway's after a translation).
  const attribution = rng.fork("fault-attribution");
  if (attribution.chance(0.3)) {
    const times = fault.times;
    return { kind: "fault", provider: provider.id, key: held, fault: attribution.chance(0.5) ? { times, errorEventAfterChunks: attribution.int(0, 2) } : { times, status: 400 } };
  }
  return { kind: "fault", provider: provider.id, key: held, fault };
}

function drawEvent(rng: Prng, laptop: Laptop): Step | null {
  const kind = rng.weighted({ fault: 6, exhaust: 3, streamCut: 1, clock: 2, restart: 1, lease: laptop.leaseConnection ? 1 : 0, editAccount: 1 });
  const login = laptop.logins.length > 0 ? rng.pick(laptop.logins) : null;
  if (kind === "fault") return drawFault(rng, laptop);
  if (kind === "exhaust" && login) {
    const resetInSeconds = rng.pick([1, 30, 600, 3 * 3_600]);
    return { kind: "exhaust", provider: login.providerId, login: login.name, window: rng.chance(0.8) ? "5h" : "7d", resetInSeconds };
  }
  if (kind === "streamCut" && login) return { kind: "streamCut", provider: login.providerId, login: login.name, afterChunks: rng.pick([0, 0, 1]) };
  if (kind === "clock") return { kind: "clock", advanceMs: rng.pick([5_000, 60_000, 10 * 60_000, 5 * 3_600_000 + 60_000]) };
  if (kind === "restart") return { kind: "restart" };
  if (kind === "lease") return { kind: "lease", action: rng.chance(0.5) ? "acquire" : "release" };
  if (kind === "editAccount" && login) {
    const patch = rng.chance(0.6) ? { active: rng.chance(0.4) } : { priority: rng.int(0, 9) };
    return { kind: "editAccount", login: login.name, patch };
  }
  return null;
}

export function generateDay(rng: Prng, laptop: Laptop, requests: number): Step[] {
  const steps: Step[] = [];
  for (let index = 1; index <= requests; index++) {
    while (rng.chance(0.18)) {
      const event = drawEvent(rng, laptop);
      if (event) steps.push(event);
    }
    steps.push({ kind: "request", index, plan: drawRequest(rng, laptop) });
  }
  // The day ends with the lease handed back, so that everything can be checked at rest.
  if (laptop.leaseConnection) steps.push({ kind: "lease", action: "release" });
  return steps;
}
