// Subscription accounts (R21.9): the logins a Claude Code on a Pro/Max plan and a Codex on a ChatGPT
// plan send, with the windows their vendors meter them by, so the gateway's client-login connections
// (R21.1), window verdicts (R21.4) and pace (R21.6) meet what the real vendors answer.
//
// Option `subscriptions` (SubscriptionSpec[], subscriptionSpecs.ts with its validators), e.g.
//   [{ kind: "anthropic", token: "sk-ant-oat01-…", fiveHourLimit: 3 },
//    { kind: "chatgpt", token: "<access token JWT>", chatgptAccountId: "acct-1", planType: "plus", weekLimit: 10 }]
// - `fiveHourLimit` / `weekLimit` count answered generations (streamed or not, compaction too) per
//   window; defaults 50 and 500. Each answered generation adds one to both windows, so the
//   utilisation rises by 1/limit per request. count_tokens and model lists are not counted.
// - A window opens at the login's first counted request and resets `5h` / `7d` after it (on the
//   simulator's clock, which `quotaClock` and POST /__sim/clock move); the first request after the
//   reset opens the next period. A window is exhausted when its count reaches its limit.
// - Anthropic (`/v1/messages`, count_tokens, the Anthropic model list): once any `anthropic` login is
//   configured, a key that is neither a known login nor one of the option `apiKeys` is refused 401
//   `authentication_error`, as Anthropic refuses it. A login's answers carry the unified 5h/7d headers
//   (quotaMeters.ts); served answers say `allowed` or `allowed_warning` (≥ 80 %), a refusal `rejected`.
//   Exhausted: 429 `rate_limit_error`, `anthropic-ratelimit-unified-status: rejected`, the window's
//   `-status: rejected`, `retry-after` (seconds to the unified reset). With the option
//   `requireOAuthBeta`, a login sent as `Authorization: Bearer` without `oauth-2025-04-20` in
//   `anthropic-beta` is refused 401 as Anthropic refuses it (Claude Code always sends the beta).
// - ChatGPT backend (`POST /backend-api/codex/responses`, `/responses/compact`, `GET /backend-api/codex/models`):
//   always needs `Authorization: Bearer <known chatgpt token>` (else 401) and `chatgpt-account-id`
//   (missing 401, another account's 403), in OpenAI's error shape. Answers carry `x-codex-primary-*`
//   (300 minutes) and `x-codex-secondary-*` (10080 minutes). Exhausted: 429 `usage_limit_reached`
//   with `plan_type`, `resets_at`, `resets_in_seconds`.
// - Exhaustion inside a 200 stream (`exhaustInStream`, POST /__sim/subscriptions/stream-exhaustion):
//   the login's next streamed generation starts 200, sends `afterChunks` content deltas (0: none, only
//   the opening frames) and ends with the usage limit: Anthropic an `error` event (`rate_limit_error`)
//   under unified status `rejected`; Responses `response.failed` (error code `usage_limit_reached`) or
//   `response.incomplete` (reason `usage_limit_reached`), its headers still showing the window as it
//   stood when the stream began. The window is then exhausted until its reset.
// A login's token never appears in an answer: `x-sim-key` and the reply text name the login by `name`
// (recorded requests keep the key, as the vendor received it, and `login`: the name).
//
// Control routes (`login` is a login's name or token; answers show only names):
//   GET  /__sim/subscriptions                      → {now, logins: SubscriptionState[]}
//   POST /__sim/subscriptions/usage                {login, window: "5h"|"7d", used?, exhaust?, resetInSeconds?}
//   POST /__sim/subscriptions/stream-exhaustion    {login, afterChunks?, window?, as?: "failed"|"incomplete", times?}
//   DELETE /__sim/subscriptions/stream-exhaustion[?login=NAME]
//   GET  /__sim/clock, POST /__sim/clock {advanceMs} | {offsetMs} → {now, offsetMs} (control.ts): the window
//   clock, shaped like the gateway's /api/debug/clock, so a test moves both past a reset together.
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http";
import { InvalidFaultError } from "./faults.js";
import { codexWindowHeaders, SIM_QUOTA, unifiedWindowHeaders, type UnifiedWindow, type WindowStatus } from "./quotaMeters.js";
import {
  parseStreamExhaustion,
  parseSubscriptions,
  parseUsageChange,
  type StreamExhaustionSpec,
  type SubscriptionKind,
  type SubscriptionSpec,
  type WindowName,
} from "./subscriptionSpecs.js";
import type { WireFormat } from "./types.js";
import { openaiWriter } from "./wire/openai.js";

