// R16.7: reasoning artifacts a Responses upstream issues (`encrypted_content` blobs, `rs_…` item
// ids) can only be read by the account that issued them; another account refuses the whole
// request. So every artifact Switchyard relays is remembered with the connection that issued it
// (as a digest: the blob itself is the model's private reasoning), and before a Responses request
// goes to a connection, the reasoning items it did not issue are taken out. An artifact nobody
// here issued (a restart, a session begun elsewhere) is foreign to every connection.
import { createHash } from "node:crypto";
import { isRecord } from "../../../shared/records.js";

/** Enough for many long sessions; the oldest artifacts go first (a Map keeps insertion order). */
const MAX_ARTIFACTS = 50_000;

/** Items an account checks as its own: reasoning, and compactions (whose blob is encrypted the same way). */
const BOUND_TYPES: ReadonlySet<unknown> = new Set(["reasoning", "compaction"]);

function digest(text: string): string {
  return createHash("sha256").update(text).digest("base64url");
}

/** The marks an item carries: its encrypted blob and its id, each as a key of the book. */
function marksOf(item: Record<string, unknown>): string[] {
  const marks: string[] = [];
  if (typeof item["encrypted_content"] === "string" && item["encrypted_content"] !== "") marks.push(`e:${digest(item["encrypted_content"])}`);
  if (typeof item["id"] === "string" && item["id"] !== "") marks.push(`i:${item["id"]}`);
  return marks;
}

export class ReasoningProvenance {
  private readonly issuer = new Map<string, string>();

  /** The reasoning items of an answer `connectionId` gave. */
  remember(output: unknown, connectionId: string): void {
    if (!Array.isArray(output)) return;
    for (const item of output) {
      if (!isRecord(item) || !BOUND_TYPES.has(item["type"])) continue;
      for (const mark of marksOf(item)) {
        this.issuer.delete(mark);
        this.issuer.set(mark, connectionId);
        if (this.issuer.size > MAX_ARTIFACTS) {
          const oldest = this.issuer.keys().next();
          if (!oldest.done) this.issuer.delete(oldest.value);
        }
      }
    }
  }

  /** Whether this reasoning item may go to `connectionId`: every mark it carries was issued there. */
  private readable(item: Record<string, unknown>, connectionId: string): boolean {
    const marks = marksOf(item);
    // A reasoning item with neither blob nor id (a summary only) carries nothing an account checks.
    return marks.every((mark) => this.issuer.get(mark) === connectionId);
  }

  /**
   * The input list without the reasoning items `connectionId` cannot read, or null when every
   * item may go as it is (the request then passes through unchanged, byte for byte).
   */
  foreignRemoved(input: unknown, connectionId: string): unknown[] | null {
    if (!Array.isArray(input)) return null;
    const kept = input.filter((item) => !isRecord(item) || !BOUND_TYPES.has(item["type"]) || this.readable(item, connectionId));
    return kept.length === input.length ? null : kept;
  }
}
