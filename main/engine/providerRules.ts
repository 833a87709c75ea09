// Provider-specific error handling, in two stages (R12.2–R12.4): a status restatement that corrects
// a misleading upstream status before classification, then rules that pick reason, scope and
// cooldown. Operator rules and defaults match by case-insensitive substring, never a RegExp.
import type { AppSettings, Provider } from "../../shared/types.js";
import { MODEL_ACCESS_DENIED_COOLDOWN_MS, OPERATOR_RULE_MAX_COOLDOWN_MS, RESTATED_QUOTA_CLIENT_RETRY_AFTER_MS } from "../../shared/resilienceSettings.js";
import { VERDICT_REASONS, type RuleMatch, type VerdictReason } from "./ports.js";

export interface StatusRestatementRule {
  id: string;
  fromStatuses: number[];
  toStatus: number;
  textMarkers: string[];
  excludeMarkers: string[];
  defaultRetryAfterMs: number;
}

interface BuiltinRule {
  id: string;
  statuses: number[];
  textMarkers: string[];
  reason: VerdictReason;
  scope: RuleMatch["scope"];
  cooldownMs: number | null;
  lockoutReason?: string;
}

/** R12.2: agentrouter reports temporary quota exhaustion as 403 (sometimes 400) with a Chinese body. */
const RESTATEMENTS: Record<string, StatusRestatementRule[]> = {
  agentrouter: [
    {
      id: "agentrouter-user-quota",
      fromStatuses: [403, 400],
      toStatus: 429,
      textMarkers: ["用户额度不足", "额度不足"],
      excludeMarkers: ["无权访问模型"],
      defaultRetryAfterMs: RESTATED_QUOTA_CLIENT_RETRY_AFTER_MS,
    },
  ],
};

const BUILTIN_RULES: Record<string, BuiltinRule[]> = {
  agentrouter: [
    {
      id: "agentrouter-model-access-denied",
      statuses: [403],
      textMarkers: ["无权访问模型"],
      reason: "auth_error",
      scope: "model",
      cooldownMs: MODEL_ACCESS_DENIED_COOLDOWN_MS,
      lockoutReason: "forbidden",
    },
    { id: "agentrouter-user-quota-exhausted", statuses: [429], textMarkers: ["额度不足"], reason: "quota_exhausted", scope: "connection", cooldownMs: null },
  ],
};

/** R12.3: built-in rules see the body text only for these providers, and only these act on a rule's scope. */
export const FULL_TEXT_RULE_PROVIDERS: readonly string[] = ["agentrouter"];
export const HONORS_RULE_LOCK_SCOPE_PROVIDERS: readonly string[] = ["agentrouter"];

/** Which built-in registry entry a provider uses: its id, or the vendor recognised from its base URL. */
export function builtinProviderKey(provider: Pick<Provider, "id" | "baseUrl">): string {
  if (RESTATEMENTS[provider.id] || BUILTIN_RULES[provider.id]) return provider.id;
  return /(^|[/.])agentrouter\.org([/:]|$)/i.test(provider.baseUrl) ? "agentrouter" : provider.id;
}

export function restateStatus(providerKey: string, status: number, body: string): { status: number; rule: StatusRestatementRule } | null {
  for (const rule of RESTATEMENTS[providerKey] ?? []) {
    if (!rule.fromStatuses.includes(status)) continue;
    if (rule.excludeMarkers.some((m) => body.includes(m))) continue;
    if (rule.textMarkers.some((m) => body.includes(m))) return { status: rule.toStatus, rule };
  }
  return null;
}

/**
 * R12.3: without full text a built-in rule matches only the structured error code, and its scope is
 * a label unless the provider is allowlisted. An operator rule for the provider opts it into both.
 */
export function matchBuiltinRule(providerKey: string, status: number, body: string, errorCode: string | null, operatorOptIn: boolean): RuleMatch | null {
  const text = operatorOptIn || FULL_TEXT_RULE_PROVIDERS.includes(providerKey) ? body : (errorCode ?? "");
  const honored = operatorOptIn || HONORS_RULE_LOCK_SCOPE_PROVIDERS.includes(providerKey);
  for (const rule of BUILTIN_RULES[providerKey] ?? []) {
    if (!rule.statuses.includes(status) || !rule.textMarkers.some((m) => text.includes(m))) continue;
    return {
      id: rule.id,
      source: "builtin",
      reason: rule.reason,
      label: null,
      scope: honored ? rule.scope : null,
      cooldownMs: rule.cooldownMs,
      lockoutReason: rule.lockoutReason ?? null,
    };
  }
  return null;
}

type RuleSettings = Pick<AppSettings, "providerErrorRules" | "providerErrorDefaults">;

const KNOWN_REASONS: ReadonlySet<string> = new Set<string>(VERDICT_REASONS);

/** An operator's free-text reason becomes a verdict reason when it names one; otherwise it is only a label. */
export function asVerdictReason(reason: string | undefined): VerdictReason | null {
  if (reason === undefined) return null;
  const normalized = reason.trim().toLowerCase();
  if (normalized === "rate_limit_exceeded") return "rate_limit";
  return isVerdictReason(normalized) ? normalized : null;
}

function isVerdictReason(reason: string): reason is VerdictReason {
  return KNOWN_REASONS.has(reason);
}

const clampRuleCooldown = (ms: number | undefined): number | null => (ms === undefined || !Number.isFinite(ms) ? null : Math.min(Math.max(0, ms), OPERATOR_RULE_MAX_COOLDOWN_MS));

/** R12.4: the first operator rule for this provider whose status and text both match (AND). */
export function matchOperatorRule(providerId: string, status: number, body: string, settings: RuleSettings | undefined): RuleMatch | null {
  const rules = settings?.providerErrorRules ?? [];
  const text = body.toLowerCase();
  for (const [index, rule] of rules.entries()) {
    if (rule.provider !== providerId) continue;
    if (rule.status === undefined && (rule.match === undefined || rule.match === "")) continue;
    if (rule.status !== undefined && rule.status !== status) continue;
    if (rule.match !== undefined && rule.match !== "" && !text.includes(rule.match.toLowerCase())) continue;
    return {
      id: `operator-${index}`,
      source: "operator",
      reason: asVerdictReason(rule.reason),
      label: rule.reason ?? null,
      scope: rule.scope,
      cooldownMs: clampRuleCooldown(rule.cooldownMs),
      lockoutReason: null,
    };
  }
  return null;
}

const DEFAULT_ELIGIBLE = (status: number): boolean => status === 402 || status === 403 || status === 408 || status === 429 || status >= 500;

/** R12.4 catch-all: only when no rule matched, only for 402/403/408/429/5xx; max(default, hint). */
export function matchProviderDefault(providerId: string, status: number, hintMs: number | null, settings: RuleSettings | undefined): RuleMatch | null {
  const entry = settings?.providerErrorDefaults?.[providerId];
  if (!entry || !DEFAULT_ELIGIBLE(status)) return null;
  const cooldown = clampRuleCooldown(entry.cooldownMs) ?? 0;
  return {
    id: "operator-default",
    source: "default",
    reason: asVerdictReason(entry.reason),
    label: entry.reason ?? null,
    scope: entry.scope ?? "connection",
    cooldownMs: Math.max(cooldown, hintMs ?? 0),
    lockoutReason: null,
  };
}

export function hasOperatorRules(providerId: string, settings: RuleSettings | undefined): boolean {
  return (settings?.providerErrorRules ?? []).some((r) => r.provider === providerId) || settings?.providerErrorDefaults?.[providerId] !== undefined;
}
