// R20.1 (R16.7): reasoning artifacts — Anthropic thinking signatures and redacted_thinking data,
// Gemini thoughtSignatures, Responses `encrypted_content` blobs and `rs_…` ids — can only be read
// by the account that issued them; another account refuses the whole request ("Invalid signature
// in thinking block", "Corrupted thought signature", invalid_encrypted_content). So every
// artifact Switchyard relays is remembered with the connection that issued it, as a digest (the
// blob is the model's private reasoning and never sits beside a secret), and before a request
// goes to a connection the ones it did not issue are taken out, or kept as plain text where the
// format allows (provenance/strip.ts). An artifact nobody here issued (a restart, a session begun
// elsewhere) is foreign to every connection.
import { createHash } from "node:crypto";

/** Enough for many long sessions; the oldest artifacts go first (a Map keeps insertion order). */
const MAX_ARTIFACTS = 50_000;

export function digest(text: string): string {
  return createHash("sha256").update(text).digest("base64url");
}

/** A blob artifact's key in the book (signature, data, encrypted content). */
export const blobMark = (blob: string): string => `s:${digest(blob)}`;

/** An id artifact's key in the book (a Responses reasoning item id). */
export const idMark = (id: string): string => `i:${id}`;

export class ReasoningProvenance {
  private readonly issuer = new Map<string, string>();

  /** `mark` (blobMark or idMark) was issued by `connectionId`. */
  remember(mark: string, connectionId: string): void {
    this.issuer.delete(mark);
    this.issuer.set(mark, connectionId);
    if (this.issuer.size > MAX_ARTIFACTS) {
      const oldest = this.issuer.keys().next();
      if (!oldest.done) this.issuer.delete(oldest.value);
    }
  }

  /** Whether `connectionId` issued the artifact `mark` names. */
  issuedBy(mark: string, connectionId: string): boolean {
    return this.issuer.get(mark) === connectionId;
  }
}
