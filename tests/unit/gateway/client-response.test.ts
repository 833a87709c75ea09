// The one owner of a client's response, against a real node:http response over loopback.
import { describe, expect, it } from "vitest";
import { parseSse } from "../../integration/harness.js";
import type { FinalError } from "../../../main/gateway/context/outcome.js";
import { clientSide, ports, T0 } from "./fixtures.js";

const rateLimited: FinalError = { status: 429, code: "rate_limit_error", message: "slow down", retryAfterMs: 7_000, noRetry: false };

describe("ClientResponse", () => {
  it("R1.5 an error before the commit is JSON in the client's format with the request headers, logged once", async () => {
    const p = ports();
    const { client, response, close } = await clientSide(p, { format: "anthropic", requestId: "req-a" });
    client.fail({ status: 404, code: "model_not_found", message: "Unknown model: x", retryAfterMs: null, noRetry: true });
    client.fail({ status: 500, code: "internal_error", message: "twice", retryAfterMs: null, noRetry: false });
    const r = await response;
    expect(r.status).toBe(404);
    expect(r.headers.get("x-switchyard-request-id")).toBe("req-a");
    expect(r.headers.get("x-switchyard-attempts")).toBe("0");
    expect(r.headers.get("x-should-retry")).toBe("false");
    expect(JSON.parse(r.text)).toEqual({ type: "error", error: { type: "not_found_error", message: "Unknown model: x", code: "model_not_found" } });
    expect(p.log.entries).toHaveLength(1);
    expect(p.log.entries[0]).toMatchObject({ id: "req-a", status: 404, errorCode: "model_not_found", time: T0 });
    expect(p.events).toEqual([{ type: "request", entry: p.log.entries[0], at: T0 }]);
    await close();
  });

  it("R11.5 a final 429 carries retry_after and reset_at in the error object beside Retry-After", async () => {
    const p = ports();
    const { client, response, close } = await clientSide(p);
    client.fail(rateLimited);
    const r = await response;
    expect(r.headers.get("retry-after")).toBe("7");
    expect(JSON.parse(r.text).error).toMatchObject({ type: "rate_limit_error", code: "rate_limit_error", retry_after: 7, reset_at: new Date(T0 + 7_000).toISOString() });
    await close();
  });

  it("R13 heartbeats commit the stream; a later error becomes an error event, not a second status line", async () => {
    const p = ports();
    const { client, response, close } = await clientSide(p, { format: "anthropic", stream: true });
    client.startHeartbeat(20);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(client.committed).toBe(true);
    client.passUpstreamError({ status: 400, code: "invalid_request", message: "upstream 400: bad thing", retryAfterMs: null, noRetry: true }, '{"type":"error"}', "bad_request");
    const r = await response;
    expect(r.status).toBe(200);
    const events = parseSse(r.text);
    expect(events.some((e) => e.event === "ping")).toBe(true);
    expect(events.at(-1)!.event).toBe("error");
    expect(JSON.parse(events.at(-1)!.data).error).toMatchObject({ message: "upstream 400: bad thing", code: "invalid_request" });
    expect(p.log.entries).toEqual([expect.objectContaining({ status: 400, errorCode: "invalid_request", stream: true })]);
    await close();
  });

  it("R24.4 a window decided after keep-alives ends the stream with what the 429 would have said: code, retry_after, reset_at", async () => {
    const p = ports();
    const { client, response, close } = await clientSide(p, { format: "openai-responses", stream: true });
    client.startHeartbeat(20);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(client.committed).toBe(true);
    client.fail({ status: 429, code: "window_exhausted", message: "window used up", retryAfterMs: 3_600_000, noRetry: false, window: { name: "5h" } });
    const r = await response;
    expect(r.status).toBe(200);
    const failed = parseSse(r.text).at(-1)!;
    expect(failed.event).toBe("response.failed");
    expect(JSON.parse(failed.data).response.error).toEqual({
      type: "usage_limit_reached",
      code: "window_exhausted",
      message: "window used up",
      retry_after: 3_600,
      reset_at: new Date(T0 + 3_600_000).toISOString(),
      resets_at: (T0 + 3_600_000) / 1000,
      resets_in_seconds: 3_600,
    });
    expect(p.log.entries).toEqual([expect.objectContaining({ status: 429, errorCode: "window_exhausted", stream: true })]);
    await close();
  });

  it("R1.6 a stream commits once with the answering connection, writes frames and logs its usage and ttfb", async () => {
    const p = ports();
    const { client, response, close } = await clientSide(p, { stream: true });
    client.attemptStarted();
    client.answeredBy("conn-1", ["service_tier"]);
    p.h.clock.advance(40);
    client.commitStream();
    client.commitStream();
    expect(client.write("data: one\n\n")).toBe(true);
    expect(client.write("data: [DONE]\n\n")).toBe(true);
    client.endStream({ inputTokens: 3, outputTokens: 5 });
    const r = await response;
    expect(r.headers.get("x-omniroute-selected-connection-id")).toBe("conn-1");
    expect(r.headers.get("x-switchyard-dropped-fields")).toBe("service_tier");
    expect(r.headers.get("x-switchyard-attempts")).toBe("1");
    expect(r.headers.get("content-type")).toContain("text/event-stream");
    expect(r.text).toBe("data: one\n\ndata: [DONE]\n\n");
    expect(p.log.entries[0]).toMatchObject({ status: 200, ttfbMs: 40, inputTokens: 3, outputTokens: 5 });
    await close();
  });

  it("R13.1 a full socket makes the writer wait for drain instead of buffering without bound", async () => {
    const p = ports();
    const { client, response, close } = await clientSide(p, { stream: true });
    client.commitStream();
    const big = "data: " + "x".repeat(4 * 1024 * 1024) + "\n\n";
    expect(client.write(big)).toBe(false);
    await client.drained();
    client.endStream();
    expect((await response).text.length).toBe(big.length);
    await close();
  });

  it("a failure after output ends the stream with an error event and is logged as a 200 with its code", async () => {
    const p = ports();
    const { client, response, close } = await clientSide(p, { stream: true });
    client.commitStream();
    client.write("data: {}\n\n");
    client.failAfterOutput("stream_content_stall", "stalled");
    const r = await response;
    expect(JSON.parse(parseSse(r.text).at(-1)!.data).error.code).toBe("stream_content_stall");
    expect(p.log.entries[0]).toMatchObject({ status: 200, errorCode: "stream_content_stall" });
    await close();
  });

  it("R13 sees the client leave through its signal and logs a 499 once", async () => {
    const p = ports();
    const side = await clientSide(p, { stream: true });
    side.client.commitStream();
    side.client.write(": waiting\n\n");
    const left = new Promise((resolve) => side.client.signal.addEventListener("abort", resolve));
    side.hangUp();
    await left;
    expect(side.client.gone).toBe(true);
    side.client.clientClosed();
    side.client.clientClosed();
    expect(p.log.entries).toEqual([expect.objectContaining({ status: 499, errorCode: "client_closed_request" })]);
    await side.close();
  });
});
