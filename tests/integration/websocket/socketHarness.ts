// A Responses WebSocket client for the tests (R26): the `ws` package, as Codex's transport speaks
// it: `response.create` frames out, one JSON event per text frame back.
import WebSocket from "ws";

export type Json = Record<string, any>;

export interface OpenSocket {
  ws: WebSocket;
  /** Every frame the server sent, parsed, in order. */
  frames: Json[];
  /** The handshake's status and headers (101 and the negotiated extensions). */
  status: number;
  extensions: string;
  /** Sends a frame and resolves with the frames up to the turn's end (completed, incomplete, failed, or an error frame). */
  turn(frame: Json | string, timeoutMs?: number): Promise<Json[]>;
  /** Resolves with the close code and reason. */
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

const ENDS = new Set(["response.completed", "response.incomplete", "response.failed", "error"]);

/** Opens `path` on the gateway as a WebSocket; rejects with the status of a refused handshake. */
export function openSocket(baseUrl: string, path = "/v1/responses", headers: Record<string, string> = {}): Promise<OpenSocket> {
  const ws = new WebSocket(baseUrl.replace(/^http/, "ws") + path, { headers: { "openai-beta": "responses_websockets=2026-02-06", ...headers }, perMessageDeflate: true });
  const frames: Json[] = [];
  const waiters: Array<() => void> = [];
  ws.on("message", (data, isBinary) => {
    frames.push(isBinary ? { binary: true } : (JSON.parse((data as Buffer).toString("utf8")) as Json));
    for (const w of waiters.splice(0)) w();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on("close", (code, reason) => resolve({ code, reason: String(reason) })));
  return new Promise((resolve, reject) => {
    let status = 0;
    ws.on("upgrade", (res) => (status = res.statusCode ?? 0));
    ws.on("unexpected-response", (_req, res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => reject(Object.assign(new Error(`handshake answered ${res.statusCode}`), { status: res.statusCode, body })));
    });
    ws.on("error", (err) => reject(err));
    ws.on("open", () => {
      resolve({
        ws,
        frames,
        status,
        extensions: ws.extensions,
        closed,
        close: () => ws.close(),
        turn(frame, timeoutMs = 10_000) {
          const from = frames.length;
          ws.send(typeof frame === "string" ? frame : JSON.stringify(frame));
          return new Promise((done, fail) => {
            const timer = setTimeout(() => fail(new Error(`turn did not end: ${JSON.stringify(frames.slice(from))}`)), timeoutMs);
            const check = () => {
              const got = frames.slice(from);
              if (got.some((f) => ENDS.has(f.type))) {
                clearTimeout(timer);
                return done(got);
              }
              waiters.push(check);
            };
            check();
          });
        },
      });
    });
  });
}

/** The response object of a turn's final event. */
export function finalResponse(frames: Json[]): Json {
  const last = frames.find((f) => f.type === "response.completed" || f.type === "response.incomplete" || f.type === "response.failed");
  if (!last) throw new Error(`no final event in ${JSON.stringify(frames)}`);
  return last.response as Json;
}

/** The text of a turn's output messages. */
export function outputText(frames: Json[]): string {
  const output = (finalResponse(frames).output ?? []) as Json[];
  return output
    .filter((i) => i.type === "message")
    .flatMap((i) => (i.content as Json[]).map((c) => c.text ?? ""))
    .join("");
}

export const userMessage = (text: string): Json => ({ type: "message", role: "user", content: [{ type: "input_text", text }] });
