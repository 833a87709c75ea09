// Subscription windows that route (R21.4): whether an upstream's refusal says an account's usage
// window is used up, which one, and until when the account must rest. Read from the two window
// families a subscription answers with:
// - Anthropic unified: `anthropic-ratelimit-unified-status: rejected` (the claimed window's, named by
//   `-representative-claim`), or a window's own `-unified-<w>-status: rejected` / `-<w>-utilization`
//   ≥ 1 (w = 5h, 7d, 7d_opus, 7d_sonnet; a suffixed one is the model family's own window);
// - Codex: `x-codex-[<limit>-]<primary|secondary>-used-percent` ≥ 100 (named by `-window-minutes`),
//   or a body `usage_limit_reached` (`resets_at` epoch s, `resets_in_seconds`).
// Pure: headers, body and an instant in, facts out. The gateway's quota meters read the same
// families for display (gateway/context/usage/quotaHeaders.ts) and take the window names from here.
import { PARSED_RESET_CAP_MS, USAGE_LIMIT_COOLDOWN_MS } from "../../shared/resilienceSettings.js";
import { isRecord } from "../../shared/records.js";
import { headerValue, parseRetryAfter, type Headers } from "./retryHints.js";
import { parseResetAt } from "./usageWall.js";

/** One used-up window: its name, when it starts over (epoch ms, null when unstated) and its length (ms). */
export interface ExhaustedWindow {
  name: string;
  resetAt: number | null;
  windowMs: number | null;
  /** A model family's own window (`7d_opus`): only that family rests, not the account. */
  modelScoped: boolean;
}

export interface WindowSignals {
  /** The answer carries subscription window headers at all (R21.4(c): then no window used up = a burst limit). */
  windowHeaders: boolean;
  exhausted: ExhaustedWindow[];
}

/** `representative-claim` values, as the window names the per-window headers use. */
export const CLAIM_WINDOWS: Readonly<Record<string, string>> = {
  five_hour: "5h",
  seven_day: "7d",
  seven_day_opus: "7d_opus",
  seven_day_sonnet: "7d_sonnet",
};

const UNIFIED = "anthropic-ratelimit-unified-";
const CODEX = "x-codex-";
/** A unified window's name: a length, optionally a model family (`7d_opus`); `overage` and `slow` are not windows. */
const UNIFIED_WINDOW = /^(\d+)([mhd])(?:_([a-z0-9]+))?$/;
const UNIFIED_FIELD = /^(.+)-(utilization|reset|status)$/;
const CODEX_FIELD = /^(?:(.+)-)?(primary|secondary)-(used-percent|window-minutes|reset-at|reset-after-seconds)$/;
/** The length part of a window's name, also after a Codex limit's prefix (`gpt-5-codex-5h`). */
const WINDOW_LENGTH = /(?:^|-)(\d+)([mhd])(?:_[a-z0-9]+)?$/;
const UNIT_MS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000 };
const USAGE_LIMIT_CODE = "usage_limit_reached";

/** 300 → "5h", 10080 → "7d", 90 → "90m". */
export function windowNameOfMinutes(minutes: number): string {
  if (minutes % 1_440 === 0) return `${minutes / 1_440}d`;
  if (minutes % 60 === 0) return `${minutes / 60}h`;
  return `${minutes}m`;
}

/** "5h" → 5 h, "7d_opus" → 7 d; null for a name that states no length. */
export function windowLengthMs(name: string): number | null {
  const m = WINDOW_LENGTH.exec(name);
  return m ? Number(m[1]) * UNIT_MS[m[2]] : null;
}

/**
 * R21.4: the model family a per-model window names (`7d_opus` → opus), as a lock's model prefix:
 * the model's name up to the family word ("claude-opus-4-5" → "claude-opus"); null when the window
 * is the account's or the model does not name the family.
 */
export function windowFamilyOf(windowName: string, model: string): { name: string; prefixes: string[] } | null {
  const family = UNIFIED_WINDOW.exec(windowName)?.[3];
  if (family === undefined) return null;
  const at = model.toLowerCase().indexOf(family);
  return at < 0 ? null : { name: family, prefixes: [model.slice(0, at + family.length)] };
}

interface UnifiedWindowState {
  status: string | null;
  utilization: number | null;
  resetAt: number | null;
}

function lowerCaseEntries(headers: Headers, prefix: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const key in headers) {
    const name = key.toLowerCase();
    if (!name.startsWith(prefix)) continue;
    const raw = headers[key];
    const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
    if (value) out.push([name.slice(prefix.length), value]);
  }
  return out;
}

const finiteNumber = (text: string): number | null => {
  const n = Number(text);
  return text.trim() !== "" && Number.isFinite(n) ? n : null;
};

