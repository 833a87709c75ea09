// Upstream HTTP with undici's request API over one keep-alive Agent (DESIGN.md: not fetch()).
import { Agent, request, type Dispatcher } from "undici";
import type { UpstreamSignal } from "./call.js";

export interface UpstreamRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  signal: UpstreamSignal;
  /** Time allowed until response headers arrive. */
  headersTimeoutMs: number;
  /** Time allowed between body chunks (the stream watchdogs are stricter and run above this). */
  bodyTimeoutMs: number;
  /** R12.5: bind the socket to this local address (the connection's egress IP). */
  localAddress?: string | null;
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData["body"];
}

export interface UpstreamClient {
  send(req: UpstreamRequest): Promise<UpstreamResponse>;
  close(): Promise<void>;
}

export function createUpstreamClient(): UpstreamClient {
  const options = { keepAliveTimeout: 30_000, keepAliveMaxTimeout: 300_000, connections: 128, pipelining: 1 };
  const agent = new Agent(options);
  // One pool per bound address: a keep-alive socket must never carry a request for another egress IP.
  const bound = new Map<string, Agent>();
  const dispatcherFor = (localAddress: string | null | undefined): Agent => {
    if (!localAddress) return agent;
    let pool = bound.get(localAddress);
    if (!pool) {
      pool = new Agent({ ...options, localAddress });
      bound.set(localAddress, pool);
    }
    return pool;
  };
  return {
    async send(req) {
      const res = await request(req.url, {
        method: "POST",
        headers: req.headers,
        body: req.body,
        signal: req.signal,
        dispatcher: dispatcherFor(req.localAddress),
        headersTimeout: req.headersTimeoutMs,
        bodyTimeout: req.bodyTimeoutMs,
      });
      return { status: res.statusCode, headers: res.headers, body: res.body };
    },
    close: async () => {
      await Promise.all([agent, ...bound.values()].map((a) => a.close()));
    },
  };
}

/**
 * Reads at most `limit` bytes of a body as text, then discards the rest. Listeners rather than an
 * async iterator: the iterator's machinery cost more than the read on the hot path (issue 12).
 */
export function readBodyText(body: UpstreamResponse["body"], limit = 64 * 1024): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    body.on("data", (chunk: Buffer) => {
      if (size < limit) parts.push(chunk.length > limit - size ? chunk.subarray(0, limit - size) : chunk);
      size += chunk.length;
    });
    body.once("end", () => resolve(parts.length === 1 ? parts[0].toString("utf8") : Buffer.concat(parts).toString("utf8")));
    body.once("error", reject);
    // A body destroyed without an error (a watchdog's abort before any data) must not hang the reader.
    body.once("close", () => {
      if (!body.readableEnded) reject(body.errored ?? Object.assign(new Error("Premature close"), { code: "ERR_STREAM_PREMATURE_CLOSE" }));
    });
  });
}

/** Normalises a transport failure into a stable code the classifier knows. */
export function transportErrorCode(err: unknown): string {
  const e = err as { code?: string; name?: string; cause?: { code?: string } };
  return e?.code ?? e?.cause?.code ?? e?.name ?? "TRANSPORT_ERROR";
}
