// The client shapes of a day (../shared/CLIENTS.md): what each real agent, SDK script and CLI sends,
// with the credential it carries. A plan is pure data drawn from the seed; `toHttp` fills in what only
// the running laptop knows (the Switchyard key), so the same seed gives the same day.
import type { Laptop, LoginPlan } from "./laptop.js";
import type { Prng } from "./prng.js";

export type ClientFormat = "openai" | "openai-responses" | "anthropic" | "gemini";
export type Operation = "generate" | "count" | "compact";

/** What the client authenticates with: a login (R24.1), a placeholder of no vendor's shape, or nothing. */
export type Credential = { kind: "login"; token: string; accountId?: string } | { kind: "placeholder"; value: string } | { kind: "none" };

export interface RequestPlan {
  shape: string;
  format: ClientFormat;
  operation: Operation;
  path: string;
  model: string;
  stream: boolean;
  credential: Credential;
  via: "bearer" | "x-api-key" | "x-goog-api-key";
  headers: Record<string, string>;
  body: Record<string, unknown>;
  /** With requireClientKey on: the user forgot to give this client the Switchyard key (a 401 is right). */
  forgetsKey: boolean;
  /** Sent under the day's exclusive lease, when one is held. */
  leased: boolean;
  /** R26.1: a streamed Codex turn sent as a `response.create` frame on a Responses WebSocket (no lease fence there). */
  transport?: "websocket";
}

/**
 * R26.1: about a third of Codex's streamed turns go over its WebSocket. Read off the prompt's number
 * (no draw of its own, so the rest of a seed's day is what it was).
 */
