// R4.3: Gemini's own wait, google.rpc.RetryInfo in the error body: `"retryDelay": "33s"`. It is the
// model's own quota that asks for it, so a long one locks the model out (R9.4).
import { positive, type RetryHint } from "../../../engine/retryHints.js";

export function geminiRetryHint(body: string): RetryHint | null {
  const m = /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/.exec(body);
  const ms = m ? positive(Number(m[1]) * 1_000) : null;
  return ms === null ? null : { ms, source: "google_rpc_retry_info", perModel: true };
}
