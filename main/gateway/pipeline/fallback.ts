// Emergency fallback (R11.6): when every target of a request has failed or been skipped, one more
// attempt on a fallback model the operator configured, so that an outage of the usual providers
// still gets an answer. Never for a request the client got wrong (a 400, a context overflow) and
// never on a target the request already tried. `OMNIROUTE_EMERGENCY_FALLBACK` seeds the setting;
// a saved `emergencyFallback` (PATCH /api/settings, the dashboard) wins (R10.2).
import { DEFAULT_APP_SETTINGS } from "../../../shared/appSettings.js";
import { isRecord } from "../../../shared/records.js";
import { normaliseAppSettings } from "../../../shared/schemas/appSettings.js";
import type { AppSettings } from "../../../shared/types.js";
import type { VerdictReason } from "../../engine/ports.js";
import type { CatalogPort } from "../context/ports.js";
import type { Target } from "../context/resolve.js";
import type { RequestContext } from "../context/requestContext.js";
import type { RequestFeatures } from "../features/index.js";
import type { Step } from "./finish.js";
import { resolveFromCatalog, type RequestPlan } from "./plan.js";
import { candidatesFor, type Candidate, type SelectionDeps } from "./select.js";

export type EmergencyFallbackSetting = AppSettings["emergencyFallback"];

/** Tells the client its answer (or final error) comes from the emergency fallback. */
export const EMERGENCY_FALLBACK_HEADER = "X-Switchyard-Emergency-Fallback";

/** Verdicts about the request itself (a 400): another model would most likely refuse it just the same. */
const CLIENT_FAULTS: ReadonlySet<VerdictReason> = new Set<VerdictReason>(["bad_request", "context_overflow", "tool_limit"]);

const TRUE_WORDS = new Set(["1", "true", "on", "yes"]);
const FALSE_WORDS = new Set(["0", "false", "off", "no"]);

/** `OMNIROUTE_EMERGENCY_FALLBACK`: a boolean word switches it, any other value names the fallback model (and switches it on). */
export function emergencyFallbackFromEnv(value: string | undefined): Partial<EmergencyFallbackSetting> {
  const text = value?.trim() ?? "";
  if (text === "") return {};
  if (TRUE_WORDS.has(text.toLowerCase())) return { enabled: true };
  if (FALSE_WORDS.has(text.toLowerCase())) return { enabled: false };
  return { enabled: true, model: text };
}

/** The setting in force: the stored document's when it holds one, else the default seeded by the environment. */
export function effectiveEmergencyFallback(storedDocument: unknown, env: NodeJS.ProcessEnv): EmergencyFallbackSetting {
  if (isRecord(storedDocument) && storedDocument.emergencyFallback !== undefined) return normaliseAppSettings(storedDocument).emergencyFallback;
  return { ...DEFAULT_APP_SETTINGS.emergencyFallback, ...emergencyFallbackFromEnv(env.OMNIROUTE_EMERGENCY_FALLBACK) };
}

export interface FallbackDeps extends SelectionDeps {
  catalog: CatalogPort;
  /** The request's features: the fallback's candidates pass their `candidates` hooks too (leases, logins, budgets). */
  features: RequestFeatures;
  emergencyFallback?: () => EmergencyFallbackSetting;
}

const targetKey = (t: Target): string => `${t.provider.id}/${t.model}`;

/** The first target of the fallback model that the request's plan did not already hold. */
function fallbackTarget(model: string, plan: RequestPlan, catalog: CatalogPort): Target | null {
  const resolved = resolveFromCatalog(model, catalog);
  const planned = new Set(plan.targets.map(targetKey));
  return resolved?.targets.find((t) => !planned.has(targetKey(t))) ?? null;
}

/**
 * Called when no target answered: one attempt on the fallback's first selectable connection, or
 * "next" when the fallback is off, does not apply, or has nothing to try (the verdict stands).
 */
export async function tryEmergencyFallback(
  run: RequestContext,
  deps: FallbackDeps,
  tryCandidate: (run: RequestContext, target: Target, candidate: Candidate) => Promise<Step>,
): Promise<Step> {
  const setting = deps.emergencyFallback?.();
  if (!setting?.enabled || !setting.model || run.client.gone) return "next";
  if (run.lastVerdict && CLIENT_FAULTS.has(run.lastVerdict.reason)) return "next";
  const target = fallbackTarget(setting.model, run.plan, deps.catalog);
  if (!target) return "next";
  const first = candidatesFor(target, deps, run.selection, { features: deps.features, ctx: run }).next();
  if (first.done) return "next";
  run.client.addHeader(EMERGENCY_FALLBACK_HEADER, "1");
  return tryCandidate(run, target, first.value);
}
