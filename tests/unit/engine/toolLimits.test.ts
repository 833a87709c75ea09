// R11.7 dynamic tool-limit detection: the classifier's verdict and the in-memory limits, on a fake clock.
import { describe, expect, it } from "vitest";
import { classifyUpstreamFailure } from "../../../main/engine/classifier.js";
import { limitFromRefusal, TOOL_LIMIT_TTL_MS, ToolLimits } from "../../../main/engine/toolLimits.js";
import { failureInput, fakeClock, settingsWith, T0 } from "./fixtures.js";

const classify = (status: number, bodyText: string) => classifyUpstreamFailure(failureInput({ status, bodyText }), { settings: settingsWith(), now: T0 });

describe("R11.7 the classifier recognises a too-many-tools refusal", () => {
  it.each([
    ['{"error":{"message":"Invalid \'tools\': array too long. Expected an array with maximum length 128, but got an array with length 200 instead."}}', 128],
    ['{"type":"error","error":{"type":"invalid_request_error","message":"tools: maximum number of items is 64"}}', 64],
    ["Too many tools: the maximum number of tools is 32, got 40", 32],
    ["Maximum number of tools exceeded", null],
  ])("R11.7 %s → tool_limit that fails over, stating %s", (body, stated) => {
    const v = classify(400, body);
    expect(v).toMatchObject({ reason: "tool_limit", failover: true, status: 400, breakerEligible: false, statedToolLimit: stated });
  });

  it("R11.7 an ordinary 400 stays a bad request returned at once, and a 429 about tools stays a rate limit", () => {
    expect(classify(400, "messages: field required")).toMatchObject({ reason: "bad_request", failover: false });
    expect(classify(400, "tool_choice must name a declared tool")).toMatchObject({ reason: "bad_request" });
    expect(classify(429, "too many tools calls per minute")).toMatchObject({ reason: "rate_limit" });
  });
});

describe("R11.7 learned tool limits", () => {
  it("R11.7 a stated limit below what was sent is learned, otherwise one fewer than sent", () => {
    expect(limitFromRefusal(40, 32)).toBe(32);
    expect(limitFromRefusal(40, null)).toBe(39);
    expect(limitFromRefusal(40, 128)).toBe(39);
    expect(limitFromRefusal(1, null)).toBe(0);
  });

  it("R11.7 requests above the learned count are refused for that provider and model only; at or under it they pass", () => {
    const limits = new ToolLimits(fakeClock());
    expect(limits.allows("a", "m1", 500)).toBe(true);
    limits.learn("a", "m1", 32);
    expect(limits.allows("a", "m1", 40)).toBe(false);
    expect(limits.allows("a", "m1", 32)).toBe(true);
    expect(limits.allows("a", "m1", 5)).toBe(true);
    expect(limits.allows("a", "m2", 40)).toBe(true);
    expect(limits.allows("b", "m1", 40)).toBe(true);
  });

  it("R11.7 a lower limit wins over a known higher one, a higher one does not raise it", () => {
    const limits = new ToolLimits(fakeClock());
    limits.learn("a", "m1", 32);
    limits.learn("a", "m1", 64);
    expect(limits.limitFor("a", "m1")).toBe(32);
    limits.learn("a", "m1", 16);
    expect(limits.limitFor("a", "m1")).toBe(16);
  });

  it("R11.7 a learned limit expires after its TTL (24 h by default) and is gone from the list", () => {
    const clock = fakeClock();
    const limits = new ToolLimits(clock);
    limits.learn("a", "m1", 32);
    clock.advance(TOOL_LIMIT_TTL_MS - 1);
    expect(limits.entries()).toEqual([{ provider: "a", model: "m1", maxTools: 32, expiresAt: T0 + TOOL_LIMIT_TTL_MS }]);
    clock.advance(1);
    expect(limits.limitFor("a", "m1")).toBeNull();
    expect(limits.allows("a", "m1", 40)).toBe(true);
    expect(limits.entries()).toEqual([]);
  });

  it("R11.7 a custom TTL is honoured", () => {
    const clock = fakeClock();
    const limits = new ToolLimits(clock, 1_000);
    limits.learn("a", "m1", 3);
    clock.advance(999);
    expect(limits.limitFor("a", "m1")).toBe(3);
    clock.advance(1);
    expect(limits.limitFor("a", "m1")).toBeNull();
  });
});
