// The lease context a client presents (R7.2, D7): the opaque owner token (`vlo_` + 43 base64url
// characters, i.e. 32 random bytes) and the exact generation. Only the owner's SHA-256 is used
// past this point, so the token never reaches the store, a log or a response.
import { createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";

export const LEASE_OWNER_HEADER = "x-omniroute-lease-owner";
export const LEASE_GENERATION_HEADER = "x-omniroute-lease-generation";
const OWNER_TOKEN = /^vlo_[A-Za-z0-9_-]{43}$/;
const GENERATION = /^[1-9][0-9]{0,14}$/;

export type LeaseContext =
  { kind: "none" } | { kind: "required"; message: string } | { kind: "invalid"; message: string } | { kind: "present"; ownerHash: string; generation: number | null };

export function hashOwnerToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const raw = headers[name];
  return Array.isArray(raw) ? raw[0] : raw;
}

function parseGeneration(value: unknown): number | null | "invalid" {
  if (value === undefined || value === null || value === "") return null;
  if (typeof value === "number") return Number.isSafeInteger(value) && value > 0 ? value : "invalid";
  return typeof value === "string" && GENERATION.test(value.trim()) ? Number(value.trim()) : "invalid";
}

/** Owner and generation from the lease headers, or (lifecycle route) from the body fields `owner` / `generation`. */
export function leaseContextOf(headers: IncomingHttpHeaders, body: Record<string, unknown> = {}): LeaseContext {
  const owner = header(headers, LEASE_OWNER_HEADER) ?? body.owner;
  const generation = parseGeneration(header(headers, LEASE_GENERATION_HEADER) ?? body.generation);
  if (owner === undefined || owner === null || owner === "") {
    return generation === null ? { kind: "none" } : { kind: "required", message: `A lease generation needs its owner (${LEASE_OWNER_HEADER})` };
  }
  if (typeof owner !== "string" || !OWNER_TOKEN.test(owner.trim())) {
    return { kind: "invalid", message: "The lease owner must be vlo_ followed by 43 base64url characters" };
  }
  if (generation === "invalid") return { kind: "invalid", message: "The lease generation must be a positive integer" };
  return { kind: "present", ownerHash: hashOwnerToken(owner.trim()), generation };
}
