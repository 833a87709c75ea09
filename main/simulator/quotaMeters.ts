// Rate-limit and subscription headers, simulated per API key (R18.3), so the gateway's quota
// meters show real numbers in tests and the demo. Every answered generation counts its tokens
// (input + output) against the key's 5-hour and weekly allowances and its requests and tokens
// against per-minute limits. Anthropic routes answer with the unified 5h/7d utilisation (the
// subscription headers) and the requests/tokens/input-tokens/output-tokens limits; OpenAI Chat and
// Responses routes with `x-ratelimit-*`; Responses routes, which Codex speaks, also with Codex's
// primary (5-hour) and secondary (weekly) usage headers. The 5-hour and weekly windows reset at
// fixed instants counted from the simulator's start; the minute windows at each minute boundary.
// Nothing is enforced here: the usage wall (usageWall.ts) and faults do the refusing.
import type { OutgoingHttpHeaders } from "node:http";
import type { Usage } from "./reply.js";
import type { WireFormat } from "./types.js";

export const SIM_QUOTA = {
  fiveHourMs: 5 * 3_600_000,
  weekMs: 7 * 86_400_000,
  /** Tokens a key may use per 5-hour window and per week (notional: they only move the meters). */
  fiveHourTokens: 100_000,
  weekTokens: 1_000_000,
  anthropic: { requests: 1_000, tokens: 96_000, inputTokens: 80_000, outputTokens: 16_000 },
  openai: { requests: 5_000, tokens: 160_000 },
  /** Utilisation from which a window says `allowed_warning`. */
  warnAt: 0.8,
} as const;

const MINUTE_MS = 60_000;

interface Window {
  used: number;
  resetAt: number;
}

interface KeyMeter {
  fiveHour: Window;
  week: Window;
  minuteStart: number;
  requests: number;
  input: number;
  output: number;
}

/** Whole epoch seconds, as the unified and Codex headers carry instants. */
export const epochSeconds = (ms: number): string => String(Math.floor(ms / 1_000));
const fraction = (n: number): string => String(Math.round(n * 1e6) / 1e6);
const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

/** OpenAI's reset durations: "20ms", "1.5s", "6m0s". */
export function goDuration(ms: number): string {
  if (ms < 1_000) return `${Math.max(0, Math.round(ms))}ms`;
  const minutes = Math.floor(ms / MINUTE_MS);
  const seconds = `${Math.round(ms % MINUTE_MS) / 1_000}s`;
  return minutes > 0 ? `${minutes}m${seconds}` : seconds;
}

function statusOf(utilisation: number): WindowStatus {
  return utilisation >= 1 ? "rejected" : utilisation >= SIM_QUOTA.warnAt ? "allowed_warning" : "allowed";
}

function roll(w: Window, periodMs: number, now: number): void {
  if (now < w.resetAt) return;
  w.used = 0;
  w.resetAt += Math.ceil((now - w.resetAt + 1) / periodMs) * periodMs;
}

export class QuotaMeters {
  private readonly meters = new Map<string, KeyMeter>();

  /** `startedAt`: the instant the 5-hour and weekly windows count from. */
  constructor(private readonly startedAt: number) {}

  private meter(key: string, now: number): KeyMeter {
    let m = this.meters.get(key);
    if (!m) {
      m = {
        fiveHour: { used: 0, resetAt: this.startedAt + SIM_QUOTA.fiveHourMs },
        week: { used: 0, resetAt: this.startedAt + SIM_QUOTA.weekMs },
        minuteStart: 0,
        requests: 0,
        input: 0,
        output: 0,
      };
      this.meters.set(key, m);
    }
    roll(m.fiveHour, SIM_QUOTA.fiveHourMs, now);
    roll(m.week, SIM_QUOTA.weekMs, now);
    const minuteStart = Math.floor(now / MINUTE_MS) * MINUTE_MS;
    if (minuteStart !== m.minuteStart) Object.assign(m, { minuteStart, requests: 0, input: 0, output: 0 });
    return m;
  }

  /** Counts one answered generation of `key` and returns the headers its answer carries. */
  served(format: WireFormat, key: string | null, usage: Usage, now: number): OutgoingHttpHeaders {
    const m = this.meter(key ?? "", now);
    const tokens = usage.input + usage.output;
    m.fiveHour.used += tokens;
    m.week.used += tokens;
    m.requests += 1;
    m.input += usage.input;
    m.output += usage.output;
    if (format === "anthropic") return { ...unifiedHeaders(m), ...anthropicHeaders(m) };
    if (format === "openai") return openaiHeaders(m, now);
    if (format === "openai-responses") return { ...openaiHeaders(m, now), ...codexHeaders(m, now) };
    return {};
  }
}

function unifiedHeaders(m: KeyMeter): OutgoingHttpHeaders {
  const u5 = m.fiveHour.used / SIM_QUOTA.fiveHourTokens;
  const u7 = m.week.used / SIM_QUOTA.weekTokens;
  return unifiedWindowHeaders({ utilisation: u5, resetAt: m.fiveHour.resetAt, status: statusOf(u5) }, { utilisation: u7, resetAt: m.week.resetAt, status: statusOf(u7) });
}

