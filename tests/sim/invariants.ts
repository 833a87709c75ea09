// The promises checked after every request (R24.6), numbered as in docs/simulation.md. Each check
// reads one observation (the request, the answer, the upstream calls the simulators recorded during
// it, its request-log row) and returns what broke, or null. A new feature adds its promise here.
import { checkAnswer, errorCodeOf } from "./answers.js";
import { isLoginShaped, type RequestPlan } from "./clients.js";
import { knownModels, type Laptop, type ProviderPlan } from "./laptop.js";
import type { UpstreamCall } from "./world.js";

type Json = Record<string, any>;

export interface Observation {
  index: number;
  plan: RequestPlan;
  status: number;
  headers: Headers;
  text: string;
  calls: UpstreamCall[];
  row: Json | null;
  newAccounts: string[];
  /** Subscription logins whose window the simulator said was used up when the request was sent. */
  exhaustedLogins: ReadonlySet<string>;
  /** The held connection under an exclusive lease while the request ran, and whether the request is its owner's. */
  lease: { connectionId: string; owned: boolean } | null;
  /** R25.4: each provider breaker's failure count and state before and after the request (monitoring health). */
  breakers: { before: ReadonlyMap<string, BreakerRead>; after: ReadonlyMap<string, BreakerRead> };
}

export interface BreakerRead {
  state: string;
  failureCount: number;
}

export interface Context {
  laptop: Laptop;
  /** Secrets that must never go upstream at all: Switchyard keys and lease owners. */
  switchyardSecrets: string[];
  inactiveLogins: ReadonlySet<string>;
  accountIdOf(token: string, format: string): string | null;
}

export interface Failure {
  invariant: string;
  index: number;
  message: string;
}

type Check = (o: Observation, ctx: Context) => string | null;

const tokenOf = (plan: RequestPlan): string | null => (plan.credential.kind === "login" ? plan.credential.token : null);

/** The login the client carried, when it is one by R24.1. */
function loginOf(plan: RequestPlan): string | null {
  const token = tokenOf(plan);
  const accountId = plan.credential.kind === "login" ? plan.credential.accountId : undefined;
  return isLoginShaped(plan.format, token, accountId) ? token : null;
}

/** A login may go only to a client-login connection of the client's own format (R21.1). */
const loginMayReach = (p: ProviderPlan, plan: RequestPlan): boolean => p.clientLogin !== null && p.format === plan.format;

const modelOf = (call: UpstreamCall): string => call.req.model;

function describeKey(key: string | null, o: Observation, ctx: Context): string {
  if (key === null) return "no credential";
  if (ctx.laptop.logins.some((l) => l.token === key)) return `the login ${ctx.laptop.logins.find((l) => l.token === key)!.name}`;
  if (key === ctx.laptop.ownAnthropicKey) return "the user's own Anthropic key";
  if (o.plan.credential.kind === "placeholder" && key === o.plan.credential.value) return `the placeholder "${key}"`;
  return `a credential of no connection of that provider`;
}

/** I1: a credential goes only where R21.1/R24.1/R24.2 allow; a Switchyard key or lease owner never goes upstream. */
const credentialRouting: Check = (o, ctx) => {
  for (const call of o.calls) {
    const raw = JSON.stringify(call.req.headers);
    if (ctx.switchyardSecrets.some((s) => s && raw.includes(s))) return `a Switchyard key or lease owner went upstream to ${call.provider.id}`;
    const key = call.req.key;
    const held = call.provider.held.find((h) => h.key === key);
    if (held) {
      if (!call.provider.models.includes(modelOf(call))) return `R24.2 the unlisted name ${modelOf(call)} went to ${call.provider.id} on its held key ${held.connectionId}`;
      continue;
    }
    const login = loginOf(o.plan);
    if (key !== null && key === login && loginMayReach(call.provider, o.plan)) {
      if (ctx.inactiveLogins.has(key)) return `R24.5 the account row of ${describeKey(key, o, ctx)} is inactive, yet it was sent to ${call.provider.id}`;
      continue;
    }
    return `${o.plan.shape} (${o.plan.format}) sent ${describeKey(key, o, ctx)} to ${call.provider.id} (${call.provider.format}) for ${modelOf(call)}`;
  }
  return null;
};

/** I2: the answer is well formed in the client's format, with retry information where a status line carries it. */
const wellFormed: Check = (o) => checkAnswer(o.plan, o.status, o.headers, o.text);

