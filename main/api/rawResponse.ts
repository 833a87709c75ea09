// A handler result that is not JSON (the YAML config export). The HTTP adapter sends `body`
// verbatim with `contentType`; the IPC adapter can pass the plain object through unchanged.
export interface RawResponse {
  kind: "raw";
  contentType: string;
  body: string;
}

export function rawResponse(contentType: string, body: string): RawResponse {
  return { kind: "raw", contentType, body };
}

export function isRawResponse(value: unknown): value is RawResponse {
  const candidate = value as Partial<RawResponse> | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    candidate.kind === "raw" &&
    typeof candidate.contentType === "string" &&
    typeof candidate.body === "string"
  );
}
