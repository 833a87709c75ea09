// R20.1: the artifacts an answer carries, read off the text the client receives (a JSON answer or
// one stream frame at a time: frames are written whole), so translated and passed-through answers
// are remembered alike. Where a format keeps them is its client half's (R22.5); a format whose
// answers carry none read this way gets no tap.
import type { WireFormat } from "../../../../shared/types.js";
import { clientHalf } from "../../formats/index.js";
import { blobMark, type ReasoningProvenance } from "./book.js";

/** The tap for a client format's answers, or null; `answering` names the connection whose answer is being written. */
export function artifactTap(format: WireFormat, book: ReasoningProvenance, answering: () => string | null): ((text: string) => void) | null {
  const read = clientHalf(format).reasoningArtifacts;
  if (!read) return null;
  return (text) => {
    const found = read(text);
    if (found.length === 0) return;
    const connectionId = answering();
    if (connectionId !== null) for (const value of found) book.remember(blobMark(value), connectionId);
  };
}
