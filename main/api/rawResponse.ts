// A handler result that is not JSON (the YAML config export). The HTTP adapter sends `body`
// verbatim with `contentType`; the IPC adapter can pass the plain object through unchanged.
import type { RawResponse } from "../../shared/apiTypes.js";
import { isRecord } from "../../shared/records.js";

export type { RawResponse };

export function rawResponse(contentType: string, body: string): RawResponse {
  return { kind: "raw", contentType, body };
}

export function isRawResponse(value: unknown): value is RawResponse {
  return isRecord(value) && value.kind === "raw" && typeof value.contentType === "string" && typeof value.body === "string";
}
