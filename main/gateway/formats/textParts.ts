// The text of a message's content as clients write it: a string, or a list of parts or blocks
// each with a `text` (shared by the formats' traffic-signal readers, R20.3).
import { isRecord } from "../../../shared/records.js";

/** How many system blocks or content parts are looked at, from the start or the end. */
export const SIGNAL_PARTS = 4;

export function partText(part: unknown): string {
  if (typeof part === "string") return part;
  return isRecord(part) && typeof part["text"] === "string" ? part["text"] : "";
}

/** The first text of a content (a string, or parts/blocks), or the last when `fromEnd`. */
export function contentText(content: unknown, fromEnd: boolean): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  for (let i = 0; i < content.length && i < SIGNAL_PARTS; i++) {
    const text = partText(content[fromEnd ? content.length - 1 - i : i]);
    if (text !== "") return text;
  }
  return "";
}

/** The text of the last message of a list when a user wrote it ("" otherwise). */
export function lastUserText(list: unknown): string {
  if (typeof list === "string") return list;
  const last: unknown = Array.isArray(list) ? list[list.length - 1] : undefined;
  if (!isRecord(last) || last["role"] !== "user") return "";
  return contentText(last["content"] ?? last["parts"], true);
}

/** The text of the first message of a list when it is a system (or developer) message. */
export function leadingSystemText(list: unknown): string {
  const first: unknown = Array.isArray(list) ? list[0] : undefined;
  return isRecord(first) && (first["role"] === "system" || first["role"] === "developer") ? contentText(first["content"], false) : "";
}
