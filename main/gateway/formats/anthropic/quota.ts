// R18.3: Anthropic's quota headers, two families.
// - Unified (subscription): `anthropic-ratelimit-unified-<w>-{utilization,reset,status}` (w = 5h, 7d,
//   7d_opus, 7d_sonnet, overage…; utilization a 0..1 fraction, reset epoch seconds) and the overall
//   `-unified-{status,reset,representative-claim}`, which belong to the claimed window;
// - counts: `anthropic-ratelimit-<w>-{limit,remaining,reset}` (reset RFC 3339).
import { parseResetAt } from "../../../engine/retryHints.js";
// The window names are those the window verdicts use (R21.4, windows.ts).
import { CLAIM_WINDOWS } from "./windows.js";
import { countFamily, nonNegative, readingIn, round4, type QuotaHeaderFamily, type QuotaReading } from "../quota.js";

const UNIFIED = "anthropic-ratelimit-unified-";
const ANTHROPIC = "anthropic-ratelimit-";

const UNIFIED_FIELD = /^(.+)-(utilization|reset|status)$/;
const COUNT_FIELD = /^(.+)-(limit|remaining|reset)$/;
/** Unified names that match a window's shape but are not a window: the R12.6 slow lane's own. */
const NOT_UNIFIED_WINDOWS = new Set(["slow"]);

function unifiedReadings(found: ReadonlyMap<string, string>): QuotaReading[] {
  const windows = new Map<string, QuotaReading>();
  let status: string | null = null;
  let resetAt: number | null = null;
  let claim: string | null = null;
  for (const [name, value] of found) {
    if (!name.startsWith(UNIFIED)) continue;
    const rest = name.slice(UNIFIED.length);
    if (rest === "status") status = value;
    else if (rest === "reset") resetAt = parseResetAt(value);
    else if (rest === "representative-claim") claim = value;
    else {
      const m = UNIFIED_FIELD.exec(rest);
      if (!m || NOT_UNIFIED_WINDOWS.has(m[1])) continue;
      const reading = readingIn(windows, m[1], "anthropic-unified");
      if (m[2] === "utilization") {
        const fraction = nonNegative(value);
        reading.usedPercent = fraction === null ? null : round4(fraction * 100);
      } else if (m[2] === "reset") reading.resetAt = parseResetAt(value);
      else reading.status = value;
    }
  }
  // The overall verdict is the claimed window's; without a claim and any window it stands alone.
  const claimed = claim !== null ? (CLAIM_WINDOWS[claim] ?? claim) : windows.size === 0 && (status !== null || resetAt !== null) ? "unified" : null;
  if (claimed !== null) {
    const reading = readingIn(windows, claimed, "anthropic-unified");
    reading.status ??= status;
    reading.resetAt ??= resetAt;
  }
  return [...windows.values()];
}

const unified: QuotaHeaderFamily = { prefix: UNIFIED, read: unifiedReadings };

const counts = countFamily(
  {
    source: "anthropic",
    prefix: ANTHROPIC,
    parse: (rest) => {
      const m = COUNT_FIELD.exec(rest);
      return m ? [m[1], m[2]] : null;
    },
    name: (window, field) => `${ANTHROPIC}${window}-${field}`,
  },
  (name) => name.startsWith(UNIFIED),
);

export const ANTHROPIC_QUOTA_HEADERS: readonly QuotaHeaderFamily[] = [unified, counts];