function unifiedSignals(headers: Headers): WindowSignals {
  const windows = new Map<string, UnifiedWindowState>();
  const overall: { status: string | null; resetAt: number | null; claim: string | null } = { status: null, resetAt: null, claim: null };
  const entries = lowerCaseEntries(headers, UNIFIED);
  for (const [rest, value] of entries) {
    if (rest === "status") overall.status = value.toLowerCase();
    else if (rest === "reset") overall.resetAt = parseResetAt(value);
    else if (rest === "representative-claim") overall.claim = CLAIM_WINDOWS[value] ?? value;
    else {
      const m = UNIFIED_FIELD.exec(rest);
      if (!m || !UNIFIED_WINDOW.test(m[1])) continue;
      let w = windows.get(m[1]);
      if (!w) windows.set(m[1], (w = { status: null, utilization: null, resetAt: null }));
      if (m[2] === "status") w.status = value.toLowerCase();
      else if (m[2] === "reset") w.resetAt = parseResetAt(value);
      else w.utilization = finiteNumber(value);
    }
  }
  const exhausted: ExhaustedWindow[] = [];
  const add = (name: string, resetAt: number | null) => {
    if (exhausted.some((e) => e.name === name)) return;
    const family = UNIFIED_WINDOW.exec(name)?.[3];
    exhausted.push({ name, resetAt, windowMs: windowLengthMs(name), modelScoped: family !== undefined });
  };
  for (const [name, w] of windows) if (w.status === "rejected" || (w.utilization !== null && w.utilization >= 1)) add(name, w.resetAt);
  if (overall.status === "rejected") {
    const claimed = overall.claim ?? (exhausted.length > 0 ? null : "unified");
    if (claimed !== null) add(claimed, overall.resetAt ?? windows.get(claimed)?.resetAt ?? null);
  }
  return { windowHeaders: entries.length > 0, exhausted };
}

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

function codexSignals(headers: Headers, bodyText: string, now: number): WindowSignals {
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

/** What an answer's headers and body say about the account's subscription windows. */
export function readWindowSignals(headers: Headers, bodyText: string, now: number): WindowSignals {
  const unified = unifiedSignals(headers);
  const codex = codexSignals(headers, bodyText, now);
  return { windowHeaders: unified.windowHeaders || codex.windowHeaders, exhausted: [...unified.exhausted, ...codex.exhausted] };
}

/** Whether an answer (or an error event inside a 200 stream, with the stream's headers) says a window is used up. */
export function isWindowExhaustion(headers: Headers, bodyText: string): boolean {
  return readWindowSignals(headers, bodyText, 0).exhausted.length > 0;
}

export interface WindowRest {
  window: ExhaustedWindow;
  scope: "connection" | "model";
  /** How long the account (or the model family) rests from `now`. */
  cooldownMs: number;
}

const latestFirst = (a: ExhaustedWindow, b: ExhaustedWindow): number => (b.resetAt ?? -1) - (a.resetAt ?? -1);

/** The Retry-After (or retry-after-ms) the answer carried: a floor of the window's rest (R21.4(b)). */
export function retryAfterFloorMs(headers: Headers, now: number): number | null {
  const ms = headerValue(headers, "retry-after-ms");
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms)) return Number(ms);
  const seconds = headerValue(headers, "retry-after");
  return seconds === undefined ? null : parseRetryAfter(seconds, now);
}

/**
 * R21.4(b): the rest until the exhausted window's stated reset — the latest when several are used
 * up, a Retry-After its floor — capped only by the window's own length (30 days when unknown).
 * An account-wide window decides over a model family's own; without any stated reset the account
 * rests `fallbackMs` (the D4 text class or an hour). Null when no window is used up.
 */
export function windowRest(signals: WindowSignals, headers: Headers, now: number, fallbackMs: number | null): WindowRest | null {
  const account = signals.exhausted.filter((w) => !w.modelScoped).sort(latestFirst);
  const models = signals.exhausted.filter((w) => w.modelScoped).sort(latestFirst);
  const window = account[0] ?? models[0];
  if (!window) return null;
  const floor = retryAfterFloorMs(headers, now);
  const stated = window.resetAt !== null && window.resetAt > now ? window.resetAt - now : null;
  const wanted = Math.max(stated ?? floor ?? fallbackMs ?? USAGE_LIMIT_COOLDOWN_MS, floor ?? 0);
  const cap = window.windowMs ?? PARSED_RESET_CAP_MS;
  return { window, scope: account[0] ? "connection" : "model", cooldownMs: Math.max(1, Math.min(Math.round(wanted), cap)) };
}
