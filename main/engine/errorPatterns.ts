// Body-text signals of the classifier (R4.5, R4.7, D4). Plain lower-case substrings where a phrase
// is enough; a few anchored expressions where a bare word ("suspended", "model") would misfire.
import { isRecord } from "../../shared/records.js";

const includesAny = (text: string, phrases: readonly string[]): boolean => phrases.some((p) => text.includes(p));

const CONTEXT_OVERFLOW = [
  "context_length_exceeded",
  "maximum context length",
  "context length",
  "context window",
  "prompt is too long",
  "input is too long",
  "too many input tokens",
  "reduce the length of the messages",
  "exceeds the maximum number of tokens",
  "exceeds the available context size",
  // Other servers' wordings (vLLM, Bedrock, TGI, Azure, local runtimes).
  "longer than the maximum model length",
  "longer than the model's context length",
  "input is too long for requested model",
  "exceeded model token limit",
  "input token length too long",
  "input tokens exceed the configured limit",
  "maximum context limit",
  "maximum prompt length",
  "prompt exceeds max length",
  "context window exceeds limit",
] as const;

// R25.2: the numbers a context refusal states, in each vendor's wording (lower-cased text).
const DIGITS = "(\\d[\\d,]*)";
const PROMPT_OVER_MAXIMUM = new RegExp(`${DIGITS} tokens? > ${DIGITS}(?: tokens?)? maximum`);
const GEMINI_COUNTS = new RegExp(`input token count \\(?${DIGITS}\\)? exceeds the maximum number of tokens allowed \\(?${DIGITS}`);
const MAXIMUM_CONTEXT = new RegExp(`maximum context length is ${DIGITS}`);
const MESSAGES_TOKENS = new RegExp(`${DIGITS} in the messages`);
const RESULTED_TOKENS = new RegExp(`(?:resulted in|requested) ${DIGITS} tokens`);

