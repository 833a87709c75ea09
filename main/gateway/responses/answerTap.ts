// What a Responses turn served, read off the answer as it goes out: the JSON response object, or
// the one a stream's response.completed (or .incomplete) event carries. Translated and passed-
// through answers look the same here, so the turn's state is kept the same way for both.
import { isRecord } from "../../../shared/records.js";
import type { AnswerObserver } from "../response/clientResponse.js";

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

export function responsesAnswerTap(onResponse: (response: Record<string, unknown>) => void): AnswerObserver {
  let seen = false;
  const take = (value: unknown) => {
    if (seen || !isRecord(value) || value["object"] !== "response") return;
    seen = true;
    onResponse(value);
  };
  return {
    json: (body) => take(typeof body === "string" ? parse(body) : body),
    streamText: (text) => {
      if (seen || !text.includes('"type":"response.')) return;
      const data = finalEventData(text);
      if (isRecord(data)) take(data["response"]);
    },
  };
}
