import type { IncomingHttpHeaders } from "node:http";
import type { WireFormat } from "./types.js";

export type RouteKind = "generate" | "count_tokens" | "compact" | "models";

export interface Route {
  kind: RouteKind;
  format: WireFormat;
  /** Model named in the path (Gemini); else it comes from the body. */
  pathModel?: string;
  /** Streaming decided by the path (Gemini); else by the body's `stream`. */
  pathStream?: boolean;
  /** Gemini `alt=sse`: stream as SSE rather than a JSON array. */
  sse?: boolean;
  /** ChatGPT's Codex backend (`/backend-api/codex/…`), served only to ChatGPT logins (R21.9, subscriptions.ts). */
  chatgptBackend?: boolean;
}

export const SIM_MODELS = ["sim-fast", "sim-smart", "sim-reasoner"] as const;

/**
 * Gemini calls under `/v1beta` and `/v1`, and at the bare base too: a `simulator` provider's baseUrl
 * is the simulator's origin, and the gateway's Gemini upstream path is `/models/{model}:{method}`,
 * relative to a Google base that already ends in `/v1beta` (R22.4).
 */
const GEMINI_PREFIXES = ["/v1beta/models/", "/v1/models/", "/models/"];

/** Responses routes live beside Chat Completions: under `/v1` and at the bare base a baseUrl without `/v1` reaches. */
const RESPONSES_ROUTES = new Map<string, RouteKind>();
for (const base of ["/v1/responses", "/responses"]) {
  RESPONSES_ROUTES.set(base, "generate");
  RESPONSES_ROUTES.set(`${base}/compact`, "compact");
  RESPONSES_ROUTES.set(`${base}/input_tokens`, "count_tokens");
}

/** ChatGPT's Codex backend, where Codex logged in with ChatGPT sends its turns (R21.9). */
const CHATGPT_BACKEND = "/backend-api/codex";

function matchGemini(path: string, query: URLSearchParams | null): Route | null {
  for (const prefix of GEMINI_PREFIXES) {
    if (!path.startsWith(prefix)) continue;
    const rest = path.slice(prefix.length);
    const colon = rest.lastIndexOf(":");
    if (colon <= 0) return null;
    const action = rest.slice(colon + 1);
    if (action === "countTokens") return { kind: "count_tokens", format: "gemini", pathModel: decodeURIComponent(rest.slice(0, colon)) };
    if (action !== "generateContent" && action !== "streamGenerateContent") return null;
    const stream = action === "streamGenerateContent";
    return {
      kind: "generate",
      format: "gemini",
      pathModel: decodeURIComponent(rest.slice(0, colon)),
      pathStream: stream,
      sse: stream && query?.get("alt") === "sse",
    };
  }
  return null;
}

/** The upstream API route a request addresses, or null (404). */
export function matchRoute(method: string, path: string, query: URLSearchParams | null, headers: IncomingHttpHeaders): Route | null {
  if (method === "POST") {
    if (path === "/v1/chat/completions" || path === "/chat/completions") return { kind: "generate", format: "openai" };
    if (path === "/v1/messages") return { kind: "generate", format: "anthropic" };
    if (path === "/v1/messages/count_tokens") return { kind: "count_tokens", format: "anthropic" };
    const responses = RESPONSES_ROUTES.get(path);
    if (responses) return { kind: responses, format: "openai-responses" };
    if (path === `${CHATGPT_BACKEND}/responses`) return { kind: "generate", format: "openai-responses", chatgptBackend: true };
    if (path === `${CHATGPT_BACKEND}/responses/compact`) return { kind: "compact", format: "openai-responses", chatgptBackend: true };
    return matchGemini(path, query);
  }
  if (method === "GET") {
    if (path === "/v1/models" || path === "/models") {
      return { kind: "models", format: headers["anthropic-version"] !== undefined ? "anthropic" : "openai" };
    }
    if (path === "/v1beta/models") return { kind: "models", format: "gemini" };
    if (path === `${CHATGPT_BACKEND}/models`) return { kind: "models", format: "openai-responses", chatgptBackend: true };
  }
  return null;
}

