// GET /v1/models/{model}: OpenAI's "retrieve model" over every model name a client may use (R1.3),
// in OpenAI's shape. An unknown model is refused as OpenAI refuses it — 404 with type
// `invalid_request_error` and code `model_not_found` — and a refused key in OpenAI's shape too. A
// request that carries a Gemini key asks Google's GET /v1/models/{model} (R17.1): it passes on to
// the Gemini route (geminiModels.ts).
import type { RequestHandler } from "express";
import type { ErrorCode } from "../../../shared/errorCodes.js";
import { sendPlainJson } from "../context/plainJson.js";
import type { Clock } from "../../engine/ports.js";
import { clientAuth, clientError, stampClientHeaders, type ClientGuardDeps } from "./clientRoutes.js";
import { asksAsGemini } from "./geminiModels.js";
import type { CatalogPort } from "../context/ports.js";
import { servedModels } from "./servedModels.js";

/** `models/{model}` under /v1; the model may carry its slash literal or as %2F. */
export const OPENAI_MODEL_PATH = /^\/v1\/models\/.+$/;

const PREFIX = "/v1/models/";

/** The route's handlers: skipped for a Gemini client, then OpenAI's key check, then the answer. */
export function openaiModelRoute(deps: ClientGuardDeps & { catalog: CatalogPort; clock: Clock }): RequestHandler[] {
  const geminiGoesOn: RequestHandler = (req, _res, next) => (asksAsGemini(req) ? next("route") : next());
  return [geminiGoesOn, clientAuth("openai", deps), openaiModelGet(deps.catalog, deps.clock)];
}

export function openaiModelGet(catalog: CatalogPort, clock: Clock): RequestHandler {
  return (req, res) => {
    let id: string;
    try {
      id = decodeURIComponent(req.path.slice(PREFIX.length));
    } catch {
      return clientError(res, "openai", 400, "invalid_request", "The model name is not valid percent-encoding");
    }
    const found = servedModels(catalog).find((m) => m.id === id);
    stampClientHeaders(res);
    if (!found) {
      const code: ErrorCode = "model_not_found";
      return sendPlainJson(res, 404, { error: { message: `The model '${id}' does not exist`, type: "invalid_request_error", code } });
    }
    res.json({ id: found.id, object: "model", created: Math.floor(clock.now() / 1000), owned_by: found.owner });
  };
}
