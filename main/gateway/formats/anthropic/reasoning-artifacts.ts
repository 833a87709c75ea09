// R20.1: the account-bound reasoning of Anthropic Messages — a thinking block's signature and a
// redacted_thinking block's data. Read off the text a client receives; taken out of a request
// bound for an account that did not issue them. A foreign block is dropped in every turn alike, so
// the history stays byte-stable from turn to turn (the API leaves earlier turns' thinking out of
// the context anyway). In an active tool loop the last assistant turn must start with thinking while
// thinking is on; when it lost its thinking, thinking is off for this one request, which the API
// accepts (turning the reasoning into text there would change that turn's bytes next turn).
import { isRecord } from "../../../../shared/records.js";
import { isSwitchyardMarker, JSON_STRING, stringValues, type IssuedHere, type Stripped } from "../reasoningArtifacts.js";

const SIGNED = new RegExp(String.raw`"signature"\s*:\s*${JSON_STRING}`, "g");
const REDACTED = new RegExp(String.raw`"redacted_thinking"\s*,\s*"data"\s*:\s*${JSON_STRING}`, "g");
const isArtifact = (value: string) => value !== "" && !isSwitchyardMarker(value);

/** The artifacts in a text the client receives; the cheap checks keep the scan off most frames. */
export function anthropicArtifacts(text: string): string[] {
  const found: string[] = [];
  if (text.includes('"signature"')) stringValues(text, SIGNED, isArtifact, found);
  if (text.includes('"redacted_thinking"')) stringValues(text, REDACTED, isArtifact, found);
  return found;
}

/** The blob an Anthropic block carries for its account to check, or null (not a reasoning block, or a marker of ours). */
function blobOf(block: unknown): string | null {
  if (!isRecord(block)) return null;
  const blob = block["type"] === "thinking" ? block["signature"] : block["type"] === "redacted_thinking" ? block["data"] : null;
  return typeof blob === "string" && isArtifact(blob) ? blob : null;
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

export function anthropicForeignStripped(body: Record<string, unknown>, issued: IssuedHere): Stripped | null {
  const messages = body["messages"];
  if (!Array.isArray(messages)) return null;
  const foreign = (block: unknown) => {
    const blob = blobOf(block);
    return blob !== null && !issued(blob, "blob");
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
  const thinkingOff = thinkingOn(body) && inToolLoop(kept) && isRecord(loopTurn) && Array.isArray(loopTurn["content"]) && blobOf(loopTurn["content"][0]) === null;
  const { thinking: _off, ...withoutThinking } = body;
  return { body: thinkingOff ? { ...withoutThinking, messages: kept } : { ...body, messages: kept }, removed, plain: 0 };
}
