// R20.1: the artifacts an answer carries, read off the text the client receives (a JSON answer or
// one stream frame at a time: frames are written whole), so translated and passed-through answers
// are remembered alike. Only formats whose answers carry account-bound artifacts get a tap; the
// cheap `includes` checks keep the scan off every frame that has none (most of a stream).
import type { WireFormat } from "../../../shared/types.js";
import { blobMark, type ReasoningProvenance } from "./book.js";

/** A JSON string value; a backslash inside it means the text must be unescaped before it is digested. */
const STRING = String.raw`"((?:[^"\\]|\\.)*)"`;
const ANTHROPIC_SIGNED = new RegExp(String.raw`"signature"\s*:\s*${STRING}`, "g");
const ANTHROPIC_REDACTED = new RegExp(String.raw`"redacted_thinking"\s*,\s*"data"\s*:\s*${STRING}`, "g");
const GEMINI_SIGNED = new RegExp(String.raw`"thoughtSignature"\s*:\s*${STRING}`, "g");

/** Signatures Switchyard writes itself (formats/reasoning.ts markers) and Google's documented bypass value are no account's. */
function isArtifact(value: string): boolean {
  return value !== "" && !value.startsWith("switchyard.reasoning.") && value !== "skip_thought_signature_validator";
}

function unescaped(raw: string): string {
  if (!raw.includes("\\")) return raw;
  try {
    const value: unknown = JSON.parse(`"${raw}"`);
    return typeof value === "string" ? value : raw;
  } catch {
    return raw;
  }
}

function rememberAll(text: string, pattern: RegExp, book: ReasoningProvenance, connectionId: string): void {
  for (const match of text.matchAll(pattern)) {
    const value = unescaped(match[1] ?? "");
    if (isArtifact(value)) book.remember(blobMark(value), connectionId);
  }
}

/**
 * The tap for a client format's answers, or null when that format's answers carry none here
 * (chat completions; the Responses API's items are read off the finished response by its turn).
 * `answering` names the connection whose answer is being written.
 */
export function artifactTap(format: WireFormat, book: ReasoningProvenance, answering: () => string | null): ((text: string) => void) | null {
  if (format === "anthropic") {
    return (text) => {
      const signed = text.includes('"signature"');
      const redacted = text.includes('"redacted_thinking"');
      const connectionId = signed || redacted ? answering() : null;
      if (connectionId === null) return;
      if (signed) rememberAll(text, ANTHROPIC_SIGNED, book, connectionId);
      if (redacted) rememberAll(text, ANTHROPIC_REDACTED, book, connectionId);
    };
  }
  if (format === "gemini") {
    return (text) => {
      if (!text.includes('"thoughtSignature"')) return;
      const connectionId = answering();
      if (connectionId !== null) rememberAll(text, GEMINI_SIGNED, book, connectionId);
    };
  }
  return null;
}
