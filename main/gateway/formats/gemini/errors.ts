// Gemini error bodies (R1.5) follow Google's status shape; Switchyard's verdict is the ErrorInfo reason.

function geminiStatus(status: number): string {
  switch (status) {
    case 401:
      return "UNAUTHENTICATED";
    case 403:
      return "PERMISSION_DENIED";
    case 404:
      return "NOT_FOUND";
    case 409:
      return "ABORTED";
    case 429:
      return "RESOURCE_EXHAUSTED";
    case 503:
      return "UNAVAILABLE";
    case 504:
      return "DEADLINE_EXCEEDED";
    default:
      return status >= 500 ? "INTERNAL" : "INVALID_ARGUMENT";
  }
}

/**
 * R17.3: Google's error status shape, our verdict as the ErrorInfo reason, and on 429/503 with a
 * known wait a RetryInfo, which the Gemini CLI's retry loop reads as Google's own. The retry_after
 * and reset_at API.md adds to every final 429 stay beside them.
 */
export function geminiErrorBody(status: number, code: string, message: string, extra?: Record<string, unknown>, retryAfterSeconds?: number | null): Record<string, unknown> {
  const details: Record<string, unknown>[] = [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: code, domain: "switchyard" }];
  if ((status === 429 || status === 503) && typeof retryAfterSeconds === "number") {
    details.push({ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${retryAfterSeconds}s` });
  }
  return { error: { code: status, message, status: geminiStatus(status), details, ...extra } };
}
