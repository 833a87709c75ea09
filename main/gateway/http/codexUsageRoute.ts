// Codex's own usage view (R26.4): `GET /backend-api/wham/usage` and `GET /api/codex/usage`, which
// Codex on a ChatGPT login asks at its `chatgpt_base_url`, answered from the pool instead of
// ChatGPT: the windows of the account the session is pinned to (or the login's own account),
// in ChatGPT's shape `{plan_type, rate_limit: {primary_window, secondary_window}}`; when that
// account's window is used up and the billing boundary lets the session cross (R21.5), what the
// pool can still serve (a metered account has no window: nothing of it is used).
import type { RequestHandler } from "express";
import { isRecord } from "../../../shared/records.js";
import type { BillingBoundaryChoice } from "../../../shared/resilienceSettings.js";
import type { UsageQuotaItem } from "../../../shared/usageTypes.js";
import type { Clock } from "../../engine/ports.js";
import type { SessionPins } from "../../engine/sessionAffinity.js";
import type { ClientLogin } from "../context/clientLogin.js";
import { contextOf } from "./edge.js";
import { sessionKeyOf } from "./sessionKey.js";

export const CODEX_USAGE_PATHS = ["/backend-api/wham/usage", "/api/codex/usage"] as const;

export interface CodexUsageDeps {
  /** Every window the upstreams' headers reported (GET /api/usage/quotas' items). */
  windows: () => UsageQuotaItem[];
  pins: Pick<SessionPins, "pinned">;
  /** R21.5: the main class's billing boundary. */
  boundary: () => BillingBoundaryChoice;
  /** Whether an active metered (non-subscription) connection could take a crossing session. */
  meteredAvailable: () => boolean;
  clock: Pick<Clock, "now">;
}

export interface UsageWindow {
  used_percent: number;
  limit_window_seconds: number;
  reset_after_seconds: number;
  reset_at: number;
}

export interface CodexUsage {
  plan_type: string;
  rate_limit: { allowed: boolean; limit_reached: boolean; primary_window: UsageWindow | null; secondary_window: UsageWindow | null };
}

const HOUR_MS = 3_600_000;
/** A pool with no window to report still answers in ChatGPT's shape: a 5-hour and a weekly window, unused. */
const DEFAULT_WINDOWS_MS = [5 * HOUR_MS, 7 * 24 * HOUR_MS];

/** The plan a ChatGPT login's access token claims (read, never kept); "unknown" without one. */
export function planOf(login: ClientLogin | null): string {
  const token = login?.secret ?? "";
  const payload = token.split(".")[1];
  if (!payload) return "unknown";
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    const auth = isRecord(claims) ? claims["https://api.openai.com/auth"] : undefined;
    return isRecord(auth) && typeof auth["chatgpt_plan_type"] === "string" ? auth["chatgpt_plan_type"] : "unknown";
  } catch {
    return "unknown";
  }
}

function toWindow(item: { usedPercent: number; windowMs: number; resetAt: number | null }, now: number): UsageWindow {
  const resetAt = item.resetAt ?? now + item.windowMs;
  return {
    used_percent: Math.round(Math.min(100, Math.max(0, item.usedPercent)) * 100) / 100,
    limit_window_seconds: Math.round(item.windowMs / 1000),
    reset_after_seconds: Math.max(0, Math.ceil((resetAt - now) / 1000)),
    reset_at: Math.ceil(resetAt / 1000),
  };
}

type Timed = { usedPercent: number; windowMs: number; resetAt: number | null };

/** The timed windows of one account (5h before 7d), still running at `now`. */
function windowsOf(items: UsageQuotaItem[], accountId: string, now: number): Timed[] {
  return items
    .filter((i) => i.connectionId === accountId && typeof i.windowMs === "number" && i.usedPercent !== null)
    .map((i) => ({ usedPercent: i.resetAt !== null && i.resetAt <= now ? 0 : i.usedPercent!, windowMs: i.windowMs!, resetAt: i.resetAt }))
    .sort((a, b) => a.windowMs - b.windowMs)
    .slice(0, 2);
}

/** What the pool can still serve for each window length: the least-used account's, or nothing used when a metered account can take over. */
function poolWindows(items: UsageQuotaItem[], own: Timed[], metered: boolean, now: number): Timed[] {
  const lengths = own.length ? own.map((w) => w.windowMs) : DEFAULT_WINDOWS_MS;
  return lengths.map((windowMs) => {
    if (metered) return { usedPercent: 0, windowMs, resetAt: null };
    const same = items
      .filter((i) => i.windowMs === windowMs && i.usedPercent !== null)
      .map((i) => ({ usedPercent: i.resetAt !== null && i.resetAt <= now ? 0 : i.usedPercent!, windowMs, resetAt: i.resetAt }));
    return same.sort((a, b) => a.usedPercent - b.usedPercent)[0] ?? { usedPercent: 0, windowMs, resetAt: null };
  });
}

export function codexUsage(deps: CodexUsageDeps, input: { sessionKey: string | null; login: ClientLogin | null }): CodexUsage {
  const now = deps.clock.now();
  const items = deps.windows();
  const pinned = input.sessionKey ? (deps.pins.pinned(input.sessionKey)?.connectionId ?? null) : null;
  // A login's account is `<client-login connection>~<12 hex of its digest>` (R21.2).
  const loginSuffix = input.login ? input.login.accountId("") : null;
  const accountId = pinned ?? (loginSuffix ? (items.find((i) => i.connectionId.endsWith(loginSuffix))?.connectionId ?? null) : null);
  const own = accountId ? windowsOf(items, accountId, now) : [];
  const spent = own.length === 0 || own.some((w) => w.usedPercent >= 100);
  const shown = spent && deps.boundary() === "cross" ? poolWindows(items, own, deps.meteredAvailable(), now) : own;
  const [primary, secondary] = shown;
  const reached = shown.some((w) => w.usedPercent >= 100);
  return {
    plan_type: planOf(input.login),
    rate_limit: {
      allowed: !reached,
      limit_reached: reached,
      primary_window: primary ? toWindow(primary, now) : null,
      secondary_window: secondary ? toWindow(secondary, now) : null,
    },
  };
}

/** The route's handler; client auth (keys, the login) ran before it. */
export function codexUsageHandler(deps: CodexUsageDeps): RequestHandler {
  return (req, res) => {
    const ctx = contextOf(req);
    res.setHeader("X-Switchyard-Request-Id", ctx.requestId);
    res.json(codexUsage(deps, { sessionKey: sessionKeyOf(req.headers, () => null), login: ctx.login }));
  };
}
