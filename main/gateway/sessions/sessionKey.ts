// Which client session a request belongs to (R7.1, D7). Headers first, then body fields, in the
// order of D7. A short plain token is kept as sent (the dashboard can show it); anything else is
// reduced to its SHA-256, so a key that is really a prompt or a secret is never stored.
import { createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { isRecord } from "../../../shared/records.js";

export const SESSION_HEADERS = ["x-codex-session-id", "x-session-id", "x-omniroute-session"] as const;
const PLAIN_KEY = /^[A-Za-z0-9._:-]{1,180}$/;

function headerValue(headers: IncomingHttpHeaders, name: string): string | null {
  const raw = headers[name];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return typeof value === "string" && value.trim() ? value.trim() : null;
}

function bodyValue(value: unknown): string | null {
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return typeof value === "string" && value.trim() ? value.trim() : null;
}

/** The raw session key of a request, before normalisation, or null when it names no session. */
export function rawSessionKey(headers: IncomingHttpHeaders, body: Record<string, unknown>): string | null {
  for (const name of SESSION_HEADERS) {
    const value = headerValue(headers, name);
    if (value) return value;
  }
  const metadata = isRecord(body.metadata) ? body.metadata : {};
  return bodyValue(metadata.session_id) ?? bodyValue(body.conversation_id) ?? bodyValue(body.session_id) ?? bodyValue(body.prompt_cache_key);
}

export function normaliseSessionKey(raw: string): string {
  return PLAIN_KEY.test(raw) ? raw : `sha256:${createHash("sha256").update(raw).digest("hex")}`;
}

export function sessionKeyOf(headers: IncomingHttpHeaders, body: Record<string, unknown>): string | null {
  const raw = rawSessionKey(headers, body);
  return raw === null ? null : normaliseSessionKey(raw);
}
