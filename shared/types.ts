// Domain types shared by main, preload and renderer. No Node, Electron or DOM imports.
import type { QueueRow } from "./apiTypes.js";

export type WireFormat = "openai" | "openai-responses" | "anthropic" | "gemini";
/** `simulator` is the built-in fake upstream: it speaks whichever wire format the client speaks. */
export type ProviderFormat = WireFormat | "simulator";
export type ProviderCategory = "apikey" | "oauth" | "local";

export interface Provider {
  id: string;
  format: ProviderFormat;
  baseUrl: string;
  category: ProviderCategory;
  models: string[];
  /** family name -> model prefixes; a 429/403/402 locks the whole family (R5.2). */
  quotaFamilies: Record<string, string[]>;
  /** When true, any model name is forwarded even if not listed in `models`. */
  passthroughModels: boolean;
  /** Per-provider retry delay for rate-limit verdicts, 1–21 600 s (R4.3). */
  rateLimitCooldownSeconds: number | null;
  /** R1.3: a bare model name goes to the first provider serving it, lower priority first (default 0). */
  priority: number;
  /** Free-form per-provider options (simulator faults, headers…). Never holds secrets. */
  options: Record<string, unknown>;
  /** Explicit metadata per model id, read by the combo strategies (R11.1); never guessed. */
  modelInfo?: Record<string, ModelInfo>;
  /** R8.1: the provider gate, requests in flight over all its connections; null or absent = no gate. */
  maxConcurrent?: number | null;
  /**
   * R21.10: derived, never stored: the provider has a client-login connection, so model names its
   * list does not name pass through (the vendor decides what a login may use).
   */
  servesLogins?: boolean;
  createdAt: number;
  updatedAt: number;
}

/** R4.1 / R4.6 */
export type TestStatus = "active" | "unavailable" | "banned" | "expired" | "credits_exhausted";
export const TERMINAL_TEST_STATUSES: readonly TestStatus[] = ["banned", "expired", "credits_exhausted"];

export interface RateLimitOverrides {
  maxConcurrent?: number | null;
  modelConcurrency?: Record<string, number>;
  maxWaitMs?: number;
  executionMaxWaitMs?: number;
}

export interface ProviderSpecificData {
  rotationOverrides?: { rateLimitResetSeconds?: number };
  lowPriorityMode?: boolean;
  autoLimitReset?: boolean;
  organizationUUID?: string;
  [key: string]: unknown;
}

/** Runtime (resilience) fields of a connection, persisted (R4.1). Instants are epoch ms. */
export interface ConnectionRuntime {
  testStatus: TestStatus;
  rateLimitedUntil: number | null;
  backoffLevel: number;
  lastError: string | null;
  lastErrorType: string | null;
  errorCode: string | null;
  lastErrorAt: number | null;
  /** Consecutive 401s counted towards EXPIRED_RETRY_MAX (R4.6). */
  authFailureCount: number;
}

/** A connection = one account / key of a provider. Never carries the secret. */
export interface Connection extends ConnectionRuntime {
  id: string;
  provider: string;
  name: string;
  priority: number;
  weight: number;
  active: boolean;
  hasSecret: boolean;
  maxConcurrent: number | null;
  rateLimitOverrides: RateLimitOverrides;
  /** R9.5: only written by POST /api/rate-limits. */
  rateLimitProtection: boolean | null;
  providerSpecificData: ProviderSpecificData;
  disableCooling: boolean;
  /** R18.1: a flat-rate subscription account: its cost is notional (what the tokens would cost). */
  subscription: boolean;
  /** R18.4: a spending cap for the period; over it the connection is skipped (reason `budget`). */
  budget: Budget | null;
  /** What the current period has used against `budget` (null without a budget). */
  budgetUsed?: BudgetUsed | null;
  /**
   * R21.1: "key" = Switchyard holds the secret; "client" = each request's own login is the
   * credential (such a connection is a template: every distinct login becomes an account of its own).
   */
  credential: "key" | "client";
  /** R21.2: on a login's account, the client-login connection it belongs to; null otherwise. */
  accountOf: string | null;
  createdAt: number;
  updatedAt: number;
}

