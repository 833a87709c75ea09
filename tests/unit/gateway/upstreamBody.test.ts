// The upstream client's own body (issue 12: undici's dispatch API instead of request() and its
// Readable): what the gateway reads of an answer, over a real loopback upstream: chunks in order
// through backpressure, the text with its limit, an early exit that stops the upstream request,
// destroy, and the moment the call's cancellation is let go.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createUpstreamClient, type UpstreamClient } from "../../../main/gateway/upstream/client.js";
import { Cancellation } from "../../../main/gateway/upstream/cancellation.js";
import { listen } from "./fixtures.js";

let behave: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end("{}");
let upstream: Awaited<ReturnType<typeof listen>>;
let client: UpstreamClient;
const held: ServerResponse[] = [];

beforeAll(async () => {
  upstream = await listen((req, res) => behave(req, res));
  client = createUpstreamClient();
});
afterEach(() => {
  for (const res of held.splice(0)) res.destroy();
});
afterAll(async () => {
  await client.close();
  await upstream.close();
});

const send = (signal = new Cancellation()) =>
  client.send({ url: `${upstream.url}/v1/chat/completions?x=1`, headers: { "content-type": "application/json" }, body: "{}", signal, idleTimeoutMs: 5_000 });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("upstream body (issue 12)", () => {
  it("answers the status and headers as request() parsed them, and the path with its query", async () => {
    let seen = "";
    behave = (req, res) => {
      seen = req.url ?? "";
      res.setHeader("x-ratelimit-remaining-requests", "7");
      res.setHeader("set-cookie", ["a=1", "b=2"]);
      res.writeHead(201, { "content-type": "application/json" });
      res.end('{"ok":true}');
    };
    const res = await send();
    expect(seen).toBe("/v1/chat/completions?x=1");
    expect(res.status).toBe(201);
    expect(res.headers["x-ratelimit-remaining-requests"]).toBe("7");
    expect(res.headers["set-cookie"]).toEqual(["a=1", "b=2"]);
    expect(await res.body.text(1024)).toBe('{"ok":true}');
  });

  it("a slow reader gets every byte in order: the socket is paused past 64 KB and resumed", async () => {
    const chunk = (i: number) => `data: ${String(i).padStart(6, "0")} ${"x".repeat(4_000)}\n\n`;
    behave = (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (let i = 0; i < 200; i++) res.write(chunk(i));
      res.end();
    };
    const res = await send();
    let text = "";
    let reads = 0;
    for await (const part of res.body) {
      text += part.toString("utf8");
      if (++reads % 10 === 0) await sleep(5);
    }
    expect(text).toBe(Array.from({ length: 200 }, (_, i) => chunk(i)).join(""));
  });

  it("text(limit) keeps the first limit bytes and still reads the body to its end", async () => {
    behave = (_req, res) => {
      res.writeHead(400, { "content-type": "application/json" });
      res.write("0123456789");
      setTimeout(() => res.end("abcdefghij"), 20);
    };
    const res = await send();
    let closed = false;
    res.body.onClose(() => (closed = true));
    expect(await res.body.text(12)).toBe("0123456789ab");
    expect(closed).toBe(true);
  });

  it("leaving the loop early stops the upstream request", async () => {
    let upstreamClosed!: () => void;
    const gone = new Promise<void>((r) => (upstreamClosed = r));
    behave = (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const tick = setInterval(() => res.write("data: {}\n\n"), 10);
      res.on("close", () => {
        clearInterval(tick);
        upstreamClosed();
      });
    };
    const res = await send();
    for await (const _part of res.body) break;
    await expect(Promise.race([gone.then(() => "closed"), sleep(2_000).then(() => "still open")])).resolves.toBe("closed");
  });

  it("destroy(reason) rejects the reader with the reason; destroy() without one is a premature close", async () => {
    behave = (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: {}\n\n");
      held.push(res);
    };
    const first = await send();
    setTimeout(() => first.body.destroy(new Error("stream_content_stall")), 20);
    await expect(first.body.text(1024)).rejects.toThrow("stream_content_stall");
    const second = await send();
    second.body.destroy();
    await expect(second.body.read()).rejects.toMatchObject({ code: "ERR_STREAM_PREMATURE_CLOSE" });
  });

  it("the caller's signal stops the call before and after the headers, with its reason as the error", async () => {
    behave = (_req, res) => void held.push(res);
    const before = new Cancellation();
    const pending = send(before);
    setTimeout(() => before.abort(new Error("client left")), 20);
    await expect(pending).rejects.toThrow("client left");
    expect(before.listenerCount).toBe(0);

    behave = (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: {}\n\n");
      held.push(res);
    };
    const after = new Cancellation();
    const res = await send(after);
    setTimeout(() => after.abort(new Error("deadline")), 20);
    await expect(res.body.text(1024)).rejects.toThrow("deadline");
    expect(after.listenerCount).toBe(0);
  });

  it("a finished body is closed at once for a listener that comes late, and its signal listener is gone", async () => {
    behave = (_req, res) => res.end("{}");
    const signal = new Cancellation();
    const res = await send(signal);
    await sleep(20);
    let closed = 0;
    res.body.onClose(() => closed++);
    expect(closed).toBe(1);
    expect(signal.listenerCount).toBe(0);
    expect(await res.body.text(10)).toBe("{}");
  });
});
