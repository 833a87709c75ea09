// R17.1: GET /v1beta/models and GET /v1beta/models/{model} (the same under /v1) in Google's Model
// shape, over every model name a client may use. GET /v1/models and /v1/models/{model} are also
// OpenAI's list and "retrieve model": a request that carries a Gemini key (x-goog-api-key or
// ?key=) is Gemini's, and gets Google's shape; the GenAI SDK lists /v1/models with its key.
import type { ModelListRequest, ModelListRoute, ServedModel } from "../models.js";
import { modelIdOf } from "../models.js";
import { geminiErrorBody } from "./errors.js";

/** When no modelInfo says otherwise (the same default as Codex's catalogue). */
const DEFAULT_INPUT_TOKEN_LIMIT = 128_000;
const DEFAULT_OUTPUT_TOKEN_LIMIT = 8_192;

function geminiModel(m: ServedModel): Record<string, unknown> {
  return {
    name: `models/${m.id}`,
    version: "switchyard",
    displayName: m.id,
    description: `Served by Switchyard (${m.owner})`,
    inputTokenLimit: m.window ?? m.info?.contextWindow ?? DEFAULT_INPUT_TOKEN_LIMIT,
    outputTokenLimit: DEFAULT_OUTPUT_TOKEN_LIMIT,
    supportedGenerationMethods: ["generateContent", "streamGenerateContent", "countTokens"],
  };
}

/** Whether a request came from a Gemini client: its key header or query parameter, or a /v1beta path. */
function asksAsGemini(req: ModelListRequest): boolean {
  return req.headers["x-goog-api-key"] !== undefined || typeof req.query["key"] === "string" || req.path.startsWith("/v1beta/");
}

const list = (_req: ModelListRequest, models: ServedModel[]) => ({ status: 200, body: { models: models.map(geminiModel) } });

/** `models/{model}` under /v1beta or /v1 (GET /v1/models itself is OpenAI's list). */
const get: ModelListRoute = {
  path: /^\/v1(?:beta)?\/models\/.+$/,
  claims: asksAsGemini,
  models: "served",
  answer: (req, models) => {
    const id = modelIdOf(req.path.replace(/^\/v1(?:beta)?\/models\//, ""))?.replace(/^models\//, "") ?? null;
    if (id === null) return { status: 400, body: geminiErrorBody(400, "invalid_request", "The model name is not valid percent-encoding") };
    const found = models.find((m) => m.id === id);
    if (!found) return { status: 404, body: geminiErrorBody(404, "model_not_found", `Unknown model: ${id}`) };
    return { status: 200, body: geminiModel(found) };
  },
};

export const GEMINI_MODEL_ROUTES: readonly ModelListRoute[] = [
  { path: "/v1beta/models", models: "served", answer: list },
  { path: "/v1/models", claims: asksAsGemini, models: "served", answer: list },
  get,
];