/** R18.4: a cap per day or month (UTC), in cost, in tokens, or both (the first one reached counts). */
export interface Budget {
  period: "day" | "month";
  maxCostUsd?: number;
  maxTokens?: number;
}

export interface BudgetUsed {
  costUsd: number;
  tokens: number;
  /** Epoch ms: the end of the current period, when the use starts again from zero. */
  resetAt: number;
}

/** What the operator states about one model; the price and context strategies read it. */
export interface ModelInfo {
  inputPricePerMTok?: number;
  outputPricePerMTok?: number;
  /** R18.1: cached tokens at their own price; absent = the input price. */
  cacheReadPricePerMTok?: number;
  cacheWritePricePerMTok?: number;
  contextWindow?: number;
  cacheSupport?: boolean;
}

export interface ComboTarget {
  model: string;
  connectionId?: string;
  weight?: number;
}

export interface Combo {
  name: string;
  strategy: string;
  targets: ComboTarget[];
  config: {
    comboCooldownWaitEnabled?: boolean;
    targetTimeoutMs?: number;
    quotaShare?: boolean;
    [key: string]: unknown;
  };
  createdAt: number;
  updatedAt: number;
}

export interface ApiKeyInfo {
  id: string;
  name: string;
  /** First characters of the key, for recognition; never the whole key. */
  prefix: string;
  scopes: string[];
  allowedConnections: string[];
  createdAt: number;
  lastUsedAt: number | null;
  /** R18.4: over it the key's requests get 429 budget_exceeded until the period ends. */
  budget: Budget | null;
  budgetUsed?: BudgetUsed | null;
}

export type BreakerState = "CLOSED" | "DEGRADED" | "OPEN" | "HALF_OPEN";

/** R25.4: where an attempt ended: before a response head, at it, before content, mid-stream, with no terminal event, or complete. */
export type AttemptEnded = "connect" | "headers" | "before_content" | "mid_stream" | "no_terminal" | "complete";
export const ATTEMPT_ENDINGS: readonly AttemptEnded[] = ["connect", "headers", "before_content", "mid_stream", "no_terminal", "complete"];

/** R25.4: whose fault an attempt's end was; only transport, provider and account blame the upstream. */
export type AttemptFault = "none" | "transport" | "provider" | "account" | "client" | "context" | "gateway";
export const ATTEMPT_FAULTS: readonly AttemptFault[] = ["none", "transport", "provider", "account", "client", "context", "gateway"];

export interface AttemptRecord {
  provider: string;
  connectionId: string | null;
  model: string;
  status: number | null;
  verdict: string | null;
  latencyMs: number;
  /** R25.4: where the attempt ended (every attempt since R25.4; absent on rows stored before). */
  ended?: AttemptEnded;
  /** R25.4: whose fault it was ("none" for an attempt that answered; absent on rows stored before R25.4). */
  fault?: AttemptFault;
  /** R12.5: the IP the attempt left from, when the connection binds one. */
  egressIp?: string;
  /** Bytes of the answer: the upstream's error body, or what the client received from this attempt. */
  bytes?: number;
  /** The upstream's retry hint and where it came from ("retry-after", a reset header…). */
  retryHintMs?: number | null;
  retryHintSource?: string | null;
  /** What the failure left on the connection: cooling down or a model lockout, and for how long. */
  after?: { state: string; remainingMs: number | null } | null;
}

/** The kinds of client the request log tells apart, from the user-agent and the client's own headers. */
export type ClientKind =
  "claude-code" | "qwen-code" | "aider" | "codex-cli" | "gemini-cli" | "opencode" | "ai-sdk" | "openai-sdk" | "anthropic-sdk" | "genai-sdk" | "curl" | "other";

/**
 * R20.3: what a request is for, from the client's own signals: the turn the user waits for, a
 * subagent's turn, background work (titles, suggestions, memory extraction, the small-fast model),
 * a compaction, or a token count.
 */
export type TrafficClass = "main" | "subagent" | "background" | "compaction" | "count";

export const TRAFFIC_CLASSES: readonly TrafficClass[] = ["main", "subagent", "background", "compaction", "count"];

