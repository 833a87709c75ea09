// R20.1: the account-bound reasoning of Gemini — a part's thoughtSignature. Read off the text a
// client receives; in a request bound for an account that did not issue it, the part stays and
// loses its signature, and a functionCall part gets Google's documented bypass value instead,
// since Gemini 3 refuses a function call without one.
import { isRecord } from "../../../../shared/records.js";
import { isSwitchyardMarker, JSON_STRING, stringValues, type IssuedHere, type Stripped } from "../reasoningArtifacts.js";
import { SKIP_THOUGHT_SIGNATURE } from "./request-out.js";

const SIGNED = new RegExp(String.raw`"thoughtSignature"\s*:\s*${JSON_STRING}`, "g");
const isArtifact = (value: string) => value !== "" && value !== SKIP_THOUGHT_SIGNATURE && !isSwitchyardMarker(value);

export function geminiArtifacts(text: string): string[] {
  const found: string[] = [];
  if (text.includes('"thoughtSignature"')) stringValues(text, SIGNED, isArtifact, found);
  return found;
}

export function geminiForeignStripped(body: Record<string, unknown>, issued: IssuedHere): Stripped | null {
  const contents = body["contents"];
  if (!Array.isArray(contents)) return null;
  const foreign = (part: unknown) =>
    isRecord(part) && typeof part["thoughtSignature"] === "string" && isArtifact(part["thoughtSignature"]) && !issued(part["thoughtSignature"], "blob");
  let plain = 0;
  const kept = contents.map((content) => {
    if (!isRecord(content) || !Array.isArray(content["parts"]) || !content["parts"].some(foreign)) return content;
    const parts = content["parts"].map((part) => {
      if (!foreign(part) || !isRecord(part)) return part;
      plain++;
      const { thoughtSignature: _foreign, ...rest } = part;
      return "functionCall" in part ? { ...rest, thoughtSignature: SKIP_THOUGHT_SIGNATURE } : rest;
    });
    return { ...content, parts };
  });
  return plain === 0 ? null : { body: { ...body, contents: kept }, removed: 0, plain };
}