/** I3: an unknown model reaches no upstream and is 404 model_not_found (R1.3, R24.2), unless a login may serve it. */
const unknownModel: Check = (o, ctx) => {
  if (knownModels(ctx.laptop).has(o.plan.model)) return null;
  const login = loginOf(o.plan);
  if (login && ctx.laptop.providers.some((p) => loginMayReach(p, o.plan))) return null;
  if (o.calls.length > 0) return `the unknown model ${o.plan.model} reached ${[...new Set(o.calls.map((c) => c.provider.id))].join(", ")}`;
  if (o.status === 401) return null;
  // A key over its budget is refused before its model is read (R18.4), as a missing key is (long prompts spend budgets fast).
  if (o.status === 429 && errorCodeOf(o.text) === "budget_exceeded") return null;
  // A count has its own answer without an upstream: the estimate (docs/api-notes.md).
  if (o.plan.operation === "count" && o.status === 200) return null;
  const code = errorCodeOf(o.text);
  return o.status === 404 && code === "model_not_found" ? null : `the unknown model ${o.plan.model} was answered ${o.status} ${code ?? ""} instead of 404 model_not_found`;
};

/** R21.5: a subscription login, or a held account on an OAuth provider (a work key beside a login counts so too). */
function isSubscriptionCall(call: UpstreamCall, laptop: Laptop): boolean {
  if (laptop.logins.some((l) => l.token === call.req.key)) return true;
  return call.provider.held.some((h) => h.key === call.req.key && (h.subscription || call.provider.category === "oauth"));
}

/**
 * I4: the billing boundary holds per class (R21.5): stay and wait never move to a metered account, for a
 * used-up window or a prompt too long for the subscription (R25.1), and a crossing is marked.
 */
const billingBoundary: Check = (o, ctx) => {
  const klass = o.row?.trafficClass as keyof Laptop["billingBoundary"] | undefined;
  if (!klass) return null;
  const choice = ctx.laptop.billingBoundary[klass];
  if (o.row?.billingCrossed === true && choice !== "cross") return `a ${klass} request (billingBoundary ${choice}) crossed to ${String(o.row.connectionId)}`;
  const login = loginOf(o.plan);
  const bare = !o.plan.model.includes("/") && o.plan.model !== ctx.laptop.combo?.name;
  // A login whose account row the user switched off (R24.5) holds no boundary: its requests go to the held keys.
  if (choice !== "cross" && bare && login && o.exhaustedLogins.has(login) && !ctx.inactiveLogins.has(login)) {
    const metered = o.calls.find((c) => !isSubscriptionCall(c, ctx.laptop));
    if (metered) return `a ${klass} request (billingBoundary ${choice}) whose login's window is used up went to the metered ${metered.provider.id}`;
  }
  // A prompt too long for a subscription meets the boundary too: no wait helps it, so the client gets the refusal.
  const tooLong = o.calls.findIndex((c) => c.req.contextRefused === true && isSubscriptionCall(c, ctx.laptop));
  const afterRefusal = tooLong < 0 ? undefined : o.calls.slice(tooLong + 1).find((c) => !isSubscriptionCall(c, ctx.laptop));
  if (afterRefusal && choice !== "cross")
    return `a ${klass} request (billingBoundary ${choice}) went to the metered ${afterRefusal.provider.id} after its subscription refused the prompt as too long`;
  const exhausted = o.calls.findIndex((c) => c.req.windowExhausted === true && isSubscriptionCall(c, ctx.laptop));
  if (exhausted < 0) return null;
  const metered = o.calls.slice(exhausted + 1).find((c) => !isSubscriptionCall(c, ctx.laptop));
  if (metered && choice !== "cross") return `a ${klass} request (billingBoundary ${choice}) went to the metered ${metered.provider.id} after a window ran out`;
  if (metered && choice === "cross" && o.status === 200 && metered === o.calls[o.calls.length - 1] && o.row?.billingCrossed !== true) {
    return `a ${klass} request crossed to the metered ${metered.provider.id} without billingCrossed on its row`;
  }
  return null;
};

/** I7: a generation's usage row adds up to what the upstream that answered reported (R18.1). */
const usageAddsUp: Check = (o) => {
  // A stream committed by keep-alives whose answer was an error event (R24.4) is logged under its own status.
  if (o.status !== 200 || o.plan.operation !== "generate" || !o.row || o.row.status !== 200) return null;
  const last = o.calls[o.calls.length - 1];
  if (!last) return "a 200 generation that no upstream answered";
  if (last.req.status !== 200 || !last.req.usage || last.req.fault || last.req.windowExhausted) return null;
  const { input, output } = last.req.usage;
  if (o.row.inputTokens !== input || o.row.outputTokens !== output) {
    return `row tokens ${String(o.row.inputTokens)}/${String(o.row.outputTokens)} ≠ ${input}/${output} that ${last.provider.id} reported`;
  }
  return null;
};

