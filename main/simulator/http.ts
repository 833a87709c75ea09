import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";

/** A request's whole body as text; rejects when the client leaves before it ends. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let done = false;
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      done = true;
      resolve(chunks.length === 1 ? chunks[0].toString("utf8") : Buffer.concat(chunks).toString("utf8"));
    });
    req.on("error", reject);
    req.on("close", () => {
      if (!done) reject(new Error("client closed the request before its body ended"));
    });
  });
}

/** A whole JSON (or text) answer with its length. */
export function sendJson(res: ServerResponse, status: number, payload: unknown, headers: OutgoingHttpHeaders = {}): void {
  const text = typeof payload === "string" ? payload : JSON.stringify(payload);
  headers["content-type"] ??= "application/json";
  headers["content-length"] = Buffer.byteLength(text);
  res.writeHead(status, headers);
  res.end(text);
}
