// WebSocket upgrades (R26.1): `GET /v1/responses` and `GET /backend-api/codex/responses` with
// `Upgrade: websocket` become a Responses WebSocket (responsesSocket.ts), permessage-deflate on,
// after the same edges as the HTTP route: the DNS-rebinding guard's 403, the proxy switch's 503,
// and client keys (R1.7) with the login of the handshake's headers (R21.1) — a refused handshake
// is answered before the upgrade, in the format's error body. Every other upgrade is a 404.
import type { IncomingMessage } from "node:http";
import { randomUUID } from "node:crypto";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import { clientHalves, errorBody } from "../formats/index.js";
import { clientRefusal, KEY_REQUIRED, PROXY_OFF, type ClientGuardDeps } from "./clientRoutes.js";
import { RequestContext } from "../context/requestContext.js";
import { serveResponsesSocket, type ResponsesSocketDeps } from "./responsesSocket.js";

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

export interface UpgradeDeps extends ClientGuardDeps, Omit<ResponsesSocketDeps, "maxFrameBytes" | "idleMs"> {
  acceptsHost: (host: string | undefined) => boolean;
  /** R26.3: idle limit of a socket (default 15 minutes). */
  socketIdleMs?: number;
  /** R26.1: negotiate permessage-deflate (default off, see DEFLATE). */
  socketDeflate?: boolean;
}

/** The upgrade listener, and what closes the sockets it holds (the server's close). */
export interface UpgradeRoute {
  (req: IncomingMessage, socket: Duplex, head: Buffer): void;
  closeAll(): void;
}

/** A frame can never be larger than this, whatever maxBodyMb says (the live limit is checked per frame). */
const HARD_FRAME_LIMIT_BYTES = 512 * 1024 * 1024;
const DEFAULT_IDLE_MS = 15 * 60_000;
/**
 * R26.1, R26.5: permessage-deflate, when switched on, is negotiated with what Codex offers; what
 * Switchyard sends is then compressed only when it is large (responsesSocket.ts), at zlib's fastest
 * level. It is off by default: on loopback it only costs CPU. Measured with the bench's wsTurns case
 * (20-turn Codex-shaped conversations, the client offering deflate as Codex does): with it
 * negotiated a socket turn cost 1.4–1.6× an HTTP turn, without it 0.97–1.05× (ws's sends and reads
 * take a slower path once the extension is on, even for frames it does not compress).
 */
const DEFLATE = { zlibDeflateOptions: { level: 1 } } as const;

export function createUpgradeRoute(deps: UpgradeDeps): UpgradeRoute {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: deps.socketDeflate === true ? DEFLATE : false, maxPayload: HARD_FRAME_LIMIT_BYTES, clientTracking: true });
  const socketDeps: ResponsesSocketDeps = {
    ...deps,
    idleMs: deps.socketIdleMs ?? DEFAULT_IDLE_MS,
    maxFrameBytes: () => deps.appSettings().maxBodyMb * 1024 * 1024,
  };
  const route = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    if (!deps.acceptsHost(req.headers.host)) {
      return answer(socket, 403, "Forbidden", errorBody("openai", 403, "forbidden_host", "Host header is not a loopback address; Switchyard only answers local requests"));
    }
    const path = (req.url ?? "").split("?")[0]?.replace(/\/$/, "").toLowerCase() ?? "";
    // R21.1: Codex on a ChatGPT plan asks at its base URL, the ChatGPT backend's path (a generation path of its half).
    const half = clientHalves().find((h) => h.webSocketTurns && h.generationPaths.includes(path));
    if (!half) return answer(socket, 404, "Not Found", errorBody("openai", 404, "not_found", `No WebSocket route ${req.url ?? ""}`));
    // The handshake's edges, as the HTTP route's: what they learn (key, login) serves every turn.
    const edge = new RequestContext(randomUUID(), req);
    const refused = clientRefusal(half.format, deps, req, edge);
    if (refused === "proxy_disabled") return answer(socket, 503, "Service Unavailable", half.errorBody(503, "proxy_disabled", PROXY_OFF));
    if (refused === "unauthorized") return answer(socket, 401, "Unauthorized", half.errorBody(401, "unauthorized", KEY_REQUIRED));
    wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      serveResponsesSocket(socketDeps, ws, req, { clientKey: edge.clientKey, allowed: edge.allowed, login: edge.login });
    });
  };
  return Object.assign(route, {
    closeAll: () => {
      for (const ws of wss.clients) ws.close(1001, "Switchyard is shutting down");
      wss.close();
    },
  });
}