/** Best guess of the caller's wire format for a path no route matched, so even a 404 speaks its format. */
export function formatOfPath(path: string): WireFormat {
  if (path.startsWith("/v1/messages")) return "anthropic";
  if (path.startsWith("/v1beta/") || (path.startsWith("/models/") && path.includes(":"))) return "gemini";
  if (path.startsWith("/v1/responses") || path.startsWith("/responses") || path.startsWith(`${CHATGPT_BACKEND}/`)) return "openai-responses";
  return "openai";
}

/** API key from `Authorization: Bearer`, `x-api-key`, `x-goog-api-key` or `?key=`, in that order. */
export function readKey(headers: IncomingHttpHeaders, query: URLSearchParams | null): string | null {
  const auth = headers.authorization;
  if (auth && auth.length > 7 && auth.slice(0, 7).toLowerCase() === "bearer ") return auth.slice(7).trim();
  const xApiKey = headers["x-api-key"];
  if (typeof xApiKey === "string" && xApiKey) return xApiKey;
  const goog = headers["x-goog-api-key"];
  if (typeof goog === "string" && goog) return goog;
  return query?.get("key") ?? null;
}

export function modelList(format: WireFormat, label: string): unknown {
  if (format === "anthropic") {
    const data = SIM_MODELS.map((id) => ({
      type: "model",
      id,
      display_name: `${id} (${label}, simulated)`,
      created_at: "2025-01-01T00:00:00Z",
    }));
    return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null };
  }
  if (format === "gemini") {
    return {
      models: SIM_MODELS.map((id) => ({
        name: `models/${id}`,
        displayName: `${id} (${label}, simulated)`,
        supportedGenerationMethods: ["generateContent", "streamGenerateContent", "countTokens"],
      })),
    };
  }
  return { object: "list", data: SIM_MODELS.map((id) => ({ id, object: "model", created: 1735689600, owned_by: label })) };
}

/** Instructions the simulated ChatGPT backend gives each model (Codex uses them as its base prompt). */
const CODEX_INSTRUCTIONS =
  "You are a coding agent running in Codex CLI against a simulated ChatGPT backend. Read before you edit, make focused changes, run the project's checks, and report briefly what you changed.";

/**
 * GET /backend-api/codex/models: the catalogue Codex reads, `{models: [ModelInfo]}`, each entry with every
 * field Codex refuses to decode without (slug, display_name, priority, visibility, supported_in_api,
 * shell_type, support_verbosity, supported_reasoning_levels, truncation_policy,
 * experimental_supported_tools, model_messages.instructions_template) and its context window.
 */
export function codexModelList(label: string): unknown {
  return {
    models: SIM_MODELS.map((slug, index) => ({
      slug,
      display_name: `${slug} (${label}, simulated)`,
      description: "A simulated model on the simulated ChatGPT backend",
      priority: index + 1,
      visibility: "list",
      supported_in_api: true,
      shell_type: "shell_command",
      support_verbosity: false,
      supported_reasoning_levels: [],
      truncation_policy: { mode: "tokens", limit: 10_000 },
      experimental_supported_tools: [],
      model_messages: { instructions_template: CODEX_INSTRUCTIONS },
      context_window: 128_000,
      max_context_window: 128_000,
      apply_patch_tool_type: "freeform",
      input_modalities: ["text", "image"],
      supports_parallel_tool_calls: true,
    })),
  };
}

/** A count_tokens answer in the format's own shape: about four characters of prompt to a token. */
export function tokenCount(format: WireFormat, promptChars: number): unknown {
  const inputTokens = Math.max(1, Math.ceil(promptChars / 4));
  if (format === "openai-responses") return { object: "response.input_tokens", input_tokens: inputTokens };
  if (format === "gemini") return { totalTokens: inputTokens };
  return { input_tokens: inputTokens };
}
