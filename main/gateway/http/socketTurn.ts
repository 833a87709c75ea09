// One turn of a Responses WebSocket (R26.1, R26.3) as the pipeline's client sink: the status,
// headers and SSE text the pipeline writes for an HTTP client become frames. Each SSE event is one
// text frame carrying its data; keep-alive events go out as they are but commit nothing, so an
// error decided before the first content is an error frame `{type: "error", status_code, error,
// headers}` with the headers the HTTP answer would have carried (retry-after, x-codex-*), never
// a failed stream. The socket leaving mid-turn is the turn's "close": the pipeline cancels its
// upstream attempt as it does for an HTTP client that hangs up.
import type { OutgoingHttpHeaders } from "node:http";
import type { ClientSink } from "../context/clientSink.js";

/** What the turn writes to: the socket's send, and how much it holds unsent. */
export interface TurnSocket {
  send(text: string, done?: () => void): void;
  readonly bufferedAmount: number;
}

/** Above this many unsent bytes a write asks the pipeline to wait for "drain". */
const HIGH_WATER_BYTES = 1 << 20;
const FINAL_TYPES = ["response.completed", "response.incomplete", "response.failed"];
/** Whether an event's data is the turn's final event: its type is read near either end (no scan of the whole data). */
function isFinal(data: string): boolean {
  const head = data.length > 96 ? data.slice(0, 48) + data.slice(-48) : data;
  return head.includes('"response.') && FINAL_TYPES.some((type) => head.includes(`"type":"${type}"`));
}

/** Keep-alive events (responses/keepalive.ts) and SSE comments: liveness, not content. */
const KEEPALIVE_EVENT = /^\s*(?:event: keepalive\n|data: \{"type":"keepalive")/;

/** The data of each whole SSE event in `text`; what follows the last blank line stays in `carry`. */
function sseData(text: string, out: string[]): string {
  if (text.includes("\r")) text = text.replace(/\r\n?/g, "\n");
  let from = 0;
  for (let end = text.indexOf("\n\n"); end !== -1; end = text.indexOf("\n\n", from)) {
    const data = eventData(text.slice(from, end));
    if (data !== null) out.push(data);
    from = end + 2;
  }
  return text.slice(from);
}

/** The joined `data:` lines of one event, or null (a comment, or no data). */
function eventData(event: string): string | null {
  let data: string | null = null;
  for (const line of event.split("\n")) {
    if (!line.startsWith("data:")) continue;
    const value = line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5);
    data = data === null ? value : `${data}\n${value}`;
  }
  return data;
}

/** writeHead's headers, lower-cased, each value one string (what an error frame's `headers` carries). */
function headerMap(headers: OutgoingHttpHeaders | string[]): Record<string, string> {
  const out: Record<string, string> = {};
  const put = (name: string, value: string | number | readonly string[] | undefined) => {
    if (value === undefined) return;
    const key = name.toLowerCase();
    const text = typeof value === "object" ? value.join(", ") : String(value);
    out[key] = key in out ? `${out[key]}, ${text}` : text;
  };
  if (Array.isArray(headers)) for (let i = 0; i + 1 < headers.length; i += 2) put(headers[i], headers[i + 1]);
  else for (const name of Object.keys(headers)) put(name, headers[name]);
  return out;
}

/** R26.3: an error answer as the socket's error frame. */
export function errorFrameText(status: number, body: unknown, headers: Record<string, string>): string {
  const error = typeof body === "object" && body !== null && "error" in body ? body.error : body;
  delete headers["content-length"];
  delete headers["content-type"];
  return JSON.stringify({ type: "error", status_code: status, error, headers });
}

function parseOr(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return { message: text };
  }
}

export class SocketTurn implements ClientSink {
  private status = 200;
  private headers: OutgoingHttpHeaders | string[] = {};
  private committed = false;
  private ended = false;
  private carry = "";
  private readonly listeners = { close: new Set<() => void>(), drain: new Set<() => void>() };
  /** The data of the turn's final event (response.completed / .incomplete / .failed), when one went out. */
  finalEvent: string | null = null;
  private readonly done: Promise<void>;
  private resolveDone!: () => void;

  constructor(private readonly socket: TurnSocket) {
    this.done = new Promise<void>((resolve) => (this.resolveDone = resolve));
  }

  /** Resolves once the turn's answer ended (or the socket left). */
  get finished(): Promise<void> {
    return this.done;
  }

  get headersSent(): boolean {
    return this.committed;
  }

  get writableEnded(): boolean {
    return this.ended;
  }

  get writableFinished(): boolean {
    return this.ended;
  }

  writeHead(status: number, headers: OutgoingHttpHeaders | string[]): this {
    this.status = status;
    this.headers = headers;
    return this;
  }

  write(text: string): boolean {
    if (this.ended) return true;
    if (!this.committed && !KEEPALIVE_EVENT.test(text) && !text.startsWith(":")) this.committed = true;
    this.sendEvents(text);
    return this.socket.bufferedAmount < HIGH_WATER_BYTES;
  }

  end(text?: string): this {
    if (this.ended) return this;
    if (this.status >= 400 && !this.committed) this.send(errorFrameText(this.status, parseOr(text ?? ""), headerMap(this.headers)));
    else if (text) this.sendEvents(text.endsWith("\n\n") ? text : `${text}\n\n`);
    this.ended = true;
    this.resolveDone();
    return this;
  }

  on(event: "close" | "drain", listener: () => void): this {
    this.listeners[event].add(listener);
    return this;
  }

  off(event: "close" | "drain", listener: () => void): this {
    this.listeners[event].delete(listener);
    return this;
  }

  /** The socket closed: an unfinished turn is left (its upstream attempt is cancelled). */
  socketClosed(): void {
    for (const listener of [...this.listeners.close]) listener();
    this.ended = true;
    this.resolveDone();
  }

  private sendEvents(text: string): void {
    const events: string[] = [];
    this.carry = sseData(this.carry + text, events);
    for (const [i, data] of events.entries()) {
      if (isFinal(data)) this.finalEvent = data;
      this.send(data, i === events.length - 1);
    }
  }

  /** Sends one frame; the last of a write asks to hear when it left only when the socket is already full (then "drain" follows). */
  private send(text: string, last = true): void {
    const full = last && this.socket.bufferedAmount + text.length >= HIGH_WATER_BYTES;
    this.socket.send(text, full ? this.sent : undefined);
  }

  private readonly sent = (): void => {
    if (this.listeners.drain.size > 0 && this.socket.bufferedAmount < HIGH_WATER_BYTES) for (const listener of [...this.listeners.drain]) listener();
  };
}