export interface WindowState {
  used: number;
  limit: number;
  utilisation: number;
  /** Epoch seconds; null while the window is not open. */
  resetAt: number | null;
  exhausted: boolean;
}

export interface SubscriptionState {
  name: string;
  kind: SubscriptionKind;
  chatgptAccountId?: string;
  windows: Record<WindowName, WindowState>;
  /** Streamed answers still to end with the usage limit. */
  streamExhaustion: number;
}

interface LoginWindow {
  used: number;
  limit: number;
  lengthMs: number;
  /** Epoch ms on the simulator's clock; null until the first counted request opens the window. */
  resetAt: number | null;
}

export interface Login {
  readonly name: string;
  readonly kind: SubscriptionKind;
  readonly token: string;
  readonly accountId?: string;
  readonly planType: string;
  readonly windows: Record<WindowName, LoginWindow>;
  cut: Required<StreamExhaustionSpec> | null;
}

export type Refusal = { status: number; body: unknown; headers: OutgoingHttpHeaders };
export type AuthResult = { kind: "login"; login: Login } | { kind: "pass" } | { kind: "refuse"; refusal: Refusal };

/** A stream cut that is due: what to send and how to end. */
export interface StreamCut {
  afterChunks: number;
  as: "failed" | "incomplete";
  headers: OutgoingHttpHeaders;
}

const DEFAULT_FIVE_HOUR_LIMIT = 50;
const DEFAULT_WEEK_LIMIT = 500;
const WINDOWS: WindowName[] = ["5h", "7d"];
const LENGTHS: Record<WindowName, number> = { "5h": SIM_QUOTA.fiveHourMs, "7d": SIM_QUOTA.weekMs };
export const USAGE_LIMIT_MESSAGE = "The usage limit has been reached";
const ANTHROPIC_LIMIT_MESSAGE = "This request would exceed your account's rate limit. Please try again later.";

/** Resets fall on whole seconds, so the instant the headers state (epoch seconds) is the instant the window resets. */
const wholeSecond = (ms: number): number => Math.ceil(ms / 1_000) * 1_000;

/** The beta Anthropic requires of a request authenticated with an OAuth login. */
const OAUTH_BETA = "oauth-2025-04-20";

/** Every `anthropic-beta` value, however the header was split. */
function betas(headers: IncomingHttpHeaders): string[] {
  const raw = headers["anthropic-beta"];
  const joined = Array.isArray(raw) ? raw.join(",") : (raw ?? "");
  return joined.split(",").map((b) => b.trim());
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return typeof v === "string" && v ? v : undefined;
}

export class Subscriptions {
  private readonly byToken = new Map<string, Login>();
  private readonly byName = new Map<string, Login>();
  private readonly apiKeys: Set<string>;
  private readonly anthropicLogins: boolean;
  private readonly requireOAuthBeta: boolean;

  constructor(
    specs: SubscriptionSpec[],
    options: { apiKeys?: string[]; requireOAuthBeta?: boolean },
    private readonly now: () => number,
  ) {
    this.apiKeys = new Set(options.apiKeys ?? []);
    this.requireOAuthBeta = options.requireOAuthBeta === true;
    let claude = 0;
    for (const spec of parseSubscriptions(specs)) {
      if (spec.kind === "anthropic") claude += 1;
      const name = spec.name ?? (spec.kind === "chatgpt" ? (spec.chatgptAccountId ?? "") : `claude-${claude}`);
      if (this.byToken.has(spec.token)) throw new InvalidFaultError(`subscription ${name}: the same token is configured twice`);
      if (this.byName.has(name)) throw new InvalidFaultError(`subscription name ${name} is used twice`);
      const login: Login = {
        name,
        kind: spec.kind,
        token: spec.token,
        accountId: spec.chatgptAccountId,
        planType: spec.planType ?? "plus",
        windows: {
          "5h": { used: 0, limit: spec.fiveHourLimit ?? DEFAULT_FIVE_HOUR_LIMIT, lengthMs: LENGTHS["5h"], resetAt: null },
          "7d": { used: 0, limit: spec.weekLimit ?? DEFAULT_WEEK_LIMIT, lengthMs: LENGTHS["7d"], resetAt: null },
        },
        cut: null,
      };
      this.byToken.set(spec.token, login);
      this.byName.set(name, login);
    }
    this.anthropicLogins = [...this.byToken.values()].some((l) => l.kind === "anthropic");
  }

