// How V8 places a gateway's objects (issue 12). V8 "pretenures" an allocation site (an object or
// array literal in the code) once most of what it allocated survived a scavenge: later objects from
// that site are then born in the old generation. A gateway's warm-up and bursts make exactly its
// per-request literals look long-lived (many requests in flight while the young generation is
// still small), and the decision is never taken back. From then on every request leaves objects in
// the old generation that point at its young ones, so each scavenge treats the whole request graph
// as alive and promotes it: measured on the json load, 2 MB promoted and 4–6 ms per scavenge
// instead of 0.5 MB and 1.5–2 ms, a quarter of the CPU per request, and an old generation that
// grows by ~40 MB/s between full collections (the RSS after load). A request's objects die with
// the request; they belong in the young generation, so the gateway process turns pretenuring off.
import v8 from "node:v8";

/** The V8 flags a serving process runs with. */
export const SERVING_V8_FLAGS = ["--no-allocation-site-pretenuring"] as const;

/**
 * Applies SERVING_V8_FLAGS to the running isolate. Called first thing by the processes that serve
 * (the `serve` command, the desktop main), before the gateway's code runs and is optimised.
 */
export function applyServingHeapPolicy(setFlags: (flag: string) => void = (flag) => v8.setFlagsFromString(flag)): void {
  for (const flag of SERVING_V8_FLAGS) setFlags(flag);
}
