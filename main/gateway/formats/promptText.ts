// The prompt as the request log keeps it when prompt logging is on: "role: text" lines, read from
// the hub so every client format says it the same way. Images, files and tool definitions are
// left out: the log is for "why did it go there", not an archive.

import type { HubRequest } from "./hub.js";

/** A logged prompt is cut here. */
export const PROMPT_TEXT_MAX_CHARS = 16_000;

export function promptTextOfHub(hub: HubRequest): string {
  const lines: string[] = [];
  for (const message of hub.messages) {
    if (message.role === "system") {
      if (message.text) lines.push(`system: ${message.text}`);
      continue;
    }
    const text = message.parts
      .map((part) => (part.type === "text" ? part.text : ""))
      .filter(Boolean)
      .join("\n");
    if (text) lines.push(`${message.role}: ${text}`);
  }
  const all = lines.join("\n");
  return all.length > PROMPT_TEXT_MAX_CHARS ? `${all.slice(0, PROMPT_TEXT_MAX_CHARS)}…` : all;
}
