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

/** I4: the billing boundary holds per class (R21.5): stay and wait never move to a metered account, a crossing is marked. */
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

/** I12: a row says how its request came: a turn of a Responses WebSocket, or HTTP (R26.1). */
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
  ["I12", transportRow],
];

export function checkRequest(o: Observation, ctx: Context): Failure[] {
  const out: Failure[] = [];
  for (const [invariant, check] of REQUEST_INVARIANTS) {
    const message = check(o, ctx);
    if (message) out.push({ invariant, index: o.index, message });
  }
  return out;
}
