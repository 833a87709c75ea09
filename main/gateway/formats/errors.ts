// Errors in the client's own format (R1.5). Each format writes its own body (<format>/errors.ts);
// what they share is the HTTP status behind a verdict code.
import { ERROR_CODES, isErrorCode, type ErrorCodeEntry } from "../../../shared/errorCodes.js";

/**
 * The status a mid-stream error event names for a code: the one API.md fixes for its verdict
 * codes. Any other code says 500: the stream already answered 200, and the contract gives the
 * event no other status to name.
 */
export function statusForCode(code: string): number {
  const entry: ErrorCodeEntry | undefined = isErrorCode(code) ? ERROR_CODES[code] : undefined;
  return entry?.contract && entry.status !== null ? entry.status : 500;
}