/** R20.2: a failover that moved a session with a warm prompt cache to a connection without it (the timeline's mark). */
export interface CacheMove {
  fromConnectionId: string;
  toConnectionId: string;
  /** The prompt tokens the new connection read afresh (not from its cache): what the move cost. */
  resentTokens: number | null;
}

/** R20.4: at a short 429 on the connection holding the session's warm cache, whether Switchyard waited or moved, and why. */
export interface WaitOrSwitchRecord {
  choice: "wait" | "switch";
  /** e.g. hint_within_wait, hint_too_long, no_hint, not_warm, disabled, background. */
  reason: string;
  connectionId: string;
  hintMs: number | null;
  waitedMs: number;
  /** The waitOrSwitch.maxWaitMs the choice was made against (R20.4). */
  maxWaitMs: number;
}

/** R20.1: reasoning artifacts taken out of a request before it went to a connection that did not issue them. */
export interface ProvenanceRecord {
  /** Artifacts removed (signatures, encrypted blobs, reasoning ids). */
  removed: number;
  /** Artifacts whose content went on as plain text, or whose part stayed without its signature. */
  plain: number;
}

/** A connection or target passed over before dispatch, and why (the request timeline). */
export interface SkipRecord {
  provider: string;
  target: string;
  connectionId: string | null;
  /** circuit_open, unavailable (cooling), model_lockout, provider_cooldown, terminal, inactive, tool_limit, leased, quota_cutoff. */
  reason: string;
  remainingMs: number | null;
}

/** R15.1 */
export interface RequestLogEntry {
  id: string;
  time: number;
  clientFormat: WireFormat;
  model: string;
  combo: string | null;
  provider: string | null;
  connectionId: string | null;
  status: number;
  errorCode: string | null;
  latencyMs: number;
  ttfbMs: number | null;
  stream: boolean;
  /** R18.1: all prompt tokens (cache reads and writes included), and all generated ones (reasoning included). */
  inputTokens: number | null;
  outputTokens: number | null;
  /** Null when the upstream did not say (or no attempt answered). */
  cacheReadTokens?: number | null;
  cacheWriteTokens?: number | null;
  reasoningTokens?: number | null;
  /** R18.1: null when no price is known; notional when the connection is a subscription. */
  costUsd?: number | null;
  costSource?: "modelInfo" | "catalog" | null;
  costNotional?: boolean;
  /** The client key the request presented (its id, never the key), when one was verified. */
  apiKeyId?: string | null;
  /** `provider/model` as the answering upstream was asked for it: what usage by model counts. */
  servedModel?: string | null;
  attempts: AttemptRecord[];
  /** R12.5: the egress IP of the row's connection (its attempt's), when known. */
  egressIp?: string | null;
  /** From the user-agent; absent on rows written before it was recorded. */
  clientKind?: ClientKind;
  /** What selection passed over before dispatch (last pass), and the combo's waits. */
  skipped?: SkipRecord[];
  comboWaits?: { count: number; waitedMs: number };
  /** Only with the promptLogging setting on, and only until its retention ends. */
  promptText?: string | null;
  /** R20.3: absent on rows written before classes were kept. */
  trafficClass?: TrafficClass;
  /** R20.2: cacheReadTokens ÷ inputTokens, null when the upstream did not say. */
  cacheReadShare?: number | null;
  /** R20.2: set when this request moved a warm session to a connection without its cache. */
  cacheMove?: CacheMove | null;
  /** R20.4: the wait-or-switch decisions this request took (one per short 429 on a warm connection). */
  waitOrSwitch?: WaitOrSwitchRecord[];
  /** R21.5: the answer came from a metered account after a subscription account was tried or skipped for its window. */
  billingCrossed?: boolean;
  /** R21.5: the timeline's view of the crossing: the subscription account left and the metered one that answered. */
  billingCrossing?: { fromConnectionId: string; toConnectionId: string };
  /** R20.1: set when foreign reasoning artifacts were taken out before sending. */
  provenance?: ProvenanceRecord | null;
  /** R26.1: how the client's request came: a POST (`http`) or a turn of a Responses WebSocket; absent on rows written before. */
  transport?: RequestTransport;
}