  /**
   * Who may call this route. ChatGPT-backend routes always need a known ChatGPT login and its account;
   * Anthropic routes need a known Anthropic login or an `apiKeys` key once Anthropic logins exist.
   */
  authenticate(format: WireFormat, chatgptBackend: boolean, key: string | null, headers: IncomingHttpHeaders): AuthResult {
    if (chatgptBackend) {
      const login = key === null ? undefined : this.byToken.get(key);
      if (!login || login.kind !== "chatgpt") {
        const message = key === null ? "Missing bearer authentication in header (simulated ChatGPT backend)" : "Could not validate your token (simulated ChatGPT backend)";
        return { kind: "refuse", refusal: { status: 401, body: openaiWriter.error(401, message), headers: {} } };
      }
      const account = header(headers, "chatgpt-account-id");
      if (account === undefined) {
        return { kind: "refuse", refusal: { status: 401, body: openaiWriter.error(401, "Missing chatgpt-account-id header (simulated ChatGPT backend)"), headers: {} } };
      }
      if (account !== login.accountId) {
        return { kind: "refuse", refusal: { status: 403, body: openaiWriter.error(403, "This token does not belong to the requested ChatGPT account (simulated)"), headers: {} } };
      }
      return { kind: "login", login };
    }
    if (format !== "anthropic" || !this.anthropicLogins) return { kind: "pass" };
    const login = key === null ? undefined : this.byToken.get(key);
    const bearer = /^bearer /i.test(header(headers, "authorization") ?? "");
    if (login?.kind === "anthropic") {
      if (this.requireOAuthBeta && bearer && !betas(headers).includes(OAUTH_BETA)) {
        return {
          kind: "refuse",
          refusal: { status: 401, body: { type: "error", error: { type: "authentication_error", message: "OAuth authentication is currently not supported." } }, headers: {} },
        };
      }
      return { kind: "login", login };
    }
    if (key !== null && this.apiKeys.has(key)) return { kind: "pass" };
    const message = key === null ? "x-api-key header is required" : bearer ? "Invalid bearer token" : "invalid x-api-key";
    return { kind: "refuse", refusal: { status: 401, body: { type: "error", error: { type: "authentication_error", message } }, headers: {} } };
  }

  /** The login a control route names, by name or by token. */
  find(nameOrToken: string): Login {
    const login = this.byName.get(nameOrToken) ?? this.byToken.get(nameOrToken);
    if (!login) throw new InvalidFaultError("no such subscription login");
    return login;
  }

  /** Starts a window's next period once its reset has passed. */
  private roll(w: LoginWindow, now: number): void {
    if (w.resetAt !== null && now >= w.resetAt) {
      w.used = 0;
      w.resetAt = null;
    }
  }

  private open(w: LoginWindow, now: number): number {
    this.roll(w, now);
    w.resetAt ??= wholeSecond(now + w.lengthMs);
    return w.resetAt;
  }

  private exhausted(login: Login, now: number): WindowName[] {
    return WINDOWS.filter((name) => {
      const w = login.windows[name];
      this.roll(w, now);
      return w.used >= w.limit;
    });
  }

  /** The 429 an exhausted login meets, or null when its windows have room. */
  refusal(login: Login): Refusal | null {
    const now = this.now();
    const out = this.exhausted(login, now);
    if (out.length === 0) return null;
    const resetAt = Math.max(...out.map((name) => this.open(login.windows[name], now)));
    const seconds = Math.max(1, Math.ceil((resetAt - now) / 1_000));
    if (login.kind === "anthropic") {
      const headers = this.unified(login, now, new Set(out));
      headers["retry-after"] = String(seconds);
      return { status: 429, body: { type: "error", error: { type: "rate_limit_error", message: ANTHROPIC_LIMIT_MESSAGE } }, headers };
    }
    return {
      status: 429,
      body: {
        error: {
          type: "usage_limit_reached",
          message: USAGE_LIMIT_MESSAGE,
          plan_type: login.planType,
          resets_at: Math.floor(resetAt / 1_000),
          resets_in_seconds: seconds,
        },
      },
      headers: this.codex(login, now),
    };
  }

