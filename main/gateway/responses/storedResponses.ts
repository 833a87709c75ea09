// Stored Responses API turns (R16.4). A turn Switchyard served is kept (unless the client said
// `store: false`) so that a later `previous_response_id` can be answered by ANY upstream: the
// earlier turn becomes plain history in the new body's `input`, exactly the items the client
// would have resent itself, so no upstream needs state of its own. The routes read and remove
// stored turns. A stored turn holds only what the client sent and what it was answered; request
// headers (keys) never reach it.
import express, { type RequestHandler, type Response } from "express";
import { ERROR_CODES, type ErrorCode } from "../../../shared/errorCodes.js";
import { isRecord } from "../../../shared/records.js";
import { sendPlainJson } from "../../api/plainJson.js";
import type { StoredResponseRecord } from "../../../shared/types.js";
import { clientError, stampClientHeaders } from "../clientRoutes.js";

export type StoredResponse = StoredResponseRecord;

export interface StoredResponsesPort {
  save(r: StoredResponse): void;
  /** Null when absent or expired at `now`. */
  get(id: string, now: number): StoredResponse | null;
  delete(id: string): boolean;
}

/** What the routes and a Responses turn need: the store, the time, the live setting. */
export interface StoredResponseDeps {
  port: StoredResponsesPort;
  clock: { now(): number };
  retentionHours: () => number;
}

/** A request refused before any upstream is called, in the terms of API.md. */
export interface StoredResponseRefusal {
  status: number;
  code: ErrorCode;
  message: string;
}

const HOUR_MS = 3_600_000;
const DEFAULT_PAGE = 20;
const MAX_PAGE = 100;

const storageOff = (): StoredResponseRefusal => ({
  status: ERROR_CODES.response_storage_off.status,
  code: "response_storage_off",
  message: "Response storage is off (setting responsesRetentionHours is 0): send the whole conversation in `input` instead of previous_response_id",
});

const notFound = (id: string): StoredResponseRefusal => ({
  status: ERROR_CODES.response_not_found.status,
  code: "response_not_found",
  message: `Response with id '${id}' not found (unknown, deleted, stored with store: false, or older than responsesRetentionHours)`,
});

/** R16.1: a string input is one user message; a list is items already. */
function inputAsItems(input: unknown): unknown[] | null {
  if (input === undefined || input === null) return [];
  if (typeof input === "string") return [{ type: "message", role: "user", content: [{ type: "input_text", text: input }] }];
  return Array.isArray(input) ? input : null;
}

/**
 * The body with the turn named by `previous_response_id` as its history: that turn's input
 * items, its output items, then this body's input; `previous_response_id` is removed so that any
 * upstream format serves it. A body without one is returned as it is (the same object). The
 * earlier `instructions` are not carried over, as OpenAI documents for previous_response_id: the
 * body's own (or none) apply. One level suffices: the stored input was expanded when it was served.
 */
export function expandPreviousResponse(
  body: Record<string, unknown>,
  port: StoredResponsesPort,
  now: number,
  retentionHours: number,
): { body: Record<string, unknown> } | StoredResponseRefusal {
  const previousId = body["previous_response_id"];
  if (typeof previousId !== "string") return { body };
  if (retentionHours <= 0) return storageOff();
  const stored = port.get(previousId, now);
  if (!stored) return notFound(previousId);
  const added = inputAsItems(body["input"]);
  if (!added) return { status: ERROR_CODES.invalid_request.status, code: "invalid_request", message: "input must be a string or a list of input items" };
  const output = Array.isArray(stored.response["output"]) ? stored.response["output"] : [];
  const { previous_response_id: _expanded, ...rest } = body;
  return { body: { ...rest, input: [...stored.inputItems, ...output, ...added] } };
}

/**
 * Keeps a served turn for `retentionHours` under its response id, unless the client said
 * `store: false` or storage is off. `expandedInput` is the whole input the turn was served
 * with (history included). Returns whether the turn was stored.
 */
export function recordServedResponse(
  port: StoredResponsesPort,
  clientBody: Record<string, unknown>,
  expandedInput: unknown[],
  responseObject: Record<string, unknown>,
  connectionId: string | null,
  now: number,
  retentionHours: number,
): boolean {
  const id = responseObject["id"];
  if (clientBody["store"] === false || retentionHours <= 0 || typeof id !== "string" || id === "") return false;
  const model = typeof responseObject["model"] === "string" ? responseObject["model"] : typeof clientBody["model"] === "string" ? clientBody["model"] : "";
  port.save({
    id,
    createdAt: now,
    expiresAt: now + retentionHours * HOUR_MS,
    model,
    connectionId,
    inputItems: expandedInput,
    response: responseObject,
  });
  return true;
}

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
