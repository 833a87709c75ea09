// R20.1: a request in the client's format without the reasoning artifacts the connection it goes
// to did not issue, so that upstream never refuses it. Each format keeps what it can:
// - Anthropic: a foreign thinking or redacted_thinking block is dropped, in every turn alike so the
//   history stays byte-stable from turn to turn (the API leaves earlier turns' thinking out of the
//   context anyway). In an active tool loop the last assistant turn must start with thinking while
//   thinking is on; when it lost its thinking, thinking is off for this one request, which the
//   API accepts (turning the reasoning into text there would change that turn's bytes next turn).
// - Gemini: the part stays and loses its signature; a functionCall part gets Google's documented
//   bypass value instead, since Gemini 3 refuses a function call without one.
// - Responses: a foreign reasoning or compaction item is dropped (the blob is all it carries).
// Nothing foreign: null, and a same-format request passes through byte for byte.
import type { WireFormat } from "../../../shared/types.js";
import { isRecord } from "../../../shared/records.js";
import { SKIP_THOUGHT_SIGNATURE } from "../formats/gemini/request-out.js";
import { blobMark, idMark, type ReasoningProvenance } from "./book.js";

export interface Stripped {
  body: Record<string, unknown>;
  /** Artifacts taken out with what carried them. */
  removed: number;
  /** Artifacts whose content went on without them (as text, or a part without its signature). */
  plain: number;
}

type Readable = (mark: string) => boolean;

export function foreignStripped(format: WireFormat, body: Record<string, unknown>, book: ReasoningProvenance, connectionId: string): Stripped | null {
  const readable: Readable = (mark) => book.issuedBy(mark, connectionId);
  if (format === "anthropic") return anthropicStripped(body, readable);
  if (format === "gemini") return geminiStripped(body, readable);
  if (format === "openai-responses") return responsesStripped(body, readable);
  return null;
}

const isOurs = (signature: string): boolean => signature.startsWith("switchyard.reasoning.");

/** The blob an Anthropic block carries for its account to check, or null (not a reasoning block, or a marker of ours). */
function anthropicBlob(block: unknown): string | null {
  if (!isRecord(block)) return null;
  const blob = block["type"] === "thinking" ? block["signature"] : block["type"] === "redacted_thinking" ? block["data"] : null;
  return typeof blob === "string" && blob !== "" && !isOurs(blob) ? blob : null;
}

/** The conversation ends in a tool result answering the last assistant turn's tool call. */
function inToolLoop(messages: unknown[]): boolean {
  const last = messages[messages.length - 1];
  const before = messages[messages.length - 2];
  const hasBlock = (message: unknown, type: string) => isRecord(message) && Array.isArray(message["content"]) && message["content"].some((b) => isRecord(b) && b["type"] === type);
  return isRecord(before) && before["role"] === "assistant" && hasBlock(before, "tool_use") && isRecord(last) && last["role"] === "user" && hasBlock(last, "tool_result");
}

function thinkingOn(body: Record<string, unknown>): boolean {
  const thinking = body["thinking"];
  return isRecord(thinking) && thinking["type"] !== "disabled";
}

function anthropicStripped(body: Record<string, unknown>, readable: Readable): Stripped | null {
  const messages = body["messages"];
  if (!Array.isArray(messages)) return null;
  const foreign = (block: unknown) => {
    const blob = anthropicBlob(block);
    return blob !== null && !readable(blobMark(blob));
  };
  const carriesForeign = (m: unknown): m is Record<string, unknown> & { content: unknown[] } =>
    isRecord(m) && m["role"] === "assistant" && Array.isArray(m["content"]) && m["content"].some(foreign);
  if (!messages.some(carriesForeign)) return null;
  let removed = 0;
  const kept = messages.map((message) => {
    if (!carriesForeign(message)) return message;
    const content = message.content.filter((block) => !foreign(block));
    removed += message.content.length - content.length;
    // An assistant turn must keep some content; its reasoning was all it had.
    return { ...message, content: content.length ? content : [{ type: "text", text: "(reasoning omitted)" }] };
  });
  // The same blocks go whatever the turn, so the history stays byte-stable turn after turn (R20.2).
  const loopTurn = kept[kept.length - 2];
  const thinkingOff = thinkingOn(body) && inToolLoop(kept) && isRecord(loopTurn) && Array.isArray(loopTurn["content"]) && anthropicBlob(loopTurn["content"][0]) === null;
  const { thinking: _off, ...withoutThinking } = body;
  return { body: thinkingOff ? { ...withoutThinking, messages: kept } : { ...body, messages: kept }, removed, plain: 0 };
}

function geminiStripped(body: Record<string, unknown>, readable: Readable): Stripped | null {
  const contents = body["contents"];
  if (!Array.isArray(contents)) return null;
  const foreign = (part: unknown) => {
    if (!isRecord(part) || typeof part["thoughtSignature"] !== "string") return false;
    const signature = part["thoughtSignature"];
    return signature !== "" && signature !== SKIP_THOUGHT_SIGNATURE && !isOurs(signature) && !readable(blobMark(signature));
  };
  let plain = 0;
  const kept = contents.map((content) => {
    if (!isRecord(content) || !Array.isArray(content["parts"]) || !content["parts"].some(foreign)) return content;
    const parts = content["parts"].map((part) => {
      if (!foreign(part) || !isRecord(part)) return part;
      plain++;
      const { thoughtSignature: _foreign, ...rest } = part;
      return "functionCall" in part ? { ...rest, thoughtSignature: SKIP_THOUGHT_SIGNATURE } : rest;
    });
    return { ...content, parts };
  });
  return plain === 0 ? null : { body: { ...body, contents: kept }, removed: 0, plain };
}

/** Items an account checks as its own: reasoning, and compactions (whose blob is encrypted the same way). */
const BOUND_ITEMS: ReadonlySet<unknown> = new Set(["reasoning", "compaction"]);

/** The marks a Responses item carries: its encrypted blob and its id. */
export function responsesItemMarks(item: Record<string, unknown>): string[] {
  const marks: string[] = [];
  if (typeof item["encrypted_content"] === "string" && item["encrypted_content"] !== "") marks.push(blobMark(item["encrypted_content"]));
  if (typeof item["id"] === "string" && item["id"] !== "") marks.push(idMark(item["id"]));
  return marks;
}

export function isBoundItem(item: unknown): item is Record<string, unknown> {
  return isRecord(item) && BOUND_ITEMS.has(item["type"]);
}

function responsesStripped(body: Record<string, unknown>, readable: Readable): Stripped | null {
  const input = body["input"];
  if (!Array.isArray(input)) return null;
  // A reasoning item with neither blob nor id (a summary only) carries nothing an account checks.
  const kept = input.filter((item) => !isBoundItem(item) || responsesItemMarks(item).every(readable));
  return kept.length === input.length ? null : { body: { ...body, input: kept }, removed: input.length - kept.length, plain: 0 };
}

/** R16.7: the reasoning items of a Responses answer `connectionId` gave. */
export function rememberResponsesOutput(book: ReasoningProvenance, output: unknown, connectionId: string): void {
  if (!Array.isArray(output)) return;
  for (const item of output) if (isBoundItem(item)) for (const mark of responsesItemMarks(item)) book.remember(mark, connectionId);
}
