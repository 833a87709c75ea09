// R20.1: a request in the client's format without the reasoning artifacts the connection it goes
// to did not issue, so that upstream never refuses it. What each format keeps is its client half's
// (formats/*/reasoning-artifacts.ts); here the book says what the connection issued. Nothing
// foreign: null, and a same-format request passes through byte for byte.
import type { WireFormat } from "../../../../shared/types.js";
import { clientHalf } from "../../formats/index.js";
import type { Stripped } from "../../formats/reasoningArtifacts.js";
import { boundItemArtifacts, isBoundItem } from "../../formats/responses/reasoning-artifacts.js";
import { blobMark, idMark, type ReasoningProvenance } from "./book.js";

export type { Stripped } from "../../formats/reasoningArtifacts.js";

export function foreignStripped(format: WireFormat, body: Record<string, unknown>, book: ReasoningProvenance, connectionId: string): Stripped | null {
  const strip = clientHalf(format).foreignReasoningStripped;
  return strip ? strip(body, (value, kind) => book.issuedBy(kind === "blob" ? blobMark(value) : idMark(value), connectionId)) : null;
}

/** R16.7: the reasoning items of a Responses answer `connectionId` gave. */
export function rememberResponsesOutput(book: ReasoningProvenance, output: unknown, connectionId: string): void {
  if (!Array.isArray(output)) return;
  for (const item of output) {
    if (!isBoundItem(item)) continue;
    for (const { value, kind } of boundItemArtifacts(item)) book.remember(kind === "blob" ? blobMark(value) : idMark(value), connectionId);
  }
}
