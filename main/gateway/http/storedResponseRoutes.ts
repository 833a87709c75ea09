// GET /v1/responses/:id, DELETE /v1/responses/:id and GET /v1/responses/:id/input_items (R16.4):
// the stored turns of the Responses feature (features/responses/storedResponses.ts) as routes.
import express, { type RequestHandler, type Response } from "express";
import { ERROR_CODES } from "../../../shared/errorCodes.js";
import { isRecord } from "../../../shared/records.js";
import { sendPlainJson } from "../context/plainJson.js";
import { notFound, storageOff, type StoredResponse, type StoredResponseDeps, type StoredResponseRefusal } from "../features/responses/storedResponses.js";
import { clientError, stampClientHeaders } from "./clientRoutes.js";

const DEFAULT_PAGE = 20;
const MAX_PAGE = 100;

/** Errors of these routes, in the Responses client's shape (its half types the stored-turn refusals). */
function refuse(res: Response, refusal: StoredResponseRefusal): void {
  clientError(res, "openai-responses", refusal.status, refusal.code, refusal.message);
}

function answer(res: Response, body: unknown): void {
  stampClientHeaders(res);
  sendPlainJson(res, 200, body);
}

/**
 * An input item as the list shows it: with an id (a client's own, else one derived from the
 * response id and the position, so paging by `after` is stable) and a shorthand message
 * (`{role, content: "text"}`) in its full form. Only the listing is rewritten: the stored items
 * go back upstream exactly as the client sent them.
 */
function listedItem(item: Record<string, unknown>, responseId: string, index: number): Record<string, unknown> {
  const out: Record<string, unknown> = { ...item };
  if (out["type"] === undefined && typeof out["role"] === "string") out["type"] = "message";
  if (out["type"] === "message" && typeof out["content"] === "string") {
    out["content"] = [{ type: out["role"] === "assistant" ? "output_text" : "input_text", text: out["content"] }];
  }
  if (typeof out["id"] !== "string" || out["id"] === "") out["id"] = `${out["type"] === "message" ? "msg" : "item"}_${responseId.replace(/^resp_/, "")}_in${index}`;
  return out;
}

function queryText(value: unknown): string | undefined {
  if (Array.isArray(value)) return queryText(value[0]);
  return typeof value === "string" ? value : undefined;
}

interface PageQuery {
  order: "asc" | "desc";
  limit: number;
  after: string | undefined;
}

/** `order` asc|desc (default desc), `limit` 1–100 (default 20), `after` an item id — as OpenAI's list. */
function pageQuery(query: Record<string, unknown>): PageQuery | string {
  const order = queryText(query["order"]) ?? "desc";
  if (order !== "asc" && order !== "desc") return "order must be asc or desc";
  const limitText = queryText(query["limit"]);
  const limit = limitText === undefined ? DEFAULT_PAGE : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) return `limit must be an integer from 1 to ${MAX_PAGE}`;
  return { order, limit, after: queryText(query["after"]) };
}

/** The position after the item `id`; an id that names no item of the list is past its end. */
function startAfter(items: Array<Record<string, unknown>>, id: string): number {
  const at = items.findIndex((item) => item["id"] === id);
  return at === -1 ? items.length : at + 1;
}

function inputItemsPage(stored: StoredResponse, page: PageQuery) {
  // Ids come from the positions in the stored list, so they are given before anything is left out.
  const items = stored.inputItems.flatMap((item, i) => (isRecord(item) ? [listedItem(item, stored.id, i)] : []));
  if (page.order === "desc") items.reverse();
  const start = page.after === undefined ? 0 : startAfter(items, page.after);
  const data = items.slice(start, start + page.limit);
  return {
    object: "list",
    data,
    first_id: data.length ? data[0]["id"] : null,
    last_id: data.length ? data[data.length - 1]["id"] : null,
    has_more: start + data.length < items.length,
  };
}

/**
 * GET /v1/responses/:id, DELETE /v1/responses/:id and GET /v1/responses/:id/input_items, each
 * behind `guard` (the client routes' proxy switch and client keys).
 */
export function storedResponseRoutes(deps: StoredResponseDeps, guard: RequestHandler): express.Router {
  const router = express.Router();
  /** The live stored turn of the request's :id, or null once the refusal is sent. */
  const storedFor = (param: string | string[], res: Response): StoredResponse | null => {
    // express types every parameter as string | string[]; only a wildcard's is an array (its segments).
    const id = typeof param === "string" ? param : param.join("/");
    if (deps.retentionHours() <= 0) {
      refuse(res, storageOff());
      return null;
    }
    const stored = deps.port.get(id, deps.clock.now());
    if (!stored) refuse(res, notFound(id));
    return stored;
  };

  router.get("/v1/responses/:id", guard, (req, res) => {
    const stored = storedFor(req.params["id"], res);
    if (stored) answer(res, stored.response);
  });

  router.delete("/v1/responses/:id", guard, (req, res) => {
    const stored = storedFor(req.params["id"], res);
    if (!stored) return;
    deps.port.delete(stored.id);
    // OpenAI's reference answers a delete with the object type "response.deleted".
    answer(res, { id: stored.id, object: "response.deleted", deleted: true });
  });

  router.get("/v1/responses/:id/input_items", guard, (req, res) => {
    const page = pageQuery(req.query);
    if (typeof page === "string") return refuse(res, { status: ERROR_CODES.invalid_request.status, code: "invalid_request", message: page });
    const stored = storedFor(req.params["id"], res);
    if (stored) answer(res, inputItemsPage(stored, page));
  });

  return router;
}
