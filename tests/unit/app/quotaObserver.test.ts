// R21.7 headless: the quota observer announces a window's threshold as the event quota.threshold and a
// log line of ids and numbers only.
import { describe, expect, it } from "vitest";
import type { SwitchyardEvent } from "../../../shared/types.js";
import { createEventBus } from "../../../main/app/eventBus.js";
import { createQuotaObserver } from "../../../main/app/quotaObserver.js";
import { openHarness, connectionInput, providerInput } from "../store/storeFixture.js";

describe("R21.7 quota observer", () => {
  it("R21.7 80 % of a window is an event and a log line, once; the rise is charged to the session", () => {
    const h = openHarness();
    try {
      h.store.providers.create(providerInput("p"));
      h.store.connections.create(connectionInput("c1", "p"));
      const bus = createEventBus();
      const seen: SwitchyardEvent[] = [];
      bus.subscribe((e) => seen.push(e));
      const lines: Array<[string, Record<string, unknown>, string]> = [];
      const logger = { warn: (f: Record<string, unknown>, m: string) => lines.push(["warn", f, m]) };
      const observer = createQuotaObserver(h.store, bus, undefined, logger);
      const headers = (u: number) => ({ "anthropic-ratelimit-unified-5h-utilization": String(u), "anthropic-ratelimit-unified-5h-reset": "2000000000", "x-secret": "sk-never" });
      observer.observe("c1", "p", headers(0.5), 1_000, { session: "s1", trafficClass: "main" });
      observer.observe("c1", "p", headers(0.85), 2_000, { session: "s1", trafficClass: "subagent" });
      observer.observe("c1", "p", headers(0.9), 3_000, { session: "s2", trafficClass: "main" });
      expect(seen).toEqual([{ type: "quota.threshold", connectionId: "c1", window: "5h", percent: 80, at: 2_000 }]);
      expect(lines).toEqual([["warn", { connectionId: "c1", provider: "p", window: "5h", percent: 80 }, "quota: connection c1 has used 80 % of its 5h window"]]);
      expect(h.store.quotas.list()[0].sessions).toEqual([
        { session: "s1", usedPercent: 35, requests: 1, byClass: { subagent: 35 } },
        { session: "s2", usedPercent: 5, requests: 1, byClass: { main: 5 } },
      ]);
      expect(JSON.stringify(lines)).not.toContain("sk-never");
    } finally {
      h.cleanup();
    }
  });
});
