// R16.3: the Responses WebSocket transport (`GET /v1/responses` with `Upgrade: websocket`) is
// refused with 426 Upgrade Required (the client half's webSocketRefusal says where and what). Measured with Codex 0.171 (its provider set to try
// WebSockets): a 426 makes it fall back to SSE over HTTP at once (one GET, the POST ~0.4 s later),
// while 404, 401 or 5xx cost five reconnects (~8 s) and a 400 ends Codex with no request sent.
// Same events over SSE, so nothing is lost by refusing. Every other upgrade is a 404; a Host that
// is not ours gets the DNS-rebinding guard's 403 first.
import type { IncomingMessage } from "node:http";
import { randomUUID } from "node:crypto";
import type { Duplex } from "node:stream";
import { clientHalves, errorBody } from "../formats/index.js";

function answer(socket: Duplex, status: number, reason: string, body: Record<string, unknown>): void {
  const text = JSON.stringify(body);
  socket.end(
    [
      `HTTP/1.1 ${status} ${reason}`,
      "Content-Type: application/json",
      `Content-Length: ${Buffer.byteLength(text)}`,
      `X-Switchyard-Request-Id: ${randomUUID()}`,
      "X-Switchyard-Attempts: 0",
      "Connection: close",
      "",
      text,
    ].join("\r\n"),
  );
}

export function refuseUpgrade(acceptsHost: (host: string | undefined) => boolean): (req: IncomingMessage, socket: Duplex) => void {
  return (req, socket) => {
    socket.on("error", () => socket.destroy());
    if (!acceptsHost(req.headers.host)) {
      return answer(socket, 403, "Forbidden", errorBody("openai", 403, "forbidden_host", "Host header is not a loopback address; Switchyard only answers local requests"));
    }
    const path = (req.url ?? "").split("?")[0]?.replace(/\/$/, "").toLowerCase() ?? "";
    // R21.1: Codex on a ChatGPT plan asks at its base URL, the ChatGPT backend's path (a generation path of its half).
    const half = clientHalves().find((h) => h.webSocketRefusal !== null && h.generationPaths.includes(path));
    if (half?.webSocketRefusal) {
      return answer(socket, 426, "Upgrade Required", half.errorBody(426, "websocket_not_supported", `${half.webSocketRefusal}: POST ${path}`));
    }
    answer(socket, 404, "Not Found", errorBody("openai", 404, "not_found", `No WebSocket route ${req.url ?? ""}`));
  };
}
