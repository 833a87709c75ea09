// A "laptop" (R24.6): what one user set up, drawn from the seed. Providers of every format, each on a
// simulator of its own (so an upstream call names its provider), held keys, client-login connections
// with the logins the user's agents carry, a combo, billing boundary, traffic classes, budgets, a
// lease key, requireClientKey and the quota cutoff. A new feature adds its settings here (and its
// promises to invariants.ts).
import type { Prng } from "./prng.js";

export type ProviderFormat = "openai" | "openai-responses" | "anthropic" | "gemini";
export type TrafficClass = "main" | "subagent" | "background" | "compaction" | "count";
export type BoundaryChoice = "cross" | "wait" | "stay";
export const CLASSES: readonly TrafficClass[] = ["main", "subagent", "background", "compaction", "count"];

export interface HeldKey {
  connectionId: string;
  key: string;
  /** A held OAuth token: a subscription account (R21.5) the simulator meters by windows. */
  subscription: boolean;
  budget?: { period: "day"; maxTokens: number };
}

export interface LoginPlan {
  kind: "anthropic" | "chatgpt";
  /** Simulator name of the login (never the token). */
  name: string;
  token: string;
  accountId?: string;
  fiveHourLimit: number;
  providerId: string;
}

export interface ProviderPlan {
  id: string;
  format: ProviderFormat;
  category: "apikey" | "oauth";
  models: string[];
  priority: number;
  /** The ChatGPT backend (`/backend-api/codex`): Codex on a ChatGPT plan. */
  chatgptBackend: boolean;
  held: HeldKey[];
  /** The id of its `credential: "client"` connection, when it has one. */
  clientLogin: string | null;
  quotaHeaders: boolean;
}

export interface Laptop {
  providers: ProviderPlan[];
  logins: LoginPlan[];
  /** The user's own Anthropic API key, sent by Claude Code "on a key": a login by R24.1, metered. */
  ownAnthropicKey: string;
  combo: { name: string; strategy: string; targets: string[] } | null;
  billingBoundary: Record<TrafficClass, BoundaryChoice>;
  maxWaitMs: number;
  requireClientKey: boolean;
  quotaCutoff: { enabled: boolean; cutoffPercent: number };
  /** The budget of the Switchyard key the tools present. */
  keyBudget: { period: "day"; maxTokens: number } | null;
  /** The held connection a lease key may lease (R7.2), or null. */
  leaseConnection: string | null;
  /** R25.1: models with a small context window on their simulator, declared in modelInfo or left to be learned. */
  windows: ModelWindowPlan[];
}

export interface ModelWindowPlan {
  provider: string;
  model: string;
  /** Tokens (a token is four characters to the simulator). */
  window: number;
  /** Named in the provider's modelInfo; otherwise Switchyard learns it from the first refusal. */
  declared: boolean;
}

/** R25.1: a few models hold a small window (drawn from a fork: the kept seeds' laptops draw as before). */
function smallWindows(rng: Prng, providers: ProviderPlan[]): ModelWindowPlan[] {
  const out: ModelWindowPlan[] = [];
  for (const p of providers) {
    if (!rng.chance(0.5)) continue;
    out.push({ provider: p.id, model: rng.pick(p.models), window: rng.pick([1_500, 3_000, 6_000]), declared: rng.chance(0.5) });
  }
  return out;
}

const b64url = (text: string): string => Buffer.from(text).toString("base64url");

/** A ChatGPT access token as Codex sends it: a JWT whose claims name the plan's account. */
function chatgptJwt(rng: Prng, accountId: string): string {
  const claims = { exp: 4_102_444_800, "https://api.openai.com/auth": { chatgpt_account_id: accountId, chatgpt_plan_type: "plus" } };
  return `${b64url(JSON.stringify({ alg: "RS256", typ: "JWT" }))}.${b64url(JSON.stringify(claims))}.${rng.token(43)}`;
}

function heldKeys(rng: Prng, providerId: string, count: number, make: () => string, subscription = false): HeldKey[] {
  return Array.from({ length: count }, (_, i) => {
    const held: HeldKey = { connectionId: `${providerId}-k${i + 1}`, key: make(), subscription };
    if (rng.chance(0.2)) held.budget = { period: "day", maxTokens: rng.int(300, 3_000) };
    return held;
  });
}

function provider(id: string, format: ProviderFormat, models: string[], priority: number, extra: Partial<ProviderPlan> = {}): ProviderPlan {
  return { id, format, category: "apikey", models, priority, chatgptBackend: false, held: [], clientLogin: null, quotaHeaders: false, ...extra };
}

