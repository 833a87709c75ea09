// R16.7, R20.1: the account-bound items of the Responses API — reasoning and compaction items,
// checked by their encrypted blob and their id. They are read off the finished response by the
// turn that served it (not off stream text); in a request bound for an account that did not issue
// them they are dropped (the blob is all they carry).
import { isRecord } from "../../../../shared/records.js";
import type { IssuedHere, Stripped } from "../reasoningArtifacts.js";

/** Items an account checks as its own: reasoning, and compactions (whose blob is encrypted the same way). */
const BOUND_ITEMS: ReadonlySet<unknown> = new Set(["reasoning", "compaction"]);

export function isBoundItem(item: unknown): item is Record<string, unknown> {
  return isRecord(item) && BOUND_ITEMS.has(item["type"]);
}

/** What a bound item carries for its account to check: its encrypted blob and its id. */
export function boundItemArtifacts(item: Record<string, unknown>): Array<{ value: string; kind: "blob" | "id" }> {
  const found: Array<{ value: string; kind: "blob" | "id" }> = [];
  if (typeof item["encrypted_content"] === "string" && item["encrypted_content"] !== "") found.push({ value: item["encrypted_content"], kind: "blob" });
  if (typeof item["id"] === "string" && item["id"] !== "") found.push({ value: item["id"], kind: "id" });
  return found;
}

export function responsesForeignStripped(body: Record<string, unknown>, issued: IssuedHere): Stripped | null {
  const input = body["input"];
  if (!Array.isArray(input)) return null;
  // A reasoning item with neither blob nor id (a summary only) carries nothing an account checks.
  const kept = input.filter((item) => !isBoundItem(item) || boundItemArtifacts(item).every((a) => issued(a.value, a.kind)));
  return kept.length === input.length ? null : { body: { ...body, input: kept }, removed: input.length - kept.length, plain: 0 };
}
