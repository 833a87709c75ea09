// A JSON answer written with node's own response API, as express's res.status().json() writes it
// (status, `application/json; charset=utf-8`, length, body). The refusals of the edge handlers use
// it, so those handlers also run on the plain node request of the generation routes, which skip
// express's per-request prototypes (issue 12).
import type { ServerResponse } from "node:http";

export function sendPlainJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(text));
  res.end(text);
}