/** I9: every request has its log row, and a count is classed `count` (R22.1). */
const loggedRow: Check = (o) => {
  // A client refused at the door (its Switchyard key, its lease fence) reached no route.
  const code = errorCodeOf(o.text) ?? "";
  if (!o.row && ((o.status === 401 && code === "unauthorized") || code.startsWith("LEASE_"))) return null;
  if (!o.row) return `no request-log row for ${o.headers.get("x-switchyard-request-id") ?? "(no id)"} (status ${o.status})`;
  if (o.plan.operation === "count" && o.calls.length > 0 && o.row.trafficClass !== "count") return `a count request was logged as ${String(o.row.trafficClass)}`;
  return null;
};

function bodyOf(text: string): Json | null {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return null;
  }
}

/** R25.5: Claude Code's hinted class, as the log must show it (a value not listed leaves the body to decide). */
const HINTED: Readonly<Record<string, string>> = { main: "main", subagent: "subagent", workflow: "subagent", compaction: "compaction", auxiliary: "background" };
/** The codes an answer takes from the deciding failure of a pass where every target failed (R25.6). */
const PRECEDENCE_CODES = new Set(["rate_limit_error", "unauthorized", "model_not_found", "upstream_error", "upstream_unreachable", "upstream_timeout"]);

/** R25.6: which status the failures of one pass lead to: the last 429, else 401/403, else 404; null when a 5xx or other decides. */
function precedenceStatus(statuses: Array<number | null>): number[] | null {
  if (statuses.includes(429)) return [429];
  if (statuses.includes(401) || statuses.includes(403)) return [401, 403];
  if (statuses.includes(404)) return [404];
  return null;
}

/**
 * I12: retry semantics (R25.5, R25.6): a key over its budget and a window stay that lasts past a
 * minute say `x-should-retry: false`; when every attempt of a single pass failed, the answer follows
 * the precedence; Claude Code's hinted class is the row's class.
 */
const retrySemantics: Check = (o) => {
  const code = errorCodeOf(o.text) ?? "";
  const noRetry = o.headers.get("x-should-retry") === "false";
  if (o.status === 429 && code === "budget_exceeded" && !noRetry) return "a budget_exceeded 429 without X-Should-Retry: false";
  const body = o.status >= 400 ? bodyOf(o.text) : null;
  const retryAfter = typeof body?.error?.retry_after === "number" ? (body.error.retry_after as number) : null;
  if (o.status === 429 && code === "window_exhausted" && retryAfter !== null && retryAfter > 60 && !noRetry)
    return `a window stay of ${retryAfter} s without X-Should-Retry: false`;
  const hint = o.plan.headers["x-claude-code-request-class"];
  if (o.row && o.plan.operation === "generate" && hint !== undefined && HINTED[hint] && o.row.trafficClass !== HINTED[hint])
    return `hinted ${hint} but logged as ${String(o.row.trafficClass)}`;
  const row = o.row;
  if (!row || row.status < 400 || row.comboWaits || !PRECEDENCE_CODES.has(row.errorCode as string) || o.plan.operation !== "generate") return null;
  const attempts = (row.attempts ?? []) as Json[];
  if (attempts.length === 0 || attempts.some((a) => a.status === 200)) return null;
  const expected = precedenceStatus(attempts.map((a) => a.status as number | null));
  if (expected && !expected.includes(row.status as number))
    return `every attempt failed (${attempts.map((a) => String(a.status)).join(", ")}) but the answer is ${String(row.status)}, not ${expected.join("/")}`;
  return null;
};

/** I10: only a login creates an account row (R24.1), and only its own. */
const accountRows: Check = (o, ctx) => {
  const login = loginOf(o.plan);
  const own = login ? ctx.accountIdOf(login, o.plan.format) : null;
  const stray = o.newAccounts.filter((id) => id !== own);
  return stray.length > 0 ? `${o.plan.shape} with ${o.plan.credential.kind} created account row(s) ${stray.join(", ")}` : null;
};

/** I11: a leased connection serves only its lease's owner (R7.2), on every route (R22.1). */
const leaseExclusive: Check = (o, ctx) => {
  if (!o.lease || o.lease.owned) return null;
  const leased = ctx.laptop.providers.flatMap((p) => p.held).find((h) => h.connectionId === o.lease?.connectionId);
  const used = leased && o.calls.find((c) => c.req.key === leased.key);
  return used ? `${o.plan.shape} (${o.plan.operation}) without the lease was sent on the leased ${leased.connectionId}` : null;
};

const ENDINGS = new Set(["connect", "headers", "before_content", "mid_stream", "no_terminal", "complete"]);
const FAULTS = new Set(["none", "transport", "provider", "account", "client", "context", "gateway"]);
const BLAMELESS = new Set(["client", "context", "gateway"]);

