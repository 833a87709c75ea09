// SSE frame text. Multi-line data is split over several `data:` lines, which is how an
// SSE parser joins it back.

import type { FrameKind, OutFrame } from "./types.js";
import type { JsonObject } from "./values.js";

export function sseFrame(data: string, event?: string): string {
  const head = event === undefined ? "" : `event: ${event}\n`;
  // Nearly every frame is single-line JSON: skip the split/map/join for it.
  if (!data.includes("\n")) return `${head}data: ${data}\n\n`;
  const body = data
    .split("\n")
    .map((line) => `data: ${line}`)
    .join("\n");
  return `${head}${body}\n\n`;
}

export function sseJson(value: unknown, event?: string): string {
  return sseFrame(JSON.stringify(value), event);
}

/** An encoder's frame: its data serialised, and the data itself for the taps (OutFrame.data). */
export function dataFrame(data: JsonObject, kind: FrameKind, event?: string): OutFrame {
  return { text: sseJson(data, event), kind, data };
}
