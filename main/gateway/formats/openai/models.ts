// R1.3: GET /v1/models, OpenAI's list over every model name a client may use (ids `provider/model`,
// aliases, combos), and GET /v1/models/{model}, its "retrieve model". An unknown model is refused as
// OpenAI refuses it: 404 with type `invalid_request_error` and code `model_not_found`.
import type { ErrorCode } from "../../../../shared/errorCodes.js";
import type { ModelListRoute, ServedModel } from "../models.js";
import { modelIdOf } from "../models.js";
import { openaiErrorBody } from "./errors.js";

const PREFIX = "/v1/models/";

/** One entry; R25.3: `context_window` where the window is known. */
function openaiModel(m: ServedModel, created: number): Record<string, unknown> {
  const entry: Record<string, unknown> = { id: m.id, object: "model", created, owned_by: m.owner };
  if (typeof m.window === "number") entry.context_window = m.window;
  return entry;
}

const list: ModelListRoute = {
  path: "/v1/models",
  models: "served",
  answer: (_req, models, now) => {
    const created = Math.floor(now / 1000);
    return { status: 200, body: { object: "list", data: models.map((m) => openaiModel(m, created)) } };
  },
};

/** `models/{model}` under /v1; the model may carry its slash literal or as %2F. */
const retrieve: ModelListRoute = {
  path: /^\/v1\/models\/.+$/,
  models: "served",
  answer: (req, models, now) => {
    const id = modelIdOf(req.path.slice(PREFIX.length));
    if (id === null) return { status: 400, body: openaiErrorBody(400, "invalid_request", "The model name is not valid percent-encoding") };
    const found = models.find((m) => m.id === id);
    if (!found) {
      const code: ErrorCode = "model_not_found";
      return { status: 404, body: { error: { message: `The model '${id}' does not exist`, type: "invalid_request_error", code } } };
    }
    return { status: 200, body: openaiModel(found, Math.floor(now / 1000)) };
  },
};

export const OPENAI_MODEL_ROUTES: readonly ModelListRoute[] = [list, retrieve];
