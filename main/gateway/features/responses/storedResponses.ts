// Stored Responses API turns (R16.4). A turn Switchyard served is kept (unless the client said
// `store: false`) so that a later `previous_response_id` can be answered by ANY upstream: the
// earlier turn becomes plain history in the new body's `input`, exactly the items the client
// would have resent itself, so no upstream needs state of its own. The routes (http/storedResponseRoutes.ts)
// read and remove stored turns. A stored turn holds only what the client sent and what it was answered; request
// headers (keys) never reach it.
import { ERROR_CODES, type ErrorCode } from "../../../../shared/errorCodes.js";
import type { StoredResponseRecord } from "../../../../shared/types.js";

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

export const storageOff = (): StoredResponseRefusal => ({
  status: ERROR_CODES.response_storage_off.status,
  code: "response_storage_off",
  message: "Response storage is off (setting responsesRetentionHours is 0): send the whole conversation in `input` instead of previous_response_id",
});

export const notFound = (id: string): StoredResponseRefusal => ({
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