/**
 * I13: every attempt says where it ended and whose fault it was (R25.4); client, context and gateway
 * faults never cool or trip anything: such an attempt left no cooldown or lockout, and a provider
 * this request met only with such faults has no more breaker failures, nor a worse state, after it.
 */
const faultAttribution: Check = (o) => {
  const attempts = (o.row?.attempts ?? []) as Json[];
  for (const a of attempts) {
    if (!ENDINGS.has(a.ended) || !FAULTS.has(a.fault)) return `attempt on ${String(a.connectionId)} has ended ${String(a.ended)} and fault ${String(a.fault)}`;
    if ((a.verdict === null) !== (a.fault === "none")) return `attempt on ${String(a.connectionId)} with verdict ${String(a.verdict)} has fault ${String(a.fault)}`;
    if (BLAMELESS.has(a.fault) && a.after) return `a ${String(a.fault)} fault (${String(a.verdict)}) left ${String(a.after.state)} on ${String(a.connectionId)}`;
  }
  const blamelessOnly = new Set(attempts.filter((a) => BLAMELESS.has(a.fault)).map((a) => a.provider as string));
  for (const a of attempts) if (!BLAMELESS.has(a.fault)) blamelessOnly.delete(a.provider);
  for (const provider of blamelessOnly) {
    const before = o.breakers.before.get(provider) ?? { state: "CLOSED", failureCount: 0 };
    const after = o.breakers.after.get(provider) ?? { state: "CLOSED", failureCount: 0 };
    if (after.failureCount > before.failureCount || (after.state === "OPEN" && before.state !== "OPEN")) {
      return `${provider}'s breaker moved (${before.state}/${before.failureCount} → ${after.state}/${after.failureCount}) on client, context or gateway faults alone`;
    }
  }
  return null;
};

/** The vendor's own context error of each client format, as its agent reads it to compact (R25.2). */
function isVendorContextError(format: RequestPlan["format"], text: string): boolean {
  let body: Json;
  try {
    body = JSON.parse(text) as Json;
  } catch {
    // A stream committed before the verdict carries its error as an event; its code says it.
    return text.includes("context_length_exceeded");
  }
  const error = (body.error ?? {}) as Json;
  if (format === "anthropic") return body.type === "error" && error.type === "invalid_request_error" && String(error.message).startsWith("prompt is too long");
  if (format === "gemini") return error.status === "INVALID_ARGUMENT" && String(error.message).startsWith("The input token count");
  return error.code === "context_length_exceeded" && error.type === "invalid_request_error";
}

/**
 * I14: a context refusal fails over to a larger window or ends in the client's own context error
 * (R25.2); a model passed over for its window is never the one that answered (R25.1).
 */
const contextWindows: Check = (o) => {
  const attempts = (o.row?.attempts ?? []) as Json[];
  const last = attempts[attempts.length - 1];
  if (o.row && o.row.status === 400 && last?.verdict === "context_overflow" && !isVendorContextError(o.plan.format, o.text)) {
    return `${o.plan.shape} (${o.plan.format}) ran out of windows but was answered ${o.status} ${o.text.slice(0, 160)}`;
  }
  const skipped = ((o.row?.skipped ?? []) as Json[]).filter((s) => s.reason === "context_too_small").map((s) => String(s.target));
  const served = o.status === 200 && o.row?.provider ? `${String(o.row.provider)}/${String(o.calls[o.calls.length - 1]?.req.model ?? "")}` : null;
  return served && skipped.includes(served) ? `${served} was passed over as too small for the prompt, yet it answered` : null;
};

/** I15: a row says how its request came: a turn of a Responses WebSocket, or HTTP (R26.1). */
const transportRow: Check = (o) => {
  const want = o.plan.transport ?? "http";
  return o.row && o.row.transport !== want ? `${o.plan.shape} sent over ${want} was logged with transport ${String(o.row.transport)}` : null;
};

export const REQUEST_INVARIANTS: Array<[string, Check]> = [
  ["I1", credentialRouting],
  ["I2", wellFormed],
  ["I3", unknownModel],
  ["I4", billingBoundary],
  ["I7", usageAddsUp],
  ["I9", loggedRow],
  ["I10", accountRows],
  ["I11", leaseExclusive],
  ["I12", retrySemantics],
  ["I13", faultAttribution],
  ["I14", contextWindows],
  ["I15", transportRow],
];

export function checkRequest(o: Observation, ctx: Context): Failure[] {
  const out: Failure[] = [];
  for (const [invariant, check] of REQUEST_INVARIANTS) {
    const message = check(o, ctx);
    if (message) out.push({ invariant, index: o.index, message });
  }
  return out;
}
