// R21.4: what a Codex (ChatGPT plan) answer says about its usage windows:
// `x-codex-[<limit>-]<primary|secondary>-used-percent` ≥ 100 (named by `-window-minutes`), or a body
// `usage_limit_reached` (`resets_at` epoch s, `resets_in_seconds`). quota.ts reads the same family for display.
import { isRecord } from "../../../../shared/records.js";
import { parseResetAt, type Headers } from "../../../engine/retryHints.js";
import { windowLengthMs, windowNameOfMinutes, type ExhaustedWindow, type WindowSignals } from "../../../engine/subscriptionWindows.js";
import { finiteNumber, lowerCaseEntries } from "../headerEntries.js";

const CODEX = "x-codex-";
const CODEX_FIELD = /^(?:(.+)-)?(primary|secondary)-(used-percent|window-minutes|reset-at|reset-after-seconds)$/;
const USAGE_LIMIT_CODE = "usage_limit_reached";

interface CodexWindow {
  name: string;
  used: number | null;
  minutes: number | null;
  resetAt: number | null;
}

function codexWindows(headers: Headers, now: number): CodexWindow[] {
  const slots = new Map<string, CodexWindow & { limit: string | undefined; slot: string; resetAfterS: number | null }>();
  for (const [rest, value] of lowerCaseEntries(headers, CODEX)) {
    const m = CODEX_FIELD.exec(rest);
    if (!m) continue;
    const key = `${m[1] ?? ""} ${m[2]}`;
    let s = slots.get(key);
    if (!s) slots.set(key, (s = { name: "", limit: m[1], slot: m[2], used: null, minutes: null, resetAt: null, resetAfterS: null }));
    const n = finiteNumber(value);
    if (m[3] === "used-percent") s.used = n;
    else if (m[3] === "window-minutes") s.minutes = n;
    else if (m[3] === "reset-at") s.resetAt = parseResetAt(value);
    else s.resetAfterS = n;
  }
  return [...slots.values()].map((s) => {
    const base = s.minutes !== null && s.minutes > 0 ? windowNameOfMinutes(s.minutes) : s.slot;
    const resetAt = s.resetAt ?? (s.resetAfterS === null ? null : now + s.resetAfterS * 1_000);
    return { name: s.limit === undefined ? base : `${s.limit}-${base}`, used: s.used, minutes: s.minutes, resetAt };
  });
}

/** Codex's `{"error":{"type":"usage_limit_reached","resets_at":…,"resets_in_seconds":…}}`, however nested. */
function codexUsageLimit(bodyText: string, now: number): { resetAt: number | null } | null {
  if (!bodyText.includes(USAGE_LIMIT_CODE)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyText);
  } catch {
    return { resetAt: null };
  }
  const error = isRecord(parsed) && isRecord(parsed["error"]) ? parsed["error"] : parsed;
  if (!isRecord(error)) return { resetAt: null };
  const resetsAt = typeof error["resets_at"] === "number" ? parseResetAt(String(error["resets_at"])) : null;
  const inSeconds = typeof error["resets_in_seconds"] === "number" && error["resets_in_seconds"] >= 0 ? now + error["resets_in_seconds"] * 1_000 : null;
  return { resetAt: resetsAt ?? inSeconds };
}

export function codexSignals(headers: Headers, bodyText: string, now: number): WindowSignals {
  const windows = codexWindows(headers, now);
  const toExhausted = (w: CodexWindow, resetAt = w.resetAt): ExhaustedWindow => ({
    name: w.name,
    resetAt,
    windowMs: w.minutes !== null && w.minutes > 0 ? w.minutes * 60_000 : windowLengthMs(w.name),
    modelScoped: false,
  });
  const exhausted = windows.filter((w) => w.used !== null && w.used >= 100).map((w) => toExhausted(w));
  const body = codexUsageLimit(bodyText, now);
  if (body !== null && exhausted.length === 0) {
    // The body names no window: the fullest one the headers show is the one that ran out.
    const fullest = windows.filter((w) => w.used !== null).sort((a, b) => (b.used ?? 0) - (a.used ?? 0))[0];
    exhausted.push(fullest ? toExhausted(fullest, body.resetAt ?? fullest.resetAt) : { name: "usage_limit", resetAt: body.resetAt, windowMs: null, modelScoped: false });
  } else if (body?.resetAt != null) {
    for (const e of exhausted) e.resetAt = Math.max(e.resetAt ?? 0, body.resetAt);
  }
  return { windowHeaders: windows.length > 0, exhausted };
}
