// Which client session a request belongs to (R7.1, D7). Headers first, in the order of D7 and then
// Codex's own (R16.5); then what the client format's half reads from the body (D7's body fields). A short plain token is kept as sent (the dashboard can show it); anything else is
// reduced to its SHA-256, so a key that is really a prompt or a secret is never stored.
import { createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";

// Claude Code's own session header (measured: tests/fixtures/clients/clientHeaders.json) comes last:
// it names one conversation, which is what a warm prompt cache belongs to (R7.1, R20.2).
export const SESSION_HEADERS = ["x-codex-session-id", "x-session-id", "x-omniroute-session", "session-id", "thread-id", "x-claude-code-session-id"] as const;
const PLAIN_KEY = /^[A-Za-z0-9._:-]{1,180}$/;

function headerValue(headers: IncomingHttpHeaders, name: string): string | null {
  const raw = headers[name];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return typeof value === "string" && value.trim() ? value.trim() : null;
}

/** The raw session key of a request, before normalisation, or null when it names no session. */
export function rawSessionKey(headers: IncomingHttpHeaders, bodyHint: () => string | null): string | null {
  for (const name of SESSION_HEADERS) {
    const value = headerValue(headers, name);
    if (value) return value;
  }
  return bodyHint();
}

export function normaliseSessionKey(raw: string): string {
  return PLAIN_KEY.test(raw) ? raw : `sha256:${createHash("sha256").update(raw).digest("hex")}`;
}

/** `bodyHint` reads the client half's sessionHint of the body, only when no header names the session. */
export function sessionKeyOf(headers: IncomingHttpHeaders, bodyHint: () => string | null): string | null {
  const raw = rawSessionKey(headers, bodyHint);
  return raw === null ? null : normaliseSessionKey(raw);
}
