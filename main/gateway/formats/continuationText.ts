// Reading and rewriting the text delta of one client stream frame (R13.3). Each client format
// says where its frames keep that text; the frame parsing around it is the same SSE for all.

import type { ContinuationText } from "./adapter.js";
import type { OutFrame } from "./types.js";
import { isRecord, type JsonObject } from "./values.js";

interface ParsedFrame {
  event: string | null;
  data: JsonObject;
}

function parseFrame(text: string): ParsedFrame | null {
  let event: string | null = null;
  const data: string[] = [];
  for (const line of text.split("\n")) {
    if (line.startsWith("event:")) event = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
  }
  try {
    const parsed: unknown = JSON.parse(data.join("\n"));
    return isRecord(parsed) ? { event, data: parsed } : null;
  } catch {
    return null;
  }
}

/**
 * A chat or Messages request with the text so far as a trailing assistant message. Anthropic
 * refuses a prefill ending in whitespace, and a prefill cannot be combined with thinking.
 */
export function messagesWithPrefix(body: JsonObject, text: string): JsonObject {
  const messages = Array.isArray(body["messages"]) ? body["messages"] : [];
  const { thinking: _thinking, ...rest } = body;
  return { ...rest, messages: [...messages, { role: "assistant", content: text.trimEnd() }] };
}

/** Where a frame's data keeps its text delta: the object holding it and the key, or null. */
export type TextHolder = (data: JsonObject) => { holder: JsonObject; key: string } | null;

export function continuationText(holderOf: TextHolder, withPrefix: ContinuationText["withPrefix"]): ContinuationText {
  return {
    withPrefix,
    textOf(frame: OutFrame): string {
      // An encoder's frame carries its data: only a passed-through frame is parsed (issue 33).
      const data = frame.data ?? parseFrame(frame.text)?.data;
      const at = data && holderOf(data);
      return at ? String(at.holder[at.key]) : "";
    },
    withText(frame: OutFrame, text: string): OutFrame {
      const parsed = parseFrame(frame.text);
      const at = parsed && holderOf(parsed.data);
      if (!parsed || !at) return frame;
      at.holder[at.key] = text;
      const data = `data: ${JSON.stringify(parsed.data)}\n\n`;
      return { kind: frame.kind, text: parsed.event ? `event: ${parsed.event}\n${data}` : data };
    },
  };
}
