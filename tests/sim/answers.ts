// I2 (R1.5, R24.4, API.md "Errors use the client's format"): is an answer well formed in the client's
// own format, with retry information wherever a status line would carry it? Returns what is wrong, or null.
import { ERROR_CODES } from "../../shared/errorCodes.js";
import type { ClientFormat, RequestPlan } from "./clients.js";
import { parseSse } from "../integration/harness.js";

type Json = Record<string, any>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The SSE frames of a body: event name and data text (comment and keep-alive lines left out). */
export const sseFrames = parseSse;

/** The status a code stands for (429, 503…), from the one catalogue of codes. */
function statusOfCode(code: unknown): number | null {
  if (typeof code !== "string") return null;
  const entry = (ERROR_CODES as Record<string, { status: number | null }>)[code];
  if (entry?.status) return entry.status;
  return code === "usage_limit_reached" ? 429 : null;
}

const deepHas = (value: unknown, keys: string[]): boolean => keys.some((k) => JSON.stringify(value ?? null).includes(`"${k}"`));

/** R24.4: an error decided after headers carries the code, and retry_after/reset_at when it is a 429 or 503. */
function streamError(error: unknown, where: string): string | null {
  if (!isObject(error)) return `${where}: the error event has no error object`;
  const inner = isObject(error.error) ? error.error : isObject(error.response) && isObject(error.response.error) ? error.response.error : error;
  const code = inner.code ?? inner.status ?? inner.type;
  if (code === undefined) return `${where}: the error event names no code`;
  const status = statusOfCode(inner.code);
  if (status !== 429 && status !== 503) return null;
  if (!deepHas(error, ["retry_after", "resets_in_seconds", "retryDelay"])) return `${where}: stream error ${String(inner.code)} lacks retry_after (R24.4)`;
  if (!deepHas(error, ["reset_at", "resets_at", "retryDelay"])) return `${where}: stream error ${String(inner.code)} lacks reset_at (R24.4)`;
  return null;
}

function streamOf(format: ClientFormat, text: string): string | null {
  const frames = sseFrames(text);
  if (frames.length === 0) return "a 200 stream with no event";
  const events = frames.map((f) => ({ ...f, json: f.data === "[DONE]" ? "[DONE]" : parseJson(f.data) }));
  const bad = events.find((e) => e.json === undefined);
  if (bad) return `a stream frame is not JSON: ${bad.data.slice(0, 80)}`;
  const error = events.find((e) => e.event === "error" || (isObject(e.json) && (e.json.type === "error" || isObject(e.json.error)) && e.json.type !== "response.failed"));
  const failed = events.find((e) => isObject(e.json) && e.json.type === "response.failed");
  if (error) return streamError(error.json, `${format} stream`);
  if (failed) return streamError(failed.json, "responses stream (response.failed)");
  const last = events[events.length - 1].json;
  if (format === "openai") return last === "[DONE]" ? null : "a chat stream that does not end with [DONE]";
  if (format === "anthropic") return events.some((e) => e.event === "message_stop") ? null : "an Anthropic stream without message_stop";
  if (format === "openai-responses") {
    const types = events.map((e) => (isObject(e.json) ? e.json.type : ""));
    return types.includes("response.completed") || types.includes("response.incomplete") ? null : "a Responses stream without its terminal event";
  }
  const candidates = isObject(last) && Array.isArray(last.candidates) ? last.candidates : [];
  return candidates.some((c: Json) => typeof c.finishReason === "string") ? null : "a Gemini stream whose last chunk has no finishReason";
}

function jsonOf(plan: RequestPlan, body: Json): string | null {
  if (plan.operation === "count") {
    const n = plan.format === "gemini" ? body.totalTokens : body.input_tokens;
    return typeof n === "number" ? null : "a count answer without its token number";
  }
  if (plan.operation === "compact") return Array.isArray(body.output) ? null : "a compaction answer without output";
  if (plan.format === "openai") return Array.isArray(body.choices) ? null : "a chat answer without choices";
  if (plan.format === "anthropic") return body.type === "message" && Array.isArray(body.content) ? null : "an Anthropic answer that is not a message";
  if (plan.format === "openai-responses") return body.object === "response" ? null : "a Responses answer that is not a response";
  return Array.isArray(body.candidates) ? null : "a Gemini answer without candidates";
}

function errorShape(format: ClientFormat, body: Json): Json | string {
  if (format === "anthropic") return body.type === "error" && isObject(body.error) && typeof body.error.type === "string" ? body.error : "not Anthropic's error shape";
  if (format === "gemini") return isObject(body.error) && typeof body.error.code === "number" && typeof body.error.status === "string" ? body.error : "not Gemini's error shape";
  return isObject(body.error) && typeof body.error.message === "string" ? body.error : "not OpenAI's error shape";
}

/** R25.6: Retry-After is whole seconds, and only a wait the client should take: at most 60. */
function retryAfterOf(headers: Headers): string | null {
  const value = headers.get("retry-after");
  if (value === null) return null;
  return /^\d+$/.test(value) && Number(value) <= 60 ? null : `Retry-After "${value}" is not whole seconds ≤ 60`;
}

function errorOf(plan: RequestPlan, status: number, headers: Headers, body: unknown): string | null {
  const wait = retryAfterOf(headers);
  if (wait) return `a ${status}: ${wait}`;
  if (!isObject(body)) return `a ${status} whose body is not JSON`;
  const error = errorShape(plan.format, body);
  if (typeof error === "string") return `a ${status} ${error}`;
  if (status !== 429 && status !== 503) return null;
  // A refusal that will not pass soon says so instead (X-Should-Retry: false, API.md, R25.6).
  const noRetry = headers.get("x-should-retry") === "false";
  const retryAfter = headers.get("retry-after");
  if (!retryAfter && !noRetry) return `a ${status} (${String(error.code ?? error.status)}) without Retry-After or X-Should-Retry: false`;
  if (status !== 429) return null;
  if (plan.format === "gemini") {
    const retry = Array.isArray(error.details) && error.details.some((d: Json) => typeof d.retryDelay === "string");
    return retry ? null : "a Gemini 429 without RetryInfo";
  }
  if (error.retry_after === undefined || error.reset_at === undefined) return `a 429 (${String(error.code)}) without retry_after/reset_at in its error object`;
  return null;
}

export function checkAnswer(plan: RequestPlan, status: number, headers: Headers, text: string): string | null {
  if (status === 0) return `no answer (${text.slice(0, 80)})`;
  if (!headers.get("x-switchyard-request-id")) return `a ${status} without X-Switchyard-Request-Id`;
  if (status !== 200) return errorOf(plan, status, headers, parseJson(text));
  if (plan.stream && plan.operation === "generate") return streamOf(plan.format, text);
  const body = parseJson(text);
  return isObject(body) ? jsonOf(plan, body) : "a 200 whose body is not a JSON object";
}

/** The verdict code of an error answer, in any client format. */
export function errorCodeOf(text: string): string | null {
  const body = parseJson(text);
  if (!isObject(body) || !isObject(body.error)) return null;
  const details = Array.isArray(body.error.details) ? (body.error.details as Json[]) : [];
  const reason = details.find((d) => typeof d.reason === "string")?.reason as string | undefined;
  return typeof body.error.code === "string" ? body.error.code : (reason ?? null);
}
