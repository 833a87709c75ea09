// The one upstream-call module: composed cancellation (client abort, attempt deadline, a local
// abort) over a real loopback upstream, and the error-body redaction.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { IncomingMessage, ServerResponse } from "node:http";
import { errors } from "undici";
import { UpstreamCallError } from "../../../main/gateway/upstream/call.js";
import { transportFailureOf } from "../../../main/gateway/upstream/client.js";
import { listen, provider, upstreamCaller } from "./fixtures.js";

let behave: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end("{}");
let upstream: Awaited<ReturnType<typeof listen>>;
const held: ServerResponse[] = [];

beforeAll(async () => {
  upstream = await listen((req, res) => behave(req, res));
});
afterEach(() => {
  for (const res of held.splice(0)) res.destroy();
});
afterAll(async () => upstream.close());

const request = (over: Record<string, unknown> = {}) => ({
  provider: provider({ baseUrl: upstream.url + "/v1/" }),
  upstreamFormat: "openai" as const,
  clientFormat: "openai" as const,
  secret: "sk-secret-123",
  clientHeaders: {},
  path: "/chat/completions",
  body: { model: "m" },
  ...over,
});

async function rejection(p: Promise<unknown>): Promise<UpstreamCallError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UpstreamCallError);
  return err as UpstreamCallError;
}

describe("upstream call", () => {
  it("joins the base URL and path, sends the translated body and reads the answer", async () => {
    let seen = "";
    behave = (req, res) => {
      seen = req.url ?? "";
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => res.end(body));
    };
    const call = await upstreamCaller().callUpstream(request());
    expect(seen).toBe("/v1/chat/completions");
    expect(JSON.parse(await call.bodyText(1024))).toEqual({ model: "m" });
  });

  it("R13.6 the attempt deadline before the headers is an ETIMEDOUT failure", async () => {
    behave = (_req, res) => void held.push(res);
    const { callUpstream } = upstreamCaller({ attemptDeadlineMs: 150 });
    const err = await rejection(callUpstream(request()));
    expect(err.code).toBe("ETIMEDOUT");
    expect(err.timedOut).toBe(true);
  });

  it("R13.6 the same deadline covers a body that never ends", async () => {
    behave = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"partial":');
      held.push(res);
    };
    const call = await upstreamCaller({ attemptDeadlineMs: 200 }).callUpstream(request());
    const err = await rejection(call.bodyText(1024));
    expect(err.code).toBe("ETIMEDOUT");
    expect(call.timedOut()).toBe(true);
  });

  it("a client abort cancels the call without being mistaken for the deadline", async () => {
    behave = (_req, res) => void held.push(res);
    const client = new AbortController();
    setTimeout(() => client.abort(), 50);
    const started = Date.now();
    const err = await rejection(upstreamCaller({ attemptDeadlineMs: 5_000 }).callUpstream(request({ signal: client.signal })));
    expect(err.timedOut).toBe(false);
    expect(err.code).not.toBe("ETIMEDOUT");
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("abort() (a stream watchdog) ends the body read, not as a timeout", async () => {
    behave = (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: {}\n\n");
      held.push(res);
    };
    const call = await upstreamCaller().callUpstream(request());
    setTimeout(() => call.abort("stream_content_stall"), 50);
    const err = await rejection(call.bodyText(1024));
    expect(err.timedOut).toBe(false);
    expect(err.code).not.toBe("ETIMEDOUT");
  });

  it("an auxiliary ceiling is shorter than the attempt deadline", async () => {
    behave = (_req, res) => void held.push(res);
    const err = await rejection(upstreamCaller({ attemptDeadlineMs: 600_000 }).callUpstream(request({ ceilingMs: 100 })));
    expect(err.code).toBe("ETIMEDOUT");
  });

  it("a refused connection is a transport failure with its code", async () => {
    const gone = await listen((_req, res) => res.end());
    const url = gone.url;
    await gone.close();
    const err = await rejection(upstreamCaller().callUpstream(request({ provider: provider({ baseUrl: url }) })));
    expect(err.code).toBe("ECONNREFUSED");
    expect(err.failure).toEqual({ kind: "transport", cause: "refused", code: "ECONNREFUSED" });
  });

  it("R12.1 an undici or Node error is named once, where it is caught: its cause for the classifier, its raw code for the logs", () => {
    expect(transportFailureOf(new errors.HeadersTimeoutError())).toEqual({ kind: "transport", cause: "timeout", code: "UND_ERR_HEADERS_TIMEOUT" });
    expect(transportFailureOf(new errors.BodyTimeoutError())).toMatchObject({ cause: "timeout" });
    expect(transportFailureOf(new errors.ConnectTimeoutError())).toMatchObject({ cause: "timeout" });
    expect(transportFailureOf(new errors.SocketError("other side closed"))).toEqual({ kind: "transport", cause: "reset", code: "UND_ERR_SOCKET" });
    expect(transportFailureOf(new errors.RequestAbortedError())).toMatchObject({ cause: "aborted", code: "UND_ERR_ABORTED" });
    expect(transportFailureOf(Object.assign(new Error("getaddrinfo ENOTFOUND x"), { code: "ENOTFOUND" }))).toMatchObject({ cause: "dns" });
    expect(transportFailureOf(Object.assign(new Error("self-signed"), { code: "DEPTH_ZERO_SELF_SIGNED_CERT" }))).toMatchObject({ cause: "tls" });
    expect(transportFailureOf(new TypeError("fetch failed", { cause: Object.assign(new Error("x"), { code: "ECONNRESET" }) }))).toMatchObject({
      cause: "reset",
      code: "ECONNRESET",
    });
    // A DOMException's code is a number (20): its name is what names it.
    expect(transportFailureOf(new DOMException("aborted", "AbortError"))).toEqual({ kind: "transport", cause: "aborted", code: "AbortError" });
    expect(transportFailureOf(new Error("odd"))).toEqual({ kind: "transport", cause: "other", code: "Error" });
    expect(transportFailureOf(undefined)).toEqual({ kind: "transport", cause: "other", code: "TRANSPORT_ERROR" });
  });

  it("an error body never carries the connection's secret back", async () => {
    behave = (_req, res) => {
      res.writeHead(401, { "content-type": "application/json" });
      res.end('{"error":{"message":"invalid key sk-secret-123"}}');
    };
    const call = await upstreamCaller().callUpstream(request());
    expect(call.response.status).toBe(401);
    const text = await call.errorText();
    expect(text).not.toContain("sk-secret-123");
    expect(text).toContain("[redacted]");
  });
});
