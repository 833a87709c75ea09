// Defensive readers for untrusted JSON: translation must never throw on a malformed body.

import { isRecord } from "../../../shared/records.js";

export { isRecord };
export type JsonObject = Record<string, unknown>;

/** Length of a JSON array field; anything else counts as empty. */
export function arrayLength(value: unknown): number {
  return Array.isArray(value) ? value.length : 0;
}

export function asRecord(value: unknown): JsonObject | undefined {
  return isRecord(value) ? value : undefined;
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function asString(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

export function asNumber(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Tool arguments travel as a JSON string in the hub (OpenAI style) but as an object in
 * Anthropic and Gemini. A truncated or non-object string is kept under `_raw` so that the
 * model's output is not silently lost.
 */
export function argumentsToObject(args: string): JsonObject {
  if (args.trim() === "") return {};
  const parsed = parseJson(args);
  return isRecord(parsed) ? parsed : { _raw: args };
}

/** Ordered, de-duplicated names of request fields that could not be mapped. */
export class DroppedFields {
  private readonly names = new Set<string>();

  add(name: string): void {
    this.names.add(name);
  }

  list(): string[] {
    return [...this.names];
  }
}

/** `data:image/png;base64,AAAA` → parts; anything else → undefined. */
export function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const match = /^data:([^;,]+)(?:;[^;,]+)*;base64,(.*)$/s.exec(url);
  if (!match) return undefined;
  return { mediaType: match[1] ?? "application/octet-stream", data: match[2] ?? "" };
}

export function toDataUrl(mediaType: string, data: string): string {
  return `data:${mediaType};base64,${data}`;
}