export type WindowStatus = "allowed" | "allowed_warning" | "rejected";

/** One subscription window as Anthropic's unified headers state it (`resetAt` in epoch ms). */
export interface UnifiedWindow {
  utilisation: number;
  resetAt: number;
  status: WindowStatus;
}

const STATUS_RANK: Record<WindowStatus, number> = { allowed: 0, allowed_warning: 1, rejected: 2 };

/**
 * Anthropic's unified 5h/7d headers (also the subscription accounts', subscriptions.ts, R21.9). The
 * overall status is the worse window's; the representative claim is the window that binds: a
 * rejected one (of two, the one resetting later), else the fuller one (the 5-hour on a tie).
 */
export function unifiedWindowHeaders(fiveHour: UnifiedWindow, week: UnifiedWindow): OutgoingHttpHeaders {
  const rank5 = STATUS_RANK[fiveHour.status];
  const rank7 = STATUS_RANK[week.status];
  const weekly =
    fiveHour.status === "rejected" && week.status === "rejected"
      ? week.resetAt > fiveHour.resetAt
      : rank5 === 2 || rank7 === 2
        ? rank7 === 2
        : week.utilisation > fiveHour.utilisation;
  return {
    "anthropic-ratelimit-unified-status": rank7 > rank5 ? week.status : fiveHour.status,
    "anthropic-ratelimit-unified-reset": epochSeconds(weekly ? week.resetAt : fiveHour.resetAt),
    "anthropic-ratelimit-unified-representative-claim": weekly ? "seven_day" : "five_hour",
    "anthropic-ratelimit-unified-5h-utilization": fraction(fiveHour.utilisation),
    "anthropic-ratelimit-unified-5h-reset": epochSeconds(fiveHour.resetAt),
    "anthropic-ratelimit-unified-5h-status": fiveHour.status,
    "anthropic-ratelimit-unified-7d-utilization": fraction(week.utilisation),
    "anthropic-ratelimit-unified-7d-reset": epochSeconds(week.resetAt),
    "anthropic-ratelimit-unified-7d-status": week.status,
  };
}

function anthropicHeaders(m: KeyMeter): OutgoingHttpHeaders {
  const reset = rfc3339(m.minuteStart + MINUTE_MS);
  const limits = SIM_QUOTA.anthropic;
  const windows: Array<[string, number, number]> = [
    ["requests", limits.requests, m.requests],
    ["tokens", limits.tokens, m.input + m.output],
    ["input-tokens", limits.inputTokens, m.input],
    ["output-tokens", limits.outputTokens, m.output],
  ];
  const headers: OutgoingHttpHeaders = {};
  for (const [name, limit, used] of windows) {
    headers[`anthropic-ratelimit-${name}-limit`] = String(limit);
    headers[`anthropic-ratelimit-${name}-remaining`] = String(Math.max(0, limit - used));
    headers[`anthropic-ratelimit-${name}-reset`] = reset;
  }
  return headers;
}

function openaiHeaders(m: KeyMeter, now: number): OutgoingHttpHeaders {
  const reset = goDuration(m.minuteStart + MINUTE_MS - now);
  const limits = SIM_QUOTA.openai;
  return {
    "x-ratelimit-limit-requests": String(limits.requests),
    "x-ratelimit-remaining-requests": String(Math.max(0, limits.requests - m.requests)),
    "x-ratelimit-reset-requests": reset,
    "x-ratelimit-limit-tokens": String(limits.tokens),
    "x-ratelimit-remaining-tokens": String(Math.max(0, limits.tokens - m.input - m.output)),
    "x-ratelimit-reset-tokens": reset,
  };
}

function codexHeaders(m: KeyMeter, now: number): OutgoingHttpHeaders {
  return codexWindowHeaders(
    { usedPercent: (m.fiveHour.used / SIM_QUOTA.fiveHourTokens) * 100, lengthMs: SIM_QUOTA.fiveHourMs, resetAt: m.fiveHour.resetAt },
    { usedPercent: (m.week.used / SIM_QUOTA.weekTokens) * 100, lengthMs: SIM_QUOTA.weekMs, resetAt: m.week.resetAt },
    now,
  );
}

/** One Codex window (`resetAt` in epoch ms). */
export interface CodexWindow {
  usedPercent: number;
  lengthMs: number;
  resetAt: number;
}

/** Codex's primary (5-hour) and secondary (weekly) usage headers (also the ChatGPT logins', subscriptions.ts, R21.9). */
export function codexWindowHeaders(primary: CodexWindow, secondary: CodexWindow, now: number): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, w] of [
    ["primary", primary],
    ["secondary", secondary],
  ] as const) {
    headers[`x-codex-${name}-used-percent`] = String(Math.round(w.usedPercent * 1e4) / 1e4);
    headers[`x-codex-${name}-window-minutes`] = String(Math.round(w.lengthMs / MINUTE_MS));
    headers[`x-codex-${name}-reset-at`] = epochSeconds(w.resetAt);
    headers[`x-codex-${name}-reset-after-seconds`] = String(Math.max(0, Math.ceil((w.resetAt - now) / 1_000)));
  }
  return headers;
}