/** Claude on a Max login (and maybe a work key beside it), and a metered Anthropic provider behind it. */
function anthropicSide(rng: Prng, logins: LoginPlan[]): ProviderPlan[] {
  const out: ProviderPlan[] = [];
  const claude = provider("claude", "anthropic", ["claude-sonnet-x", "claude-opus-x"], 0, { category: "oauth", clientLogin: "claude-login" });
  if (rng.chance(0.5)) claude.held = heldKeys(rng, "claude", 1, () => `sk-ant-api03-work-${rng.token(24)}`);
  const count = rng.int(1, 2);
  for (let i = 1; i <= count; i++) {
    logins.push({ kind: "anthropic", name: `max-${i}`, token: `sk-ant-oat01-${rng.token(40)}`, fiveHourLimit: rng.int(3, 25), providerId: "claude" });
  }
  out.push(claude);
  if (rng.chance(0.3)) {
    const team = provider("claude-team", "anthropic", ["claude-sonnet-x"], 2, { category: "oauth" });
    team.held = heldKeys(rng, "claude-team", 1, () => `sk-ant-oat01-team-${rng.token(32)}`, true);
    out.push(team);
  }
  if (rng.chance(0.85)) {
    const models = rng.chance(0.5) ? ["claude-sonnet-x", "claude-haiku-x"] : ["claude-sonnet-x"];
    out.push(
      provider("anthropic-api", "anthropic", models, 5, {
        held: heldKeys(rng, "anthropic-api", rng.int(1, 2), () => `sk-ant-api03-${rng.token(30)}`),
        quotaHeaders: rng.chance(0.5),
      }),
    );
  }
  return out;
}

function openaiSide(rng: Prng, logins: LoginPlan[]): ProviderPlan[] {
  const out: ProviderPlan[] = [];
  if (rng.chance(0.9)) {
    const accountId = `acct-${rng.token(10)}`;
    logins.push({ kind: "chatgpt", name: accountId, token: chatgptJwt(rng, accountId), accountId, fiveHourLimit: rng.int(3, 25), providerId: "chatgpt" });
    out.push(provider("chatgpt", "openai-responses", ["gpt-x"], 0, { category: "oauth", chatgptBackend: true, clientLogin: "chatgpt-login" }));
  }
  out.push(
    provider("openai", "openai", ["gpt-x", "gpt-mini"], 3, { held: heldKeys(rng, "openai", rng.int(1, 2), () => `sk-proj-${rng.token(32)}`), quotaHeaders: rng.chance(0.5) }),
  );
  if (rng.chance(0.6)) out.push(provider("responses", "openai-responses", ["gpt-x", "o-x"], 4, { held: heldKeys(rng, "responses", 1, () => `sk-resp-${rng.token(30)}`) }));
  if (rng.chance(0.8)) out.push(provider("gemini", "gemini", ["gemini-x", "gemini-flash-x"], 1, { held: heldKeys(rng, "gemini", 1, () => `AIzaSy${rng.token(33)}`) }));
  return out;
}

function pickCombo(rng: Prng, providers: ProviderPlan[]): Laptop["combo"] {
  if (!rng.chance(0.8)) return null;
  const pool = providers.flatMap((p) => p.models.map((m) => `${p.id}/${m}`));
  const targets: string[] = [];
  const count = rng.int(2, 3);
  for (let i = 0; i < count && pool.length > 0; i++) targets.push(pool.splice(rng.int(0, pool.length - 1), 1)[0]);
  return { name: "coder", strategy: rng.pick(["priority", "round-robin", "fill-first", "random", "least-used"]), targets };
}

export function generateLaptop(rng: Prng): Laptop {
  const logins: LoginPlan[] = [];
  const providers = [...anthropicSide(rng, logins), ...openaiSide(rng, logins)];
  const billingBoundary = Object.fromEntries(CLASSES.map((c) => [c, rng.weighted<BoundaryChoice>({ cross: 2, wait: 1, stay: 1 })])) as Record<TrafficClass, BoundaryChoice>;
  const heldIds = providers.flatMap((p) => p.held.filter((h) => !h.subscription).map((h) => h.connectionId));
  return {
    providers,
    logins,
    ownAnthropicKey: `sk-ant-api03-own-${rng.token(28)}`,
    combo: pickCombo(rng, providers),
    billingBoundary,
    maxWaitMs: rng.pick([400, 1_000, 1_500]),
    requireClientKey: rng.chance(0.35),
    quotaCutoff: { enabled: rng.chance(0.5), cutoffPercent: rng.pick([5, 20, 40]) },
    keyBudget: rng.chance(0.3) ? { period: "day", maxTokens: rng.int(2_000, 20_000) } : null,
    leaseConnection: heldIds.length > 0 && rng.chance(0.5) ? rng.pick(heldIds) : null,
    windows: smallWindows(rng.fork("context-windows"), providers),
  };
}

/** Every model name the laptop's providers list, bare and as provider/model, and the combo. */
export function knownModels(laptop: Laptop): Set<string> {
  const known = new Set<string>();
  for (const p of laptop.providers) {
    for (const m of p.models) {
      known.add(m);
      known.add(`${p.id}/${m}`);
    }
  }
  if (laptop.combo) known.add(laptop.combo.name);
  return known;
}

export const providerById = (laptop: Laptop, id: string): ProviderPlan | undefined => laptop.providers.find((p) => p.id === id);
