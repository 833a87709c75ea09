// What a Responses turn served, read off the answer as it goes out: the JSON response object, or
// the one a stream's response.completed (or .incomplete) event carries. Translated and passed-
// through answers look the same here, so the turn's state is kept the same way for both: a
// translated stream's event is the encoder's object, a passed-through one's is read off its text.
import { isRecord } from "../../../../shared/records.js";
import type { OutFrame } from "../../formats/types.js";
import type { JsonObject } from "../../formats/values.js";
import type { AnswerObserver } from "../../context/clientResponse.js";

const FINAL_EVENTS = ["response.completed", "response.incomplete"];

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The data of the final event in a chunk of SSE text, or undefined. */
function finalEventData(text: string): unknown {
  for (const type of FINAL_EVENTS) {
    const at = text.indexOf(`"type":"${type}"`);
    if (at === -1) continue;
    const lineStart = text.lastIndexOf("data:", at);
    if (lineStart === -1) continue;
    const lineEnd = text.indexOf("\n", at);
    return parse(text.slice(lineStart + 5, lineEnd === -1 ? undefined : lineEnd).trim());
  }
  return undefined;
}

/**
 * The final event's data among frames an encoder made (they carry their data), or undefined; null
 * when a frame came without data (passed through as the upstream wrote it): its text is then read.
 */
function finalFrameData(frames: readonly OutFrame[]): JsonObject | null | undefined {
  for (const frame of frames) {
    if (!frame.data) return null;
    if (FINAL_EVENTS.includes(String(frame.data["type"]))) return frame.data;
  }
  return undefined;
}

export function responsesAnswerTap(onResponse: (response: Record<string, unknown>) => void): AnswerObserver {
  let seen = false;
  const take = (value: unknown) => {
    if (seen || !isRecord(value) || value["object"] !== "response") return;
    seen = true;
    onResponse(value);
  };
  return {
    json: (body) => take(typeof body === "string" ? parse(body) : body),
    streamText: (text, frames) => {
      if (seen) return;
      // A translated stream's final event is the encoder's own object: not parsed back (issue 33).
      const encoded = frames.length > 0 ? finalFrameData(frames) : null;
      if (encoded !== null) {
        if (encoded) take(encoded["response"]);
        return;
      }
      if (!text.includes('"type":"response.')) return;
      const data = finalEventData(text);
      if (isRecord(data)) take(data["response"]);
    },
  };
}
