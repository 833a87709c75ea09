// R21.6: the words of a window on the Usage page: its share, its reset, its pace; and a session's share.
import { describe, expect, it } from "vitest";
import type { UsageQuotaItem } from "../../../shared/apiTypes.js";
import { quotaText, sessionName, sessionText } from "../../../renderer/src/pages/usage/quotaWords.js";

const now = new Date(2026, 11, 3, 12, 0).getTime();
const item = (over: Partial<UsageQuotaItem> = {}): UsageQuotaItem => ({
  connectionId: "c1",
  provider: "claude",
  window: "5h",
  usedPercent: 50,
  remaining: null,
  limit: null,
  resetAt: now + 3 * 3_600_000,
  source: "anthropic-unified",
  seenAt: now,
  windowMs: 5 * 3_600_000,
  pace: null,
  sessions: [],
  ...over,
});

describe("R21.6 Usage page window words", () => {
  it("R21.6 a window says its pace after its reset countdown: when it runs out, or that it lasts", () => {
    expect(quotaText(item({ pace: { state: "deficit", runsOutAt: new Date(2026, 11, 3, 15, 40).getTime() } }), 3 * 3_600_000, now)).toBe(
      "50 % used · resets in 3 h · runs out at 15:40 at this pace",
    );
    expect(quotaText(item({ pace: { state: "on_pace" } }), 3 * 3_600_000, now)).toBe("50 % used · resets in 3 h · lasts until the reset");
    expect(quotaText(item({ pace: { state: "reserve" }, status: "allowed" }), 3 * 3_600_000, now)).toBe(
      "50 % used · resets in 3 h · lasts until the reset, with room to spare · status allowed",
    );
    // No pace yet (under 3 % of the window), and none once the reset has passed.
    expect(quotaText(item(), 3 * 3_600_000, now)).toBe("50 % used · resets in 3 h");
    expect(quotaText(item({ pace: { state: "on_pace" } }), 0, now)).toBe("50 % used · reset passed; the next response brings new numbers");
  });

  it("R21.6 a session's share names its traffic classes when it has more than main", () => {
    expect(sessionText({ session: "refactor-auth", usedPercent: 35.2, requests: 3, byClass: { main: 35.2 } })).toBe("refactor-auth: 35 % in 3 requests");
    expect(sessionText({ session: "a", usedPercent: 12, requests: 1, byClass: { main: 9, subagent: 3 } })).toBe("a: 12 % in 1 request (main 9 %, subagent 3 %)");
    expect(sessionText({ session: null, usedPercent: 0.4, requests: 2, byClass: { background: 0.4 } })).toBe("no session: 0.4 % in 2 requests (background)");
    expect(sessionName(`sha256:${"a".repeat(64)}`)).toBe(`sha256:${"a".repeat(16)}…`);
  });
});
