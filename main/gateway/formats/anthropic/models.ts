// R25.3: GET /v1/models and GET /v1/models/{model} in Anthropic's shape when an Anthropic client asks
// (it sends `anthropic-version`): `{data: [{type: "model", id, display_name, created_at,
// max_input_tokens}], has_more, first_id, last_id}`, paged by `limit` (default 20, at most 1000),
// `after_id` and `before_id` as Anthropic pages. Claude Code's gateway discovery lists
// `/v1/models?limit=1000` this way and reads each model's `max_input_tokens` as its window (for a
// model it does not know it otherwise assumes 200k); `max_input_tokens` is left out when unknown.
import type { ModelListRequest, ModelListRoute, ServedModel } from "../models.js";
import { modelIdOf } from "../models.js";
import { anthropicErrorBody } from "./errors.js";

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 1000;
const PREFIX = "/v1/models/";

const asksAsAnthropic = (req: ModelListRequest): boolean => req.headers["anthropic-version"] !== undefined;

function anthropicModel(m: ServedModel, createdAt: string): Record<string, unknown> {
  const entry: Record<string, unknown> = { type: "model", id: m.id, display_name: m.id, created_at: createdAt };
  if (typeof m.window === "number") entry.max_input_tokens = m.window;
  return entry;
}

/** The page `limit`, `after_id` and `before_id` ask for (an unknown id pages from the start, as an empty cursor). */
function page(req: ModelListRequest, models: ServedModel[]): { items: ServedModel[]; hasMore: boolean } {
  const asked = Number(req.query["limit"]);
  const limit = Number.isInteger(asked) && asked >= 1 ? Math.min(asked, MAX_LIMIT) : DEFAULT_LIMIT;
  const before = typeof req.query["before_id"] === "string" ? models.findIndex((m) => m.id === req.query["before_id"]) : -1;
  if (before >= 0) {
    const start = Math.max(0, before - limit);
    return { items: models.slice(start, before), hasMore: start > 0 };
  }
  const after = typeof req.query["after_id"] === "string" ? models.findIndex((m) => m.id === req.query["after_id"]) : -1;
  const start = after + 1;
  return { items: models.slice(start, start + limit), hasMore: start + limit < models.length };
}

const list: ModelListRoute = {
  path: "/v1/models",
  claims: asksAsAnthropic,
  models: "served",
  answer: (req, models, now) => {
    const createdAt = new Date(now).toISOString();
    const { items, hasMore } = page(req, models);
    return {
      status: 200,
      body: { data: items.map((m) => anthropicModel(m, createdAt)), has_more: hasMore, first_id: items[0]?.id ?? null, last_id: items[items.length - 1]?.id ?? null },
    };
  },
};

/** `models/{model}`; the model may carry its slash literal or as %2F. */
const retrieve: ModelListRoute = {
  path: /^\/v1\/models\/.+$/,
  claims: asksAsAnthropic,
  models: "served",
  answer: (req, models, now) => {
    const id = modelIdOf(req.path.slice(PREFIX.length));
    if (id === null) return { status: 400, body: anthropicErrorBody(400, "invalid_request", "The model name is not valid percent-encoding") };
    const found = models.find((m) => m.id === id);
    if (!found) return { status: 404, body: anthropicErrorBody(404, "model_not_found", `model: ${id}`) };
    return { status: 200, body: anthropicModel(found, new Date(now).toISOString()) };
  },
};

export const ANTHROPIC_MODEL_ROUTES: readonly ModelListRoute[] = [list, retrieve];
