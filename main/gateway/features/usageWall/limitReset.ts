// R12.6 `autoLimitReset`: ask the account's usage endpoint whether a session-limit reset is on
// offer at the wall, and if so claim it. Two small calls beside the chat call, with their own
// short deadline; any failure reads as "failed" (the engine backs off for 15 minutes).
import { request } from "undici";
import { isRecord } from "../../../../shared/records.js";
import type { Connection, Provider } from "../../../../shared/types.js";
import type { ResetResult } from "../../../engine/usageWall.js";
import { parseResetAt } from "../../../engine/retryHints.js";

export interface ResetOutcome {
  result: ResetResult;
  nextAvailableAt: number | null;
}

/** `login`: on a login's account (R21.2) the credential its request carries, which Switchyard never holds. */
export type LimitResetClient = (provider: Provider, connection: Connection, signal?: AbortSignal, login?: string | null) => Promise<ResetOutcome>;

export interface LimitResetDeps {
  baseUrlFor: (provider: Provider) => string | Promise<string>;
  secret: (connectionId: string) => string | null;
  userAgent: string;
}

const CALL_CEILING_MS = 15_000;
const PROGRAM = "juniper_tide";
const KNOWN: ReadonlySet<string> = new Set<ResetResult>(["reset", "not_limited", "already_used", "not_offered"]);
const isKnownResult = (v: unknown): v is ResetResult => typeof v === "string" && KNOWN.has(v);

async function callJson(url: string, method: "GET" | "POST", headers: Record<string, string>, body: unknown, signal: AbortSignal): Promise<unknown> {
  const res = await request(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal });
  const text = await res.body.text();
  if (res.statusCode >= 400) throw new Error(`limit reset: upstream ${res.statusCode}`);
  return JSON.parse(text);
}

const nextOf = (v: unknown): number | null => (typeof v === "string" || typeof v === "number" ? parseResetAt(String(v)) : null);

export function createLimitResetClient(deps: LimitResetDeps): LimitResetClient {
  return async (provider, connection, signal, login) => {
    const org = connection.providerSpecificData.organizationUUID;
    // R24.5: an account's opt-in acts with its own login, sent only to its own provider.
    const secret = connection.accountOf === null ? deps.secret(connection.id) : (login ?? null);
    if (typeof org !== "string" || org === "" || !secret) return { result: "failed", nextAvailableAt: null };
    const limit = AbortSignal.timeout(CALL_CEILING_MS);
    const both = signal ? AbortSignal.any([signal, limit]) : limit;
    const base = (await deps.baseUrlFor(provider)).replace(/\/+$/, "");
    const headers = { authorization: `Bearer ${secret}`, "content-type": "application/json", "user-agent": deps.userAgent };
    try {
      const usage = await callJson(`${base}/api/oauth/usage?at_wall=1&skip_spend=1`, "GET", headers, undefined, both);
      const offer = isRecord(usage) && isRecord(usage[PROGRAM]) ? usage[PROGRAM] : null;
      if (!offer || offer.arm !== "reset" || offer.available !== true) {
        return { result: "not_offered", nextAvailableAt: nextOf(offer?.next_available_at) };
      }
      const claim = await callJson(`${base}/api/organizations/${encodeURIComponent(org)}/reset_rate_limits`, "POST", headers, { program: PROGRAM }, both);
      const result = isRecord(claim) && isKnownResult(claim.result) ? claim.result : "failed";
      return { result, nextAvailableAt: isRecord(claim) ? nextOf(claim.next_available_at) : null };
    } catch {
      return { result: "failed", nextAvailableAt: null };
    }
  };
}
