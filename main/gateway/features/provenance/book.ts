// R20.1 (R16.7): reasoning artifacts — Anthropic thinking signatures and redacted_thinking data,
// Gemini thoughtSignatures, Responses `encrypted_content` blobs and `rs_…` ids — can only be read
// by the account that issued them; another account refuses the whole request ("Invalid signature
// in thinking block", "Corrupted thought signature", invalid_encrypted_content). So every
// artifact Switchyard relays is remembered with the connection that issued it, as a digest (the
// blob is the model's private reasoning and never sits beside a secret), and before a request
// goes to a connection the ones it did not issue are taken out, or kept as plain text where the
// format allows (provenance/strip.ts). An artifact nobody here issued (a session begun elsewhere)
// is foreign to every connection.
// R22.3: the book outlives the process and the instance. Its `keeper` (the store's table) hands
// it what was remembered before a restart and keeps every change, written behind; in a team
// gateway its local changes go to the group (sharedState/provenanceKind.ts) and the group's come
// back through `applyShared`. Lookups only ever read the memory here.
import { createHash } from "node:crypto";

/** Enough for many long sessions; the oldest artifacts go first (a Map keeps insertion order). */
const MAX_ARTIFACTS = 50_000;

export function digest(text: string): string {
  return createHash("sha256").update(text).digest("base64url");
}

/** A blob artifact's key in the book (signature, data, encrypted content). */
export const blobMark = (blob: string): string => `s:${digest(blob)}`;

/** An id artifact's key in the book (a Responses reasoning item id), digested like a blob so no artifact is ever kept. */
export const idMark = (id: string): string => `i:${digest(id)}`;

/** One entry as it is kept and shared: the artifact's mark (a digest), its issuer, and when it was issued (epoch ms). */
export interface ProvenanceEntry {
  mark: string;
  connectionId: string;
  at: number;
}

/** Where the book's entries outlive the process. `keep` is called on the request path and must not wait for a disk. */
export interface ProvenanceKeeper {
  /** The entries kept, oldest first. */
  loadAll(): ProvenanceEntry[];
  keep(entry: ProvenanceEntry): void;
}

export interface ProvenanceOptions {
  keeper?: ProvenanceKeeper;
  /** The clock entries are dated on (the engine's). */
  now?: () => number;
}

export class ReasoningProvenance {
  private readonly issuer = new Map<string, string>();
  private readonly keeper: ProvenanceKeeper | null;
  private readonly now: () => number;
  private readonly localListeners = new Set<(entry: ProvenanceEntry) => void>();

  constructor(options: ProvenanceOptions = {}) {
    this.keeper = options.keeper ?? null;
    this.now = options.now ?? Date.now;
    for (const entry of this.keeper?.loadAll() ?? []) this.set(entry.mark, entry.connectionId);
  }

  /** `mark` (blobMark or idMark) was issued by `connectionId`, here. */
  remember(mark: string, connectionId: string): void {
    if (!this.set(mark, connectionId)) return;
    const entry = { mark, connectionId, at: this.now() };
    this.keeper?.keep(entry);
    for (const listener of this.localListeners) listener(entry);
  }

  /** What another instance of the group remembered: kept, not handed back to the group. */
  applyShared(entry: ProvenanceEntry): void {
    if (this.set(entry.mark, entry.connectionId)) this.keeper?.keep(entry);
  }

  /** Hears what this instance remembers (not what the group told it). */
  onLocalChange(listener: (entry: ProvenanceEntry) => void): () => void {
    this.localListeners.add(listener);
    return () => this.localListeners.delete(listener);
  }

  /** Whether `connectionId` issued the artifact `mark` names. */
  issuedBy(mark: string, connectionId: string): boolean {
    return this.issuer.get(mark) === connectionId;
  }

  /** Makes `mark` the newest entry; whether its issuer is new (a relayed artifact is seen once, or again unchanged). */
  private set(mark: string, connectionId: string): boolean {
    const before = this.issuer.get(mark);
    this.issuer.delete(mark);
    this.issuer.set(mark, connectionId);
    if (before === undefined && this.issuer.size > MAX_ARTIFACTS) {
      const oldest = this.issuer.keys().next();
      if (!oldest.done) this.issuer.delete(oldest.value);
    }
    return before !== connectionId;
  }
}
