import type { Conversation, ToolOffer } from "./conversation.js";

export type Reply =
  | { kind: "text"; text: string; chunks: string[] }
  /** `args` is JSON text, or the raw input of a freeform (Responses `custom`) tool. */
  | { kind: "tool"; name: string; input: Record<string, string>; args: string; argChunks: string[]; freeform?: true };

export interface Usage {
  /** Every prompt token, cached ones included. */
  input: number;
  output: number;
  /** Of `input`: read from the key's prompt cache, and written to it (promptCache.ts). */
  cacheRead?: number;
  cacheWrite?: number;
}

export interface Answer {
  reply: Reply;
  usage: Usage;
}

export const TOOL_TRIGGER = /\buse tool\b/i;
/** What a freeform tool receives: the same "sim" a required string parameter gets, so a custom tool the gateway turned into a one-string function sees the same value. */
const FREEFORM_INPUT = "sim";
const TOOL_RESULT_PREVIEW = 40;
const MIN_CHUNKS = 3;

/** Splits text into streaming pieces at word boundaries (leading space kept), at least three when possible. */
export function chunkText(text: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  for (let i = 1; i < text.length; i++) {
    if (text.charCodeAt(i) === 32 && text.charCodeAt(i - 1) !== 32) {
      pieces.push(text.slice(start, i));
      start = i;
    }
  }
  pieces.push(text.slice(start));
  if (pieces.length >= MIN_CHUNKS || text.length < MIN_CHUNKS) return pieces;
  const size = Math.ceil(text.length / MIN_CHUNKS);
  const even: string[] = [];
  for (let i = 0; i < text.length; i += size) even.push(text.slice(i, i + size));
  return even;
}

function splitInTwo(text: string): string[] {
  if (text.length < 2) return [text];
  const mid = Math.ceil(text.length / 2);
  return [text.slice(0, mid), text.slice(mid)];
}

function countWords(text: string): number {
  let words = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const space = c === 32 || c === 10 || c === 9 || c === 13;
    if (!space && !inWord) words++;
    inWord = !space;
  }
  return words;
}

function toolCall(tool: ToolOffer): Reply {
  if (tool.freeform) {
    return { kind: "tool", name: tool.name, input: {}, args: FREEFORM_INPUT, argChunks: splitInTwo(FREEFORM_INPUT), freeform: true };
  }
  const input: Record<string, string> = {};
  for (const name of tool.requiredStrings) input[name] = "sim";
  const args = JSON.stringify(input);
  return { kind: "tool", name: tool.name, input, args, argChunks: splitInTwo(args) };
}

function textReply(text: string): Reply {
  return { kind: "text", text, chunks: chunkText(text) };
}

/**
 * What the simulated model answers: a call to the first offered tool when the user asks
 * to "use tool", an acknowledgement of a tool result, else the default text.
 */
export function composeAnswer(conversation: Conversation, defaultText: string): Answer {
  const { lastTurn, firstTool } = conversation;
  let reply: Reply;
  if (firstTool && lastTurn.kind === "user" && TOOL_TRIGGER.test(lastTurn.text)) {
    reply = toolCall(firstTool);
  } else if (lastTurn.kind === "assistant_prefix") {
    // A prefill continues the answer: the rest of it when the prefix is its start, else all of it.
    reply = textReply(defaultText.startsWith(lastTurn.text) && lastTurn.text !== "" ? defaultText.slice(lastTurn.text.length) : defaultText);
  } else if (lastTurn.kind === "tool_result") {
    reply = textReply(`Tool result received: ${lastTurn.text.slice(0, TOOL_RESULT_PREVIEW)}`);
  } else {
    reply = textReply(defaultText);
  }
  const output = reply.kind === "text" ? Math.max(1, countWords(reply.text)) : 8 + Math.ceil((reply.name.length + reply.args.length) / 4);
  return { reply, usage: { input: Math.max(1, Math.ceil(conversation.promptChars / 4)), output } };
}
