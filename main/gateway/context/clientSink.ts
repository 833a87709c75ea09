// Where a client's answer is written (ClientResponse, clientResponse.ts, owns what is written).
import type { OutgoingHttpHeaders } from "node:http";

/**
 * Where a client's answer goes: node's ServerResponse for HTTP, or one turn of a Responses
 * WebSocket (R26.1, http/socketTurn.ts), which turns the same status, headers and SSE text into frames.
 */
export interface ClientSink {
  readonly headersSent: boolean;
  readonly writableEnded: boolean;
  readonly writableFinished: boolean;
  writeHead(status: number, headers: OutgoingHttpHeaders | string[]): unknown;
  write(text: string): boolean;
  end(text?: string): unknown;
  on(event: "close" | "drain", listener: () => void): unknown;
  off(event: "close" | "drain", listener: () => void): unknown;
}
