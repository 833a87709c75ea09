// One Responses API turn around the pipeline (R16.4, R16.7, R1.8): before it, an earlier turn
// named by previous_response_id becomes this body's history (so any upstream format can serve
// it) and `background` is served synchronously; after it, the response served is kept for the
// next turn unless the client said `store: false`, and its reasoning items are remembered with
// the connection that issued them.
import { isRecord } from "../../../../shared/records.js";
import type { FinalError } from "../../context/outcome.js";
import type { AnswerObserver, ClientResponse } from "../../context/clientResponse.js";
import { responsesAnswerTap } from "./answerTap.js";
import { ownCompactionsExpanded } from "./compact.js";
import type { ReasoningProvenance } from "../provenance/book.js";
import { rememberResponsesOutput } from "../provenance/strip.js";
import { expandPreviousResponse, recordServedResponse, type StoredResponsesPort } from "./storedResponses.js";

export interface ResponsesTurnDeps {
  stored: StoredResponsesPort;
  retentionHours: () => number;
  now: () => number;
  provenance: ReasoningProvenance;
}

export interface PreparedTurn {
  body: Record<string, unknown>;
  /** Whether `body` is the one received (its JSON text may then pass through as it is). */
  unchanged: boolean;
  /** Response headers for whatever answer goes out. */
  headers: Record<string, string>;
  /** Installed on the client response once the pipeline made it. */
  observe(client: ClientResponse): AnswerObserver;
}

/** R1.8: what the warning header says when background mode was asked for. */
export const BACKGROUND_WARNING = "background mode is not supported; the response was served synchronously";

export function prepareResponsesTurn(deps: ResponsesTurnDeps, received: Record<string, unknown>): PreparedTurn | FinalError {
  const now = deps.now();
  const expanded = expandPreviousResponse(received, deps.stored, now, deps.retentionHours());
  if ("code" in expanded) return { status: expanded.status, code: expanded.code, message: expanded.message, retryAfterMs: null, noRetry: true };
  let body = expanded.body;
  const readable = ownCompactionsExpanded(body["input"]);
  if (readable) body = { ...body, input: readable };
  const headers: Record<string, string> = {};
  if (body["background"] === true) {
    // An upstream asked for background mode would answer "queued" and nothing else.
    const { background: _dropped, ...rest } = body;
    body = rest;
    headers["X-Switchyard-Warning"] = BACKGROUND_WARNING;
  }
  const input = inputItems(body["input"]);
  return {
    body,
    unchanged: body === received,
    headers,
    observe: (client) =>
      responsesAnswerTap((response) => {
        const connectionId = client.answeringConnectionId;
        if (connectionId) rememberResponsesOutput(deps.provenance, response["output"], connectionId);
        recordServedResponse(deps.stored, body, input, response, connectionId, deps.now(), deps.retentionHours());
      }),
  };
}

/** The input as a list of items: a string is one user message. */
function inputItems(input: unknown): unknown[] {
  if (typeof input === "string") return [{ type: "message", role: "user", content: [{ type: "input_text", text: input }] }];
  return Array.isArray(input) ? input.filter(isRecord) : [];
}