/** R26.1: a request over HTTP, or one turn of a Responses WebSocket. */
export type RequestTransport = "http" | "websocket";

/** General (non-resilience) settings, GET/PATCH /api/settings. */
export interface ProviderErrorRule {
  provider: string;
  status?: number;
  match?: string;
  scope: "model" | "connection" | "provider";
  reason?: string;
  cooldownMs?: number;
}

export interface AppSettings {
  sessionAffinityTtlMs: number;
  requireClientKey: boolean;
  maxBodyMb: number;
  proxyEnabled: boolean;
  providerErrorRules: ProviderErrorRule[];
  providerErrorDefaults: Record<string, { cooldownMs: number; scope?: "model" | "connection" | "provider"; reason?: string }>;
  emergencyFallback: { enabled: boolean; model: string | null };
  aliases: Record<string, string>;
  requestLogRetention: number;
  /** Keep the prompt text of each request in the log (off by default). */
  promptLogging: boolean;
  /** Hours a logged prompt is kept before it is erased from its row. */
  promptRetentionHours: number;
  /** R16.4: hours a served Responses API turn is kept for previous_response_id; 0 keeps none. */
  responsesRetentionHours: number;
  /** R9.6: Redis shared by the Switchyards that share limits (wins over SWITCHYARD_REDIS_URL); null = env or none. */
  redisUrl: string | null;
  /** R18.5: GET /metrics answers without the admin token (off by default). */
  metricsPublic: boolean;
  /** R8.1: the global gate, requests in flight over every provider; null = no gate. */
  maxConcurrent: number | null;
}

/** Live events pushed to the UI (R15.2). */
export type SwitchyardEvent =
  | { type: "breaker"; provider: string; from: BreakerState; to: BreakerState; at: number }
  | { type: "cooldown.set"; connectionId: string; provider: string; until: number | null; reason: string; at: number }
  | { type: "cooldown.cleared"; connectionId: string; provider: string; at: number }
  | { type: "lockout.set"; provider: string; connectionId: string; model: string; reason: string; expiresAt: number; at: number }
  | { type: "lockout.cleared"; provider: string; connectionId: string | null; model: string | null; at: number }
  | { type: "settings"; scope: "resilience" | "settings"; at: number }
  | { type: "config"; entity: "provider" | "connection" | "combo" | "key"; id: string; action: "created" | "updated" | "deleted"; at: number }
  | { type: "request"; entry: RequestLogEntry; at: number }
  /** R18.4: a key's or connection's use crossed 80 % or 100 % of its budget for the period. */
  | { type: "budget"; scope: "key" | "connection"; id: string; name: string; percent: 80 | 100; usedCostUsd: number; usedTokens: number; resetAt: number; at: number }
  /** Admission state changed (R9): every connection's in-flight, queued and paused-until. */
  | { type: "queues"; queues: QueueRow[]; at: number }
  /** R21.5: a request left a subscription account for a metered one (first of an episode), or the episode ended. */
  | { type: "billing.crossed"; fromConnectionId: string; toConnectionId: string; trafficClass: string; at: number }
  | { type: "billing.returned"; connectionId: string; at: number }
  /** R21.7: a subscription window reached 80, 95 or 100 % (once per window period). */
  | { type: "quota.threshold"; connectionId: string; window: string; percent: 80 | 95 | 100; at: number }
  /** R25.4: an upstream refused as malformed a request Switchyard translated (no prompt content, only the upstream's message). */
  | { type: "gateway.fault"; provider: string; clientFormat: WireFormat; upstreamFormat: WireFormat; message: string; at: number };

/** One Responses API turn as served (R16.4): what the client sent and what it was answered, nothing else. */
export interface StoredResponseRecord {
  /** The response object's id ("resp_…"). */
  id: string;
  createdAt: number;
  /** Epoch ms from which the turn is gone: never served again, purged soon after. */
  expiresAt: number;
  model: string;
  /** The connection that served the turn; null when none did. */
  connectionId: string | null;
  /** The turn's whole input: earlier turns' items already expanded, then what this request added. */
  inputItems: unknown[];
  /** The response object as the client received it, with `output`. */
  response: Record<string, unknown>;
}
