// R17.1: GET /v1beta/models and GET /v1beta/models/{model} (the same under /v1) in Google's Model
// shape, over every model name a client may use. GET /v1/models and /v1/models/{model} are also
// OpenAI's list and "retrieve model": a request that carries a Gemini key (x-goog-api-key or
// ?key=) gets Google's shape, any other OpenAI's (openaiModels.ts answers those first).
import type { Request, RequestHandler } from "express";
import { clientError, stampClientHeaders } from "./clientRoutes.js";
import type { CatalogPort } from "../context/ports.js";
import { servedModels, type ServedModel } from "./servedModels.js";

/** When no modelInfo says otherwise (the same default as Codex's catalogue). */
const DEFAULT_INPUT_TOKEN_LIMIT = 128_000;
const DEFAULT_OUTPUT_TOKEN_LIMIT = 8_192;

function geminiModel(m: ServedModel): Record<string, unknown> {
  return {
    name: `models/${m.id}`,
    version: "switchyard",
    displayName: m.id,
    description: `Served by Switchyard (${m.owner})`,
    inputTokenLimit: m.info?.contextWindow ?? DEFAULT_INPUT_TOKEN_LIMIT,
    outputTokenLimit: DEFAULT_OUTPUT_TOKEN_LIMIT,
    supportedGenerationMethods: ["generateContent", "streamGenerateContent", "countTokens"],
  };
}

/** Whether a request came from a Gemini client: its key header or query parameter, or a /v1beta path. */
export function asksAsGemini(req: Request): boolean {
  return req.headers["x-goog-api-key"] !== undefined || typeof req.query["key"] === "string" || req.path.startsWith("/v1beta/");
}

export function geminiModelList(served: ServedModel[]): { models: Array<Record<string, unknown>> } {
  return { models: served.map(geminiModel) };
}

export function geminiModelGet(catalog: CatalogPort): RequestHandler {
  return (req, res) => {
    let id: string;
    try {
      id = decodeURIComponent(req.path.replace(/^\/v1(?:beta)?\/models\//, "")).replace(/^models\//, "");
    } catch {
      return clientError(res, "gemini", 400, "invalid_request", "The model name is not valid percent-encoding");
    }
    const found = servedModels(catalog).find((m) => m.id === id);
    if (!found) return clientError(res, "gemini", 404, "model_not_found", `Unknown model: ${id}`);
    stampClientHeaders(res);
    res.json(geminiModel(found));
  };
}