const MODEL_MISSING = /\bmodel\b[^.\n]{0,120}?\b(does not exist|doesn't exist|is not available|not available|not found|is not supported|unsupported)\b/;
const MODEL_MISSING_PHRASES = ["model_not_found", "unknown model", "invalid model", "no such model", "model not found"] as const;

const CONCURRENCY = [
  "too many concurrent requests",
  "concurrency limit",
  "concurrent request limit",
  "parallel request limit",
  "too many parallel requests",
  "并发数过高",
] as const;

const WEEKLY = ["weekly usage limit", "weekly limit"] as const;
const SESSION = ["session usage limit", "session limit"] as const;
const USAGE_LIMIT = ["usage limit reached", "usage limit has been reached", "reached your usage limit", "hit your usage limit"] as const;
const DAILY = ["daily limit", "daily quota", "daily usage limit", "requests per day", "perday", "per day"] as const;
const QUOTA = [
  "monthly limit",
  "monthly quota",
  "monthly usage limit",
  "quota exceeded",
  "exceeded your current quota",
  "quota_exceeded",
  "insufficient_quota",
  "insufficient quota",
  "resource has been exhausted",
  "resource_exhausted",
  "out of quota",
] as const;

const CREDITS = ["credit_balance_too_low", "credit balance is too low", "payment required", "insufficient credits", "insufficient balance", "out of credits"] as const;

const BANNED = /\b(account|organization|organisation)\b[^.\n]{0,40}?\b(deactivated|suspended|banned)\b/;

const REQUEST_REJECTED = ["request not allowed", "request_not_allowed", "request was rejected"] as const;

const MODEL_ACCESS_DENIED = /\b(do not|does not|don't|doesn't) have access to (the )?model\b|\bnot allowed to use (this |the )?model\b|\bmodel access denied\b/;

// R11.7: wordings of "this request carries more tools than the model accepts".
const TOOL_LIMIT = [
  "too many tools",
  "'tools': array too long",
  "tools: maximum",
  "maximum number of tools",
  "max number of tools",
  "tool limit exceeded",
  "tools limit exceeded",
] as const;
const TOOL_LIMIT_SHAPE = /\b(number of tools|tools array|tool count)\b[^.\n]{0,60}?\b(exceed|exceeds|maximum|at most|limit)\b/;
const STATED_TOOL_LIMIT = /\b(?:maximum|max|at most|up to|limit(?: is| of)?)\b\D{0,40}?(\d{1,5})\b/;

/** Kinds of 429 body, quota first: a body that also reads like a concurrency limit stays quota (R4.5). */
export type QuotaKind = "weekly" | "session" | "usage" | "daily" | "quota";

export function quotaKind(text: string): QuotaKind | null {
  if (includesAny(text, WEEKLY)) return "weekly";
  if (includesAny(text, SESSION)) return "session";
  if (includesAny(text, USAGE_LIMIT)) return "usage";
  if (includesAny(text, DAILY)) return "daily";
  if (includesAny(text, QUOTA)) return "quota";
  return null;
}

export const looksLikeContextOverflow = (text: string): boolean => includesAny(text, CONTEXT_OVERFLOW);

const count = (match: RegExpExecArray | null, group = 1): number | null => {
  const value = match ? Number(match[group].replace(/,/g, "")) : Number.NaN;
  return Number.isFinite(value) && value > 0 ? value : null;
};

/** R25.2: the prompt's tokens and the window a context refusal states (lower-cased text); null where it names none. */
export function statedContextFacts(text: string): { tokens: number | null; window: number | null } {
  const pair = PROMPT_OVER_MAXIMUM.exec(text) ?? GEMINI_COUNTS.exec(text);
  if (pair) return { tokens: count(pair, 1), window: count(pair, 2) };
  return { tokens: count(MESSAGES_TOKENS.exec(text)) ?? count(RESULTED_TOKENS.exec(text)), window: count(MAXIMUM_CONTEXT.exec(text)) };
}
export const looksLikeMissingModel = (text: string): boolean => includesAny(text, MODEL_MISSING_PHRASES) || MODEL_MISSING.test(text);
export const looksLikeConcurrencyLimit = (text: string): boolean => includesAny(text, CONCURRENCY);
export const looksLikeRequestRejected = (text: string): boolean => includesAny(text, REQUEST_REJECTED);
export const looksLikeModelAccessDenied = (text: string): boolean => MODEL_ACCESS_DENIED.test(text);
export const looksLikeToolLimit = (text: string): boolean => includesAny(text, TOOL_LIMIT) || TOOL_LIMIT_SHAPE.test(text);

/** The tool limit a too-many-tools error states ("maximum number of tools is 32"), if it states one. */
export function statedToolLimit(text: string): number | null {
  const match = STATED_TOOL_LIMIT.exec(text);
  return match ? Number(match[1]) : null;
}
export const looksBanned = (text: string): boolean => text.includes("account has been deactivated") || BANNED.test(text);

/** D4: credit texts; `insufficient_quota` means credits only when the status is not 429. */
export function looksLikeCreditsExhausted(text: string, status: number | null): boolean {
  if (includesAny(text, CREDITS)) return true;
  return status !== 429 && text.includes("insufficient_quota");
}

/** The upstream's own error code or type, from a JSON error body (OpenAI, Anthropic, Gemini shapes). */
export function upstreamErrorCode(body: string): string | null {
  const parsed = parseJsonObject(body);
  if (!parsed) return null;
  const error = isRecord(parsed.error) ? parsed.error : parsed;
  for (const key of ["code", "type", "status"]) {
    const value = error[key];
    if (typeof value === "string" && value !== "" && value !== "error") return value;
  }
  return null;
}

/** The upstream's human message, for lastError and logs. */
export function upstreamErrorMessage(body: string): string | null {
  const parsed = parseJsonObject(body);
  if (!parsed) return null;
  const error = isRecord(parsed.error) ? parsed.error : parsed;
  return typeof error.message === "string" ? error.message : null;
}

function parseJsonObject(body: string): Record<string, unknown> | null {
  const trimmed = body.trim();
  if (!trimmed.startsWith("{")) return null;
  try {
    const value: unknown = JSON.parse(trimmed);
    return isRecord(value) ? value : null;
  } catch {
    // Not JSON after all (a truncated or HTML body): the text matchers still see it.
    return null;
  }
}
