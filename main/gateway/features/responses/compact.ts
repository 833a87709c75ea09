// R16.5: POST /v1/responses/compact — remote compaction. Whatever format the model's upstream
// speaks, the target model is asked (as an ordinary Responses turn, so every resilience rule and
// every translation applies) to summarise the conversation for a handoff, and the answer is given
// in the shape of OpenAI's compaction: `{object: "response.compaction", output: [the user
// messages, {type: "compaction", encrypted_content}], usage}`. The compaction item is Switchyard's
// own (its "encrypted" content is the summary, marked): when it comes back in a later input, the
// turn turns it into a plain message any upstream can read.
//
// Not done: handing the request to a Responses upstream's own /responses/compact. Its blob would
// bind the session to that one account, which failover to another account or format cannot honour.
import { isRecord } from "../../../../shared/records.js";

const OWN_COMPACTION = "switchyard.compaction.v1:";

const SUMMARY_REQUEST = [
  "Write a handoff summary of the conversation so far, for another model that will continue the work without seeing it.",
  "Include the user's goal and constraints, the decisions made and why, the current state (files changed, commands run and what they showed),",
  "and what remains to be done. Write only the summary.",
].join(" ");

/** The Responses turn that asks the model for the summary. */
export function compactionTurn(body: Record<string, unknown>): Record<string, unknown> {
  const input = typeof body["input"] === "string" ? [userMessage(body["input"])] : Array.isArray(body["input"]) ? body["input"] : [];
  const { tools: _tools, tool_choice: _choice, previous_response_id: _previous, ...rest } = body;
  return { ...rest, input: [...input, userMessage(SUMMARY_REQUEST)], stream: false, store: false, parallel_tool_calls: false };
}

function userMessage(text: string): Record<string, unknown> {
  return { type: "message", role: "user", content: [{ type: "input_text", text }] };
}

function answerText(response: Record<string, unknown>): string {
  const output = Array.isArray(response["output"]) ? response["output"] : [];
  return output
    .filter((item): item is Record<string, unknown> => isRecord(item) && item["type"] === "message")
    .flatMap((item) => (Array.isArray(item["content"]) ? item["content"] : []))
    .map((part) => (isRecord(part) && typeof part["text"] === "string" ? part["text"] : ""))
    .join("");
}

/** The compaction answer for the turn's response object; `input` is what the client sent. */
export function compactionAnswer(response: Record<string, unknown>, input: unknown): Record<string, unknown> {
  const kept = (Array.isArray(input) ? input : typeof input === "string" ? [userMessage(input)] : []).filter(
    (item) => isRecord(item) && (item["type"] === "message" || item["type"] === undefined) && item["role"] === "user",
  );
  const summary = answerText(response);
  const id = typeof response["id"] === "string" ? response["id"] : "resp_compaction";
  return {
    id,
    object: "response.compaction",
    created_at: response["created_at"] ?? Math.floor(Date.now() / 1000),
    output: [...kept, { id: `cmp_${id.replace(/^resp_/, "")}`, type: "compaction", encrypted_content: OWN_COMPACTION + Buffer.from(summary, "utf8").toString("base64url") }],
    usage: response["usage"] ?? null,
  };
}

/**
 * The input with Switchyard's own compaction items as the summary they hold, as a user message;
 * the same list when it has none (so a pass-through body stays as received).
 */
export function ownCompactionsExpanded(input: unknown): unknown[] | null {
  if (!Array.isArray(input) || !input.some(isOwnCompaction)) return null;
  return input.map((item) =>
    isOwnCompaction(item)
      ? userMessage(
          `Summary of the earlier conversation, written for this handoff:\n${Buffer.from(item["encrypted_content"].slice(OWN_COMPACTION.length), "base64url").toString("utf8")}`,
        )
      : item,
  );
}

function isOwnCompaction(item: unknown): item is { encrypted_content: string } {
  return isRecord(item) && item["type"] === "compaction" && typeof item["encrypted_content"] === "string" && item["encrypted_content"].startsWith(OWN_COMPACTION);
}
