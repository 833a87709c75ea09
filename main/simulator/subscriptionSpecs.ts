// What a subscription login, a change to its window and an exhaustion inside its stream are (R21.9),
// and the validators of their untrusted forms: the option, the CLI flag and the control routes.
// What the simulator does with them is in subscriptions.ts.
import { InvalidFaultError } from "./faults.js";
import { isRecord } from "./records.js";

export type SubscriptionKind = "anthropic" | "chatgpt";
export type WindowName = "5h" | "7d";

export interface SubscriptionSpec {
  kind: SubscriptionKind;
  /** The login as the client sends it: Claude's `sk-ant-oat01-…` OAuth token, or ChatGPT's access token. */
  token: string;
  /** ChatGPT: the account the token belongs to, which `chatgpt-account-id` must name. Required for `chatgpt`. */
  chatgptAccountId?: string;
  /** Names the login in `x-sim-key`, reply texts and the control routes (default: the account id, or `claude-<n>`). */
  name?: string;
  /** ChatGPT: `plan_type` of its usage-limit answers (default "plus"). */
  planType?: string;
  /** Generations per 5-hour window (default 50). */
  fiveHourLimit?: number;
  /** Generations per 7-day window (default 500). */
  weekLimit?: number;
}

/** Exhaustion inside the next streamed answer(s) of a login. */
export interface StreamExhaustionSpec {
  /** Content deltas sent before the limit is reported (default 0: before any content). */
  afterChunks?: number;
  /** The window that runs out (default "5h"). */
  window?: WindowName;
  /** Responses: how the stream ends (default "failed"). */
  as?: "failed" | "incomplete";
  /** How many streamed answers end so (default 1). */
  times?: number;
}

/** A change to a login's window (POST /__sim/subscriptions/usage). */
export interface UsageChange {
  window: WindowName;
  /** Set the count of the window (opening it when it is not open). */
  used?: number;
  /** Use the window up (count = limit). */
  exhaust?: boolean;
  /** Move the window's reset to this many seconds from the simulator's now (opening it). */
  resetInSeconds?: number;
}

const positiveInt = (v: unknown, what: string, fallback: number): number => {
  if (v === undefined) return fallback;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 1) throw new InvalidFaultError(`${what} must be a positive integer`);
  return v;
};
const nonNegative = (v: unknown, what: string): number | undefined => {
  if (v === undefined) return undefined;
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0) throw new InvalidFaultError(`${what} must be a non-negative number`);
  return v;
};
const windowName = (v: unknown, fallback?: WindowName): WindowName => {
  if (v === undefined && fallback) return fallback;
  if (v === "5h" || v === "7d") return v;
  throw new InvalidFaultError('window must be "5h" or "7d"');
};

/** Validates an untrusted list of subscription logins (option or CLI flag). */
export function parseSubscriptions(value: unknown): SubscriptionSpec[] {
  if (!Array.isArray(value)) throw new InvalidFaultError("subscriptions must be a JSON array");
  return value.map((item, i) => {
    if (!isRecord(item)) throw new InvalidFaultError(`subscriptions[${i}] must be an object`);
    if (item.kind !== "anthropic" && item.kind !== "chatgpt") throw new InvalidFaultError(`subscriptions[${i}].kind must be "anthropic" or "chatgpt"`);
    if (typeof item.token !== "string" || !item.token) throw new InvalidFaultError(`subscriptions[${i}].token must be a non-empty string`);
    const spec: SubscriptionSpec = { kind: item.kind, token: item.token };
    for (const field of ["chatgptAccountId", "name", "planType"] as const) {
      const v = item[field];
      if (v === undefined) continue;
      if (typeof v !== "string" || !v) throw new InvalidFaultError(`subscriptions[${i}].${field} must be a non-empty string`);
      spec[field] = v;
    }
    if (spec.kind === "chatgpt" && !spec.chatgptAccountId) throw new InvalidFaultError(`subscriptions[${i}] (chatgpt) needs chatgptAccountId`);
    if (item.fiveHourLimit !== undefined) spec.fiveHourLimit = positiveInt(item.fiveHourLimit, `subscriptions[${i}].fiveHourLimit`, 0);
    if (item.weekLimit !== undefined) spec.weekLimit = positiveInt(item.weekLimit, `subscriptions[${i}].weekLimit`, 0);
    return spec;
  });
}

/** Validates an untrusted stream-exhaustion request from the control route. */
export function parseStreamExhaustion(value: unknown): StreamExhaustionSpec {
  if (!isRecord(value)) throw new InvalidFaultError("stream exhaustion must be a JSON object");
  const spec: StreamExhaustionSpec = {};
  const after = nonNegative(value.afterChunks, "afterChunks");
  if (after !== undefined) spec.afterChunks = Math.floor(after);
  if (value.window !== undefined) spec.window = windowName(value.window);
  if (value.as !== undefined) {
    if (value.as !== "failed" && value.as !== "incomplete") throw new InvalidFaultError('as must be "failed" or "incomplete"');
    spec.as = value.as;
  }
  if (value.times !== undefined) spec.times = positiveInt(value.times, "times", 1);
  return spec;
}

/** Validates an untrusted usage change from the control route. */
export function parseUsageChange(value: unknown): UsageChange {
  if (!isRecord(value)) throw new InvalidFaultError("usage change must be a JSON object");
  const change: UsageChange = { window: windowName(value.window) };
  const used = nonNegative(value.used, "used");
  if (used !== undefined) change.used = Math.floor(used);
  const reset = nonNegative(value.resetInSeconds, "resetInSeconds");
  if (reset !== undefined) change.resetInSeconds = reset;
  if (value.exhaust !== undefined) {
    if (typeof value.exhaust !== "boolean") throw new InvalidFaultError("exhaust must be a boolean");
    change.exhaust = value.exhaust;
  }
  return change;
}
