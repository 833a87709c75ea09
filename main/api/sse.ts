// GET /api/events: the live event stream for the dashboard (R15.2). One SSE message per bus
// event; a comment line every 15 s keeps proxies and idle timeouts from closing the stream.
import type { Request, RequestHandler, Response } from "express";
import type { EventBus } from "./handlerTypes.js";

export const SSE_HEARTBEAT_MS = 15_000;

export function sseEventsHandler(bus: EventBus, heartbeatMs = SSE_HEARTBEAT_MS): RequestHandler {
  return (req: Request, res: Response) => {
    res.status(200);
    res.setHeader("Content-Type", "text/event-stream; charset=utf-8");
    res.setHeader("Cache-Control", "no-cache, no-transform");
    res.setHeader("Connection", "keep-alive");
    res.setHeader("X-Accel-Buffering", "no");
    res.flushHeaders();
    res.write(": connected\n\n");

    const open = () => !res.writableEnded && !res.destroyed;
    const unsubscribe = bus.subscribe((event) => {
      if (open()) res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    });
    const heartbeat = setInterval(() => {
      if (open()) res.write(": heartbeat\n\n");
    }, heartbeatMs);
    // The stream must never keep the process alive on shutdown.
    heartbeat.unref();

    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      unsubscribe();
    };
    req.on("close", close);
    res.on("close", close);
  };
}
