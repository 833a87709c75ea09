// Quota learned from response headers (R11.1 data sources): the request-count window of each
// count family the upstream halves know (OpenAI's x-ratelimit-{remaining,limit,reset}-requests,
// Anthropic's anthropic-ratelimit-requests-{remaining,limit,reset}). Kept in memory per
// connection+model and per provider+model, so a pinned target reads its own connection's window
// and an unpinned one the latest window seen on any connection of its provider.
import type { QuotaInfo } from "../../../engine/strategies/index.js";
import { quotaHeaderFamilies } from "../../formats/index.js";
import { readCountWindow, type CountHeaderNames } from "../../formats/quota.js";

type Headers = Record<string, string | string[] | undefined>;

// Read by name, in registry order: the first family that states a count wins (R18.3 parses the same families).
const REQUEST_WINDOWS: CountHeaderNames[] = quotaHeaderFamilies().flatMap((family) => (family.requests ? [family.requests] : []));

/** The request-count window the answer states, read by the first family that states one (null = none). */
export function requestWindowOf(headers: Headers, now: number): ReturnType<typeof readCountWindow> | null {
  let pick: ReturnType<typeof readCountWindow> | null = null;
  for (const names of REQUEST_WINDOWS) {
    pick = readCountWindow(headers, names, now);
    if (pick.remaining !== null || pick.limit !== null) break;
  }
  return pick;
}

export function quotaFromHeaders(headers: Headers, now: number): QuotaInfo | null {
  const pick = requestWindowOf(headers, now);
  if (!pick || (pick.remaining === null && pick.limit === null && pick.resetAt === null)) return null;
  const quota: QuotaInfo = {};
  if (pick.remaining !== null) quota.remaining = pick.remaining;
  if (pick.limit !== null) quota.limit = pick.limit;
  if (pick.resetAt !== null) quota.resetAt = pick.resetAt;
  return quota;
}

/**
 * Two levels of maps rather than one keyed by a joined string: the ids and model names come from
 * the catalog's objects, whose hashes V8 keeps, while a joined key is a new string to hash on every
 * lookup (issue 12: three lookups per combo request).
 */
class PairMap<V> {
  private readonly outer = new Map<string, Map<string, V>>();

  get(a: string, b: string): V | undefined {
    return this.outer.get(a)?.get(b);
  }

  set(a: string, b: string, value: V): void {
    let inner = this.outer.get(a);
    if (!inner) this.outer.set(a, (inner = new Map()));
    inner.set(b, value);
  }
}

export class LearnedQuotas {
  private readonly byConnectionModel = new PairMap<QuotaInfo>();
  private readonly byProviderModel = new PairMap<QuotaInfo>();

  /** After an attempt: remember what its response headers said, if anything. */
  learn(providerId: string, connectionId: string, model: string, headers: Headers, now: number): void {
    const quota = quotaFromHeaders(headers, now);
    if (!quota) return;
    this.byConnectionModel.set(connectionId, model, quota);
    this.byProviderModel.set(providerId, model, quota);
  }

  /** A window past its reset says nothing any more. */
  forTarget(providerId: string, model: string, connectionId: string | undefined, now: number): QuotaInfo | undefined {
    const quota = connectionId ? this.byConnectionModel.get(connectionId, model) : this.byProviderModel.get(providerId, model);
    if (!quota || (quota.resetAt !== undefined && quota.resetAt <= now)) return undefined;
    return quota;
  }
}
