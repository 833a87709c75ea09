// R26.1 in the simulated day: a Codex turn sent over the Responses WebSocket, seen as the HTTP
// answer it stands for, so every request invariant holds for it unchanged. A refused handshake is
// its HTTP answer; an error frame is the error answer (its `status_code`, `headers` and `error`);
// a turn's frames, one event each, are the SSE stream they were. The turn's request id, which no
// frame of a success carries, is its log row's: the newest WebSocket row once the turn ended.
import WebSocket from "ws";
import type { HttpRequest } from "./clients.js";

type Json = Record<string, any>;
export interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

const ENDS = new Set(["response.completed", "response.incomplete", "response.failed", "error"]);

function frames(http: HttpRequest, timeoutMs: number): Promise<Answer | Json[]> {
  const { "content-type": _type, ...headers } = http.headers;
  const body = JSON.parse(http.body) as Json;
  const { stream: _stream, ...rest } = body;
  return new Promise((resolve) => {
    const got: Json[] = [];
    const ws = new WebSocket(http.url.replace(/^http/, "ws"), { headers });
    const timer = setTimeout(() => finish({ status: 0, headers: new Headers(), text: "no end of the turn on the socket" }), timeoutMs);
    const finish = (value: Answer | Json[]) => {
      clearTimeout(timer);
      ws.removeAllListeners("close");
      ws.terminate();
      resolve(value);
    };
    ws.on("unexpected-response", (_req, res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString("utf8")));
      res.on("end", () => finish({ status: res.statusCode ?? 0, headers: new Headers(res.headers as Record<string, string>), text }));
    });
    ws.on("error", (err) => finish({ status: 0, headers: new Headers(), text: err.message }));
    ws.on("close", (code) => finish({ status: 0, headers: new Headers(), text: `socket closed (${code}) before the turn ended` }));
    ws.on("open", () => ws.send(JSON.stringify({ type: "response.create", ...rest })));
    ws.on("message", (data) => {
      const frame = JSON.parse((data as Buffer).toString("utf8")) as Json;
      got.push(frame);
      if (ENDS.has(String(frame.type))) finish(got);
    });
  });
}

/** One turn over a fresh socket; `newestSocketRow` names the row of a turn that succeeded. */
export async function sendOverSocket(http: HttpRequest, newestSocketRow: () => Promise<string | null>, timeoutMs: number): Promise<Answer> {
  const out = await frames(http, timeoutMs);
  if (!Array.isArray(out)) return out;
  const last = out[out.length - 1];
  if (last.type === "error") {
    return { status: Number(last.status_code), headers: new Headers(last.headers as Record<string, string>), text: JSON.stringify({ error: last.error }) };
  }
  const id = await newestSocketRow();
  const text = out.map((f) => `event: ${String(f.type)}\ndata: ${JSON.stringify(f)}\n\n`).join("");
  return { status: 200, headers: new Headers({ "content-type": "text/event-stream", ...(id ? { "x-switchyard-request-id": id } : {}) }), text };
}
