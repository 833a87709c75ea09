// The request timeline's coding-agent facts (R20) in words: traffic class, cache-read share, a warm
// session moved to a cold connection, wait-or-switch decisions and reasoning artifacts removed;
// a row written before these were kept tells nothing extra. And the Usage page's grouping choice.
import { describe, expect, it } from "vitest";
import type { RequestLogEntry } from "../../../shared/types.js";
import { TRAFFIC_CLASSES } from "../../../shared/types.js";
import { USAGE_GROUP_BYS } from "../../../shared/schemas/usage.js";
import { decisionText, TRAFFIC_CLASS_MEANINGS } from "../../../renderer/src/pages/logs/agentSteps.js";
import { timelineOf } from "../../../renderer/src/pages/logs/timeline.js";
import { GROUP_LABELS } from "../../../renderer/src/pages/usage/usageData.js";

const NAMES: Record<string, string> = { "a-1": "Team key", "a-2": "Spare key" };
const names = (id: string | null) => (id ? (NAMES[id] ?? null) : null);

function entry(over: Partial<RequestLogEntry>): RequestLogEntry {
  return {
    id: "r",
    time: 1_000,
    clientFormat: "anthropic",
    model: "anth/m1",
    combo: null,
    provider: "anth",
    connectionId: "a-2",
    status: 200,
    errorCode: null,
    latencyMs: 2_300,
    ttfbMs: 2_250,
    stream: false,
    inputTokens: 2_000,
    outputTokens: 40,
    cacheReadTokens: 1_640,
    costUsd: 0.001,
    costSource: "modelInfo",
    attempts: [
      { provider: "anth", connectionId: "a-1", model: "m1", status: 429, verdict: "rate_limit", latencyMs: 12 },
      { provider: "anth", connectionId: "a-2", model: "m1", status: 200, verdict: null, latencyMs: 90 },
    ],
    ...over,
  };
}

const texts = (e: RequestLogEntry) => timelineOf(e, names).map((s) => `${s.kind}: ${s.text}`);

describe("coding-agent facts in the request timeline", () => {
  it("R20.3 R20.2 tells the traffic class after the receipt and the cache-read share as a percentage after the usage", () => {
    const steps = texts(entry({ trafficClass: "main", cacheReadShare: 0.82 }));
    expect(steps[1]).toBe("class: Traffic class main: the turn the user waits for");
    expect(steps.at(-1)).toBe("cache: Cache-read share 82 %: of the prompt, what the upstream read from its cache");
    expect(steps.at(-2)).toMatch(/^usage: Used 2,000 prompt tokens \(1,640 from cache\)/);
    // Every class has its meaning (the list's badge title and the timeline say it).
    for (const c of TRAFFIC_CLASSES) expect(TRAFFIC_CLASS_MEANINGS[c]).toBeTruthy();
    expect(texts(entry({ trafficClass: "background", cacheReadShare: 0 }))).toContain("cache: Cache-read share 0 %: of the prompt, what the upstream read from its cache");
  });

  it("R20.2 R20.4 R20.1 marks a warm session moved to a cold connection, each wait-or-switch decision with its reason, and the artifacts removed", () => {
    const steps = texts(
      entry({
        trafficClass: "main",
        cacheMove: { fromConnectionId: "a-1", toConnectionId: "a-2", resentTokens: 1_900 },
        waitOrSwitch: [
          { choice: "wait", reason: "hint_within_wait", connectionId: "a-1", hintMs: 2_000, waitedMs: 2_040, maxWaitMs: 8_000 },
          { choice: "switch", reason: "hint_too_long", connectionId: "a-1", hintMs: 30_000, waitedMs: 0, maxWaitMs: 8_000 },
        ],
        provenance: { removed: 3, plain: 1 },
      }),
    );
    const afterAttempts = steps.slice(steps.findIndex((s) => s.startsWith("attempt: Attempt 2")) + 1);
    expect(afterAttempts.slice(0, 4)).toEqual([
      "wait: Waited 2 s on Team key: hint 2 s within the wait limit",
      "switch: Switched away from Team key at its 429: hint 30 s longer than the wait limit",
      "cache: Warm session moved to a cold connection: from Team key to Spare key; 1,900 prompt tokens re-sent",
      "provenance: 3 reasoning artifacts removed / 1 kept as plain text (issued by another connection)",
    ]);
    expect(afterAttempts[4]).toMatch(/^outcome: Answered 200 by anth · Spare key/);
  });

  it("R20.4 says every reason code the gateway writes, a missing hint, an unnamed connection and an unknown code as they are", () => {
    const r = { choice: "switch" as const, connectionId: "gone", hintMs: null, waitedMs: 0, maxWaitMs: 8_000 };
    expect(decisionText({ ...r, reason: "no_hint" }, names)).toBe("Switched away from gone at its 429: the upstream gave no retry hint");
    expect(decisionText({ ...r, reason: "not_warm" }, names)).toBe("Switched away from gone at its 429: the connection held no warm cache for this session");
    expect(decisionText({ ...r, reason: "disabled" }, names)).toBe("Switched away from gone at its 429: wait-or-switch is off");
    expect(decisionText({ ...r, reason: "background" }, names)).toBe("Switched away from gone at its 429: background work does not wait for a warm cache");
    expect(decisionText({ ...r, reason: "hint_too_long" }, names)).toBe("Switched away from gone at its 429: hint longer than the wait limit");
    expect(decisionText({ ...r, reason: "breaker_open" }, names)).toBe("Switched away from gone at its 429: breaker_open");
    expect(decisionText({ ...r, choice: "wait", reason: "hint_within_wait", hintMs: 800, waitedMs: 812 }, names)).toBe("Waited 812 ms on gone: hint 800 ms within the wait limit");
    const oneAndUnknown = texts(entry({ cacheMove: { fromConnectionId: "a-1", toConnectionId: "a-2", resentTokens: null }, provenance: { removed: 1, plain: 0 } }));
    expect(oneAndUnknown).toContain("cache: Warm session moved to a cold connection: from Team key to Spare key; re-sent tokens not reported");
    expect(oneAndUnknown).toContain("provenance: 1 reasoning artifact removed / 0 kept as plain text (issued by another connection)");
  });

  it("R20 a row written before the fields were kept (or with none of them set) tells nothing extra", () => {
    const kinds = (e: RequestLogEntry) => timelineOf(e, names).map((s) => s.kind);
    const old = kinds(entry({}));
    expect(old).toEqual(["received", "attempt", "attempt", "outcome", "usage"]);
    expect(kinds(entry({ cacheReadShare: null, cacheMove: null, waitOrSwitch: [], provenance: null }))).toEqual(old);
  });

  it("R20.3 the Usage page offers every grouping the API takes, traffic class among them", () => {
    expect(Object.keys(GROUP_LABELS).sort()).toEqual([...USAGE_GROUP_BYS].sort());
    expect(GROUP_LABELS.trafficClass).toBe("Traffic class");
  });
});
