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

export function geminiErrorBody(status: number, code: string, message: string, extra?: Record<string, unknown>): Record<string, unknown> {
  return {
    error: {
      code: status,
      message,
      status: geminiStatus(status),
      details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: code, domain: "switchyard" }],
      ...extra,
    },
  };
}
