// Warm caches and wait-or-switch (R20.2, R20.4) as a feature: on arrival the connection holding the
// session's warm prompt cache is noted; after a short 429 on it the request waits for it rather than
// re-sending the whole prefix to a cold connection, as long as the wait stays within
// waitOrSwitch.maxWaitMs; when the request ends, the warm cache follows its answer. A compaction
// Claude Code announces (R25.5) ends the hold: the old prefix is not what the next request sends.
import type { IncomingHttpHeaders } from "node:http";
import { decideWaitOrSwitch, type CodingAgentSettings } from "../../engine/agentPolicy.js";
import { ContextVar } from "../context/requestContext.js";
import type { Clock } from "../../engine/ports.js";
import type { Target } from "../context/resolve.js";
import type { WarmCaches } from "./warmCache/warmCaches.js";
import type { RequestFeature } from "./feature.js";

export interface WarmCacheDeps {
  settings: () => CodingAgentSettings;
  warmCaches: WarmCaches;
  clock: Clock;
  /** How long a connection stays excluded for a target after a failure (0: free now; null: no end known); selection's answer. */
  blockedForMs: (target: Target, connectionId: string) => number | null;
}

const SESSION = new ContextVar<string>("warm session");
/** R20.2: the connection holding the session's warm cache when the request arrived (the feature's own, the row only records it). */
const WARM_ON = new ContextVar<string | null>("warm connection");
const WAITED = new ContextVar<{ ms: number }>("warm waits");

/** R25.5: Claude Code's gateway hint that the conversation was just compacted (`auto`, `manual` or `reactive`). */
export const CONTEXT_COMPACTED_HEADER = "x-claude-code-context-compacted";

function hasHeader(headers: IncomingHttpHeaders, name: string): boolean {
  const value = headers[name];
  return (Array.isArray(value) ? (value[0] ?? "") : (value ?? "")).trim() !== "";
}

export function warmCacheFeature(deps: WarmCacheDeps): RequestFeature {
  return {
    name: "warm-cache",
    arrive(ctx) {
      const key = ctx.session?.key ?? null;
      // R25.5: Claude Code says so on the first request after a compaction; the new prefix is cold everywhere.
      if (key !== null && hasHeader(ctx.headers, CONTEXT_COMPACTED_HEADER)) deps.warmCaches.forget(key);
      if (key === null || !ctx.movesSession) return null;
      const warmOn = deps.warmCaches.holder(key, deps.clock.now());
      ctx.record.warmCacheOn(warmOn);
      ctx.set(SESSION, key);
      ctx.set(WARM_ON, warmOn);
      return null;
    },
    afterAttempt(ctx, { target, connection, result }) {
      // R22.2: keep-alives are not output; only content the client received rules a wait out.
      if (result.kind !== "failure" || ctx.client.outputStarted) return null;
      let waited = ctx.get(WAITED);
      const decision = decideWaitOrSwitch(deps.settings(), {
        trafficClass: ctx.trafficClass,
        verdict: result.verdict,
        connectionId: connection.id,
        warmConnectionId: ctx.get(WARM_ON) ?? null,
        blockedMs: deps.blockedForMs(target, connection.id),
        waitedMs: waited?.ms ?? 0,
      });
      if (!decision) return null;
      ctx.record.decided(decision.record);
      if (decision.record.choice === "switch") return null;
      if (!waited) ctx.set(WAITED, (waited = { ms: 0 }));
      waited.ms += decision.waitMs;
      return { kind: "retry_same", waitMs: decision.waitMs };
    },
    finish(ctx, row) {
      const key = ctx.get(SESSION);
      if (key !== undefined) deps.warmCaches.answered(key, row, deps.clock.now());
    },
  };
}