  /** Counts one answered generation and returns the window headers its answer carries. */
  served(login: Login): OutgoingHttpHeaders {
    const now = this.now();
    for (const name of WINDOWS) {
      const w = login.windows[name];
      this.open(w, now);
      w.used += 1;
    }
    return login.kind === "anthropic" ? this.unified(login, now, new Set()) : this.codex(login, now);
  }

  /**
   * The stream cut due for this streamed answer, or null. Due: the answer is counted, its window then
   * used up; Anthropic's headers already say rejected, Codex's show the window as it stood.
   */
  takeStreamCut(login: Login): StreamCut | null {
    const cut = login.cut;
    if (!cut) return null;
    cut.times -= 1;
    if (cut.times <= 0) login.cut = null;
    const before = this.served(login);
    const now = this.now();
    const w = login.windows[cut.window];
    w.used = Math.max(w.used, w.limit);
    const headers = login.kind === "anthropic" ? this.unified(login, now, new Set([cut.window])) : before;
    return { afterChunks: cut.afterChunks, as: cut.as, headers };
  }

  /** `spec` is validated here: it may come from a control route (a StreamExhaustionSpec). */
  setStreamCut(nameOrToken: string, spec: unknown): void {
    const login = this.find(nameOrToken);
    const parsed = parseStreamExhaustion(spec);
    login.cut = { afterChunks: parsed.afterChunks ?? 0, window: parsed.window ?? "5h", as: parsed.as ?? "failed", times: parsed.times ?? 1 };
  }

  clearStreamCuts(nameOrToken?: string): void {
    if (nameOrToken !== undefined) this.find(nameOrToken).cut = null;
    else for (const login of this.byToken.values()) login.cut = null;
  }

  /** `change` is validated here: it may come from a control route (a UsageChange). */
  changeUsage(nameOrToken: string, change: unknown): SubscriptionState {
    const login = this.find(nameOrToken);
    const parsed = parseUsageChange(change);
    const now = this.now();
    const w = login.windows[parsed.window];
    this.open(w, now);
    if (parsed.used !== undefined) w.used = parsed.used;
    if (parsed.exhaust === true) w.used = Math.max(w.used, w.limit);
    if (parsed.exhaust === false) w.used = Math.min(w.used, w.limit - 1);
    if (parsed.resetInSeconds !== undefined) w.resetAt = wholeSecond(now + parsed.resetInSeconds * 1_000);
    return this.state(login, now);
  }

  states(): SubscriptionState[] {
    const now = this.now();
    return [...this.byToken.values()].map((login) => this.state(login, now));
  }

  private state(login: Login, now: number): SubscriptionState {
    const windowState = (name: WindowName): WindowState => {
      const w = login.windows[name];
      this.roll(w, now);
      return {
        used: w.used,
        limit: w.limit,
        utilisation: w.used / w.limit,
        resetAt: w.resetAt === null ? null : Math.floor(w.resetAt / 1_000),
        exhausted: w.used >= w.limit,
      };
    };
    const windows = { "5h": windowState("5h"), "7d": windowState("7d") };
    const state: SubscriptionState = { name: login.name, kind: login.kind, windows, streamExhaustion: login.cut?.times ?? 0 };
    if (login.accountId !== undefined) state.chatgptAccountId = login.accountId;
    return state;
  }

  /** Unified headers; `rejected` windows say so, the others `allowed` or `allowed_warning`. */
  private unified(login: Login, now: number, rejected: Set<WindowName>): OutgoingHttpHeaders {
    const reading = (name: WindowName): UnifiedWindow => {
      const w = login.windows[name];
      const utilisation = w.used / w.limit;
      const status: WindowStatus = rejected.has(name) ? "rejected" : utilisation >= SIM_QUOTA.warnAt ? "allowed_warning" : "allowed";
      return { utilisation, resetAt: w.resetAt ?? wholeSecond(now + w.lengthMs), status };
    };
    return unifiedWindowHeaders(reading("5h"), reading("7d"));
  }

  private codex(login: Login, now: number): OutgoingHttpHeaders {
    const reading = (name: WindowName) => {
      const w = login.windows[name];
      return { usedPercent: Math.min(100, (w.used / w.limit) * 100), lengthMs: w.lengthMs, resetAt: w.resetAt ?? wholeSecond(now + w.lengthMs) };
    };
    return codexWindowHeaders(reading("5h"), reading("7d"), now);
  }
}
