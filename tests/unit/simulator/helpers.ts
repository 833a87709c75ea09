import { request } from "undici";

export interface SseEvent {
  event: string | null;
  data: string;
  comment: boolean;
}

/** Splits an SSE body into events (comments kept as `comment: true`). */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    if (block.trim() === "") continue;
    let event: string | null = null;
    const data: string[] = [];
    let comment = false;
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith(":")) comment = true;
      else if (line.startsWith("event: ")) event = line.slice(7);
      else if (line.startsWith("data: ")) data.push(line.slice(6));
    }
    events.push({ event, data: data.join("\n"), comment });
  }
  return events;
}

export function jsonEvents(text: string): Record<string, any>[] {
  return parseSse(text)
    .filter((e) => !e.comment && e.data !== "[DONE]")
    .map((e) => JSON.parse(e.data) as Record<string, any>);
}

export async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await request(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text };
}

/**
 * Streams a POST and collects body text until the stream ends, errors, or `until`
 * (elapsed ms since the first byte) passes; then aborts. Records when each piece arrived.
 */
export async function collect(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  untilMs = 5_000,
): Promise<{ status: number; text: string; pieces: { at: number; text: string }[]; error: unknown; ended: boolean; started: number }> {
  const controller = new AbortController();
  const started = Date.now();
  const res = await request(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
    signal: controller.signal,
  });
  const pieces: { at: number; text: string }[] = [];
  let text = "";
  let error: unknown = null;
  let ended = false;
  const timer = setTimeout(() => controller.abort(), untilMs);
  try {
    for await (const chunk of res.body) {
      const piece = (chunk as Buffer).toString("utf8");
      text += piece;
      pieces.push({ at: Date.now() - started, text: piece });
    }
    ended = true;
  } catch (err) {
    error = err;
  } finally {
    clearTimeout(timer);
  }
  return { status: res.statusCode, text, pieces, error, ended: ended && !controller.signal.aborted, started };
}

export const OPENAI_TOOLS = [
  {
    type: "function",
    function: {
      name: "read_file",
      parameters: { type: "object", properties: { path: { type: "string" }, lines: { type: "number" } }, required: ["path", "lines"] },
    },
  },
];
