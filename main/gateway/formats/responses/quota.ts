// R18.3: the quota headers of a Responses upstream: OpenAI's counts, and Codex's subscription windows
// `x-codex-[<limit>-]{primary,secondary}-{used-percent,window-minutes,reset-at,reset-after-seconds}`,
// named by their minutes (300 → "5h", 10080 → "7d").
import { parseResetAt } from "../../../engine/retryHints.js";
// The window names are the engine's, which reads the same family for its window verdicts (R21.4).
import { windowNameOfMinutes } from "../../../engine/subscriptionWindows.js";
import { OPENAI_COUNT_HEADERS } from "../openai/quota.js";
import { nonNegative, round4, type QuotaHeaderFamily, type QuotaReading } from "../quota.js";

const CODEX = "x-codex-";
const CODEX_FIELD = /^(?:(.+)-)?(primary|secondary)-(used-percent|window-minutes|reset-at|reset-after-seconds)$/;

interface CodexSlot {
  limit: string | undefined;
  slot: string;
  used: number | null;
  minutes: number | null;
  resetAt: number | null;
  resetAfterS: number | null;
}

function codexSlots(found: ReadonlyMap<string, string>): Map<string, CodexSlot> {
  const slots = new Map<string, CodexSlot>();
  for (const [name, value] of found) {
    if (!name.startsWith(CODEX)) continue;
    const m = CODEX_FIELD.exec(name.slice(CODEX.length));
    if (!m) continue;
    const key = `${m[1] ?? ""} ${m[2]}`;
    let s = slots.get(key);
    if (!s) slots.set(key, (s = { limit: m[1], slot: m[2], used: null, minutes: null, resetAt: null, resetAfterS: null }));
    if (m[3] === "used-percent") s.used = nonNegative(value);
    else if (m[3] === "window-minutes") s.minutes = nonNegative(value);
    else if (m[3] === "reset-at") s.resetAt = parseResetAt(value);
    else s.resetAfterS = nonNegative(value);
  }
  return slots;
}

function codexReadings(found: ReadonlyMap<string, string>, now: number): QuotaReading[] {
  const readings: QuotaReading[] = [];
  for (const s of codexSlots(found).values()) {
    // As Codex itself: a window is its used percent; without one the other fields say nothing.
    if (s.used === null) continue;
    const name = s.minutes !== null && s.minutes > 0 ? windowNameOfMinutes(s.minutes) : s.slot;
    readings.push({
      window: s.limit === undefined ? name : `${s.limit}-${name}`,
      usedPercent: round4(s.used),
      remaining: null,
      limit: null,
      resetAt: s.resetAt ?? (s.resetAfterS === null ? null : now + s.resetAfterS * 1_000),
      source: "codex",
      status: null,
    });
  }
  return readings;
}

export const RESPONSES_QUOTA_HEADERS: readonly QuotaHeaderFamily[] = [OPENAI_COUNT_HEADERS, { prefix: CODEX, read: codexReadings }];
