// R25.4: the event each format ends a stream with when the upstream fails inside a 200 — Anthropic
// an `error` event, Responses an `error` event with its code, OpenAI Chat and Gemini a data frame
// holding their error body.
import type { WireFormat } from "../types.js";
import { dataFrame, defaultErrorMessage, type WireWriter } from "./plan.js";
import { isRecord } from "../records.js";

export function streamErrorEvent(format: WireFormat, writer: WireWriter, status: number): string {
  const message = defaultErrorMessage(status);
  const body = writer.error(status, message);
  if (format === "anthropic") return `event: error\ndata: ${JSON.stringify(body)}\n\n`;
  if (format === "openai-responses") {
    const error = isRecord(body) && isRecord(body["error"]) ? body["error"] : {};
    return `event: error\ndata: ${JSON.stringify({ type: "error", code: error["code"] ?? null, message, param: null })}\n\n`;
  }
  return dataFrame(body);
}
