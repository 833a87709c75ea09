// Client traffic for the usage suites (R18.6): real requests through the gateway in the OpenAI,
// Anthropic and Gemini client formats, as named tools (their user-agents make the client kinds),
// optionally with a client key, with a long system prompt the simulator caches as vendors do.
import type { RequestLogEntry } from "../../shared/types.js";
import { api, type Server } from "./harness.js";

/** Long enough (> 1 024 tokens) for the simulator to cache it. */
export const LONG_SYSTEM = "You are a careful coding agent working in a large TypeScript monorepo. ".repeat(90);

export interface SendOptions {
  /** A client key (sk-sy-…), sent as the format's own credential header. */
  key?: string;
  userAgent?: string;
  /** Earlier turns of the same conversation (the previous turn's prompt is a prefix the upstream has cached). */
  turns?: number;
  /** The system prompt (default LONG_SYSTEM); a new one starts a session the upstream has not cached. */
  system?: string;
}

/** Turn n repeats turns 0…n-1 word for word, as agents resend the conversation. */
function history(turns: number): Array<{ role: "user" | "assistant"; content: string }> {
  const out: Array<{ role: "user" | "assistant"; content: string }> = [];
  for (let i = 0; i < turns; i++) out.push({ role: "user", content: `step ${i}: read the failing test and fix it` }, { role: "assistant", content: `done with step ${i}` });
  return [...out, { role: "user", content: `step ${turns}: read the failing test and fix it` }];
}

async function post(server: Server, path: string, body: unknown, headers: Record<string, string>): Promise<number> {
  const res = await fetch(server.base + path, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) });
  await res.text();
  return res.status;
}

export function openaiChat(server: Server, model: string, o: SendOptions = {}): Promise<number> {
  const headers: Record<string, string> = { "User-Agent": o.userAgent ?? "aider/0.86.1" };
  if (o.key) headers.Authorization = `Bearer ${o.key}`;
  return post(server, "/v1/chat/completions", { model, messages: [{ role: "system", content: o.system ?? LONG_SYSTEM }, ...history(o.turns ?? 0)] }, headers);
}

export function anthropicMessages(server: Server, model: string, o: SendOptions = {}): Promise<number> {
  const headers: Record<string, string> = { "User-Agent": o.userAgent ?? "claude-cli/2.1.3 (external, cli)", "anthropic-version": "2023-06-01" };
  if (o.key) headers["x-api-key"] = o.key;
  const system = [{ type: "text", text: o.system ?? LONG_SYSTEM, cache_control: { type: "ephemeral" } }];
  return post(server, "/v1/messages", { model, max_tokens: 256, system, messages: history(o.turns ?? 0) }, headers);
}

export function geminiGenerate(server: Server, model: string, o: SendOptions = {}): Promise<number> {
  const headers: Record<string, string> = { "User-Agent": o.userAgent ?? "GeminiCLI/0.61.0/gemini-2.5-pro (linux; x64)" };
  if (o.key) headers["x-goog-api-key"] = o.key;
  const contents = [
    { role: "user", parts: [{ text: o.system ?? LONG_SYSTEM }] },
    ...history(o.turns ?? 0).map((t) => ({ role: t.role === "assistant" ? "model" : "user", parts: [{ text: t.content }] })),
  ];
  return post(server, `/v1beta/models/${model}:generateContent`, { contents }, headers);
}

/** Every row of the request log (newest first). */
export function allLogRows(server: Server): Promise<RequestLogEntry[]> {
  return api<RequestLogEntry[]>(server, "GET", "/api/logs?limit=1000");
}

export interface LogSums {
  requests: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  costUsd: number;
}

/** What the rows add up to: what the Usage page's totals must say. */
export function sumRows(rows: readonly RequestLogEntry[]): LogSums {
  const sums: LogSums = { requests: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, costUsd: 0 };
  for (const r of rows) {
    sums.requests += 1;
    sums.inputTokens += r.inputTokens ?? 0;
    sums.outputTokens += r.outputTokens ?? 0;
    sums.cacheReadTokens += r.cacheReadTokens ?? 0;
    sums.costUsd += r.costUsd ?? 0;
  }
  return sums;
}