function overSocket(p: RequestPlan): RequestPlan {
  if (p.operation !== "generate" || !p.stream) return p;
  const n = Number(/#(\d+)/.exec(JSON.stringify(p.body["input"]))?.[1] ?? 1);
  if (n % 3 !== 0) return p;
  return { ...p, transport: "websocket", leased: false };
}

export interface HttpRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

const PLACEHOLDERS = ["switchyard", "dummy", "x", "ollama", ""];
const CLAUDE_UA = "claude-cli/2.1.332 (external, cli)";
const CLAUDE_BETA = "claude-code-20250219,oauth-2025-04-20,interleaved-thinking-2025-05-14";

function anthropicModels(laptop: Laptop): Record<string, number> {
  const m: Record<string, number> = { "claude-sonnet-x": 5, "claude-opus-x": 2, "claude-haiku-x": 2, "claude/claude-sonnet-x": 1, "claude-sonet-x": 1, "claude-3-unknown": 1 };
  if (laptop.providers.some((p) => p.id === "anthropic-api")) m["anthropic-api/claude-sonnet-x"] = 1;
  if (laptop.combo) m[laptop.combo.name] = 1;
  return m;
}

function openaiModels(laptop: Laptop): Record<string, number> {
  const m: Record<string, number> = { "gpt-x": 4, "gpt-mini": 2, "openai/gpt-mini": 1, "o-x": 1, "gpt-mni": 1, "gemini-x": 1 };
  if (laptop.combo) m[laptop.combo.name] = 1;
  return m;
}

const prompt = (rng: Prng): string =>
  rng.pick(["fix the failing test", "explain this stack trace", "rename the helper", "write a commit message", "carry on"]) + ` #${rng.int(1, 999)}`;

function anthropicBody(rng: Prng, model: string, stream: boolean, operation: Operation, system?: string): Record<string, unknown> {
  const body: Record<string, unknown> = { model, messages: [{ role: "user", content: prompt(rng) }] };
  if (system) body.system = system;
  if (operation === "count") return body;
  return { ...body, max_tokens: rng.pick([64, 256, 1024]), ...(stream ? { stream: true } : {}) };
}

function chatBody(rng: Prng, model: string, stream: boolean, system?: string): Record<string, unknown> {
  const messages = [...(system ? [{ role: "system", content: system }] : []), { role: "user", content: prompt(rng) }];
  const body: Record<string, unknown> = { model, messages };
  if (stream) Object.assign(body, { stream: true, stream_options: { include_usage: true } });
  return body;
}

function responsesBody(rng: Prng, model: string, stream: boolean, operation: Operation): Record<string, unknown> {
  const input = [{ type: "message", role: "user", content: [{ type: "input_text", text: prompt(rng) }] }];
  const body: Record<string, unknown> = { model, input, instructions: "You are a coding agent." };
  if (operation === "generate") Object.assign(body, { store: false, include: ["reasoning.encrypted_content"], ...(stream ? { stream: true } : {}) });
  return body;
}

function plan(partial: Omit<RequestPlan, "forgetsKey" | "leased" | "headers"> & { headers?: Record<string, string> }, rng: Prng): RequestPlan {
  return { headers: {}, ...partial, forgetsKey: rng.chance(0.1), leased: false };
}

function claudeCode(rng: Prng, laptop: Laptop, login: LoginPlan | null): RequestPlan {
  const operation: Operation = rng.chance(0.2) ? "count" : "generate";
  const title = operation === "generate" && rng.chance(0.2);
  const model = title ? "claude-haiku-x" : rng.weighted(anthropicModels(laptop));
  const stream = operation === "generate" && !title && rng.chance(0.8);
  const headers: Record<string, string> = { "anthropic-version": "2023-06-01", "user-agent": CLAUDE_UA };
  if (login) headers["anthropic-beta"] = CLAUDE_BETA;
  // R25.5: the gateway hints of CLAUDE_CODE_GATEWAY_HINT_HEADERS=1 (side_reply: a value no class matches).
  const klass = rng.weighted({ none: 5, main: 1, subagent: 2, workflow: 1, compaction: 1, auxiliary: 1, side_reply: 1 });
  if (klass !== "none" && operation === "generate" && !title) headers["x-claude-code-request-class"] = klass;
  if (operation === "generate" && rng.chance(0.08)) headers["x-claude-code-context-compacted"] = rng.pick(["auto", "manual", "reactive"]);
  const credential: Credential = login
    ? { kind: "login", token: login.token }
    : rng.chance(0.4)
      ? { kind: "login", token: laptop.ownAnthropicKey }
      : { kind: "placeholder", value: "x" };
  const path = operation === "count" ? "/v1/messages/count_tokens?beta=true" : "/v1/messages?beta=true";
  const system = title ? "You are naming a coding session. Reply with a short title." : undefined;
  const shape = login ? "claude-code-login" : "claude-code-key";
  return plan(
    {
      shape,
      format: "anthropic",
      operation,
      path,
      model,
      stream,
      credential,
      via: login ? "bearer" : "x-api-key",
      headers,
      body: anthropicBody(rng, model, stream, operation, system),
    },
    rng,
  );
}

function codexChatgpt(rng: Prng, login: LoginPlan): RequestPlan {
  const operation: Operation = rng.chance(0.15) ? "compact" : "generate";
  const model = rng.weighted({ "gpt-x": 5, "gpt-5-codex-x": 2, "chatgpt/gpt-x": 1, "gpt-xx": 1 });
  const stream = operation === "generate";
  const path = operation === "compact" ? "/backend-api/codex/responses/compact" : "/backend-api/codex/responses";
  const headers = { "chatgpt-account-id": login.accountId ?? "", "user-agent": "codex_cli_rs/0.171.0", "session-id": `s-${rng.token(8)}` };
  const credential: Credential = { kind: "login", token: login.token, accountId: login.accountId };
  return overSocket(
    plan(
      {
        shape: "codex-chatgpt",
        format: "openai-responses",
        operation,
        path,
        model,
        stream,
        credential,
        via: "bearer",
        headers,
        body: responsesBody(rng, model, stream, operation),
      },
      rng,
    ),
  );
}

function codexKey(rng: Prng, laptop: Laptop): RequestPlan {
  const operation = rng.weighted<Operation>({ generate: 6, compact: 1, count: 1 });
  const model = rng.weighted(openaiModels(laptop));
  const stream = operation === "generate" && rng.chance(0.8);
  const path = { generate: "/v1/responses", compact: "/v1/responses/compact", count: "/v1/responses/input_tokens" }[operation];
  const credential: Credential = { kind: "placeholder", value: rng.pick(PLACEHOLDERS) };
  const p = plan(
    {
      shape: "codex-key",
      format: "openai-responses",
      operation,
      path,
      model,
      stream,
      credential,
      via: "bearer",
      headers: { "user-agent": "codex_cli_rs/0.171.0" },
      body: responsesBody(rng, model, stream, operation),
    },
    rng,
  );
  p.leased = rng.chance(0.25);
  return overSocket(p);
}

/** opencode, Qwen Code, pi and the OpenAI SDK on chat completions, each with a placeholder key. */
function chatClient(rng: Prng, laptop: Laptop): RequestPlan {
  const who = rng.weighted({ opencode: 3, qwen: 2, pi: 2, "openai-sdk": 2 });
  const ua = { opencode: "opencode/1.18.33 ai-sdk/openai-compatible", qwen: "QwenCode/0.24.4 (linux; x64)", pi: "pi-coding-agent/0.73.1", "openai-sdk": "OpenAI/JS 5.0.0" }[who];
  const title = who === "opencode" && rng.chance(0.4);
  const model = rng.weighted(openaiModels(laptop));
  const stream = who !== "openai-sdk" && rng.chance(0.8);
  const system = title ? "You are a title generator. You output ONLY a thread title." : undefined;
  const credential: Credential = { kind: "placeholder", value: rng.pick(PLACEHOLDERS) };
  const p = plan(
    {
      shape: who,
      format: "openai",
      operation: "generate",
      // R25.7: an SDK given the bare origin.
      path: who === "openai-sdk" && rng.chance(0.3) ? "/chat/completions" : "/v1/chat/completions",
      model,
      stream,
      credential,
      via: "bearer",
      headers: { "user-agent": ua },
      body: chatBody(rng, model, stream, system),
    },
    rng,
  );
  p.leased = who === "openai-sdk" && rng.chance(0.5);
  return p;
}

/** pi, Qwen Code in Anthropic mode and the Anthropic SDK: Anthropic's format with a placeholder key. */
function anthropicPlaceholder(rng: Prng, laptop: Laptop): RequestPlan {
  const who = rng.weighted({ pi: 1, "qwen-anthropic": 1, "anthropic-sdk": 2, "ai-sdk-anthropic": 1 });
  const ua = { pi: "pi-coding-agent/0.73.1", "qwen-anthropic": "claude-cli/1.0.0 (qwen)", "anthropic-sdk": "Anthropic/JS 0.60.0", "ai-sdk-anthropic": "ai-sdk/anthropic/4.0.105" }[
    who
  ];
  const model = rng.weighted(anthropicModels(laptop));
  const stream = rng.chance(0.5);
  const credential: Credential = rng.chance(0.1) ? { kind: "none" } : { kind: "placeholder", value: rng.pick(PLACEHOLDERS) };
  const headers = { "anthropic-version": "2023-06-01", "user-agent": ua };
  const operation: Operation = rng.chance(0.25) ? "count" : "generate";
  // R25.7: the AI SDK's Anthropic provider given the bare origin posts without /v1.
  const prefix = who === "ai-sdk-anthropic" && rng.chance(0.7) ? "" : "/v1";
  const path = operation === "count" ? `${prefix}/messages/count_tokens` : `${prefix}/messages`;
  const p = plan(
    {
      shape: who,
      format: "anthropic",
      operation,
      path,
      model,
      stream: stream && operation === "generate",
      credential,
      via: "x-api-key",
      headers,
      body: anthropicBody(rng, model, stream, operation),
    },
    rng,
  );
  p.leased = rng.chance(0.25);
  return p;
}

function geminiClient(rng: Prng): RequestPlan {
  const who = rng.weighted({ "gemini-cli": 3, "genai-sdk": 1 });
  const operation: Operation = rng.chance(0.2) ? "count" : "generate";
  const model = rng.weighted({ "gemini-x": 5, "gemini-flash-x": 2, "gemini-xx": 1, "gpt-mini": 1 });
  const stream = operation === "generate" && who === "gemini-cli";
  const method = operation === "count" ? "countTokens" : stream ? "streamGenerateContent" : "generateContent";
  const path = `/v1beta/models/${encodeURIComponent(model)}:${method}${stream ? "?alt=sse" : ""}`;
  const credential: Credential = { kind: "placeholder", value: rng.pick(["switchyard", "dummy", "any"]) };
  const body = { contents: [{ role: "user", parts: [{ text: prompt(rng) }] }] };
  const ua = who === "gemini-cli" ? "GeminiCLI/0.61.0 (linux; x64)" : "google-genai-sdk/1.0.0 gl-node/20";
  const p = plan({ shape: who, format: "gemini", operation, path, model, stream, credential, via: "x-goog-api-key", headers: { "user-agent": ua }, body }, rng);
  p.leased = rng.chance(0.25);
  return p;
}

type Json = Record<string, any>;

/** The last text the user wrote, in the body's own format, made `tokens` tokens longer (four characters a token). */
function lengthen(body: Json, format: ClientFormat, tokens: number): void {
  const filler = ` ${"lorem ipsum dolor sit amet ".repeat(Math.ceil((tokens * 4) / 27))}`;
  const list = format === "gemini" ? body.contents : format === "openai-responses" ? body.input : body.messages;
  const last = Array.isArray(list) ? (list[list.length - 1] as Json | undefined) : undefined;
  if (!last) return;
  if (format === "gemini") last.parts[0].text += filler;
  else if (format === "openai-responses") last.content[0].text += filler;
  else last.content += filler;
}

/**
 * R25.1: a conversation grown long (drawn from a fork: the kept seeds' days draw as before): thousands
 * of tokens, past the small windows some models of the laptop hold.
 */
function maybeLong(rng: Prng, p: RequestPlan, laptop: Laptop): RequestPlan {
  const long = rng.fork("long-prompt");
  // Not where the tools' Switchyard key has a token budget: a few long prompts would spend it and refuse the rest of the day.
  if ((laptop.requireClientKey && laptop.keyBudget) || !long.chance(0.1)) return p;
  lengthen(p.body, p.format, long.pick([2_000, 4_000, 8_000]));
  return { ...p, shape: `${p.shape}+long` };
}

/** One request of the day, from any client shape. */
export function drawRequest(rng: Prng, laptop: Laptop): RequestPlan {
  return maybeLong(rng, drawShape(rng, laptop), laptop);
}

function drawShape(rng: Prng, laptop: Laptop): RequestPlan {
  const claudeLogins = laptop.logins.filter((l) => l.kind === "anthropic");
  const chatgpt = laptop.logins.find((l) => l.kind === "chatgpt");
  const shape = rng.weighted({ claudeLogin: 5, claudeKey: 2, codexChatgpt: chatgpt ? 3 : 0, codexKey: 2, chat: 4, anthropicPlaceholder: 2, gemini: 2 });
  if (shape === "claudeLogin") return claudeCode(rng, laptop, rng.pick(claudeLogins));
  if (shape === "claudeKey") return claudeCode(rng, laptop, null);
  if (shape === "codexChatgpt" && chatgpt) return codexChatgpt(rng, chatgpt);
  if (shape === "codexKey") return codexKey(rng, laptop);
  if (shape === "anthropicPlaceholder") return anthropicPlaceholder(rng, laptop);
  if (shape === "gemini") return geminiClient(rng);
  return chatClient(rng, laptop);
}

export interface RuntimeKeys {
  /** The Switchyard key the tools present when requireClientKey is on. */
  clientKey: string;
  lease: { key: string; owner: string; generation: number } | null;
}

/** The HTTP request a plan sends on this laptop now. */
export function toHttp(p: RequestPlan, base: string, requireClientKey: boolean, keys: RuntimeKeys): HttpRequest {
  const headers: Record<string, string> = { "content-type": "application/json", ...p.headers };
  let secret = p.credential.kind === "login" ? p.credential.token : p.credential.kind === "placeholder" ? p.credential.value : null;
  const leased = p.leased && keys.lease !== null;
  if (leased && keys.lease) {
    secret = keys.lease.key;
    headers["x-omniroute-lease-owner"] = keys.lease.owner;
    headers["x-omniroute-lease-generation"] = String(keys.lease.generation);
  } else if (requireClientKey && !p.forgetsKey) {
    // R21.3: beside a login the key travels in X-Switchyard-Key; a placeholder is replaced by it (R23.2).
    if (p.credential.kind === "login") headers["x-switchyard-key"] = keys.clientKey;
    else secret = keys.clientKey;
  }
  if (secret !== null) {
    if (p.via === "bearer") headers.authorization = `Bearer ${secret}`;
    else headers[p.via] = secret;
  }
  return { url: base + p.path, headers, body: JSON.stringify(p.body) };
}

/** R24.1: a credential in a vendor's own shape for this client format. */
export function isLoginShaped(format: ClientFormat, credential: string | null, accountId?: string): boolean {
  if (!credential) return false;
  if (format === "anthropic") return credential.startsWith("sk-ant-");
  if (format === "gemini") return /^(AIza|ya29\.)/.test(credential);
  if (credential.startsWith("sk-") && !credential.startsWith("sk-sy-")) return true;
  return format === "openai-responses" && accountId !== undefined && credential.split(".").length === 3;
}
