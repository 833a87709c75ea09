// R25.4: whose fault an attempt's end was (faults.ts) and the class an in-stream error event
// names (streamErrors.ts), as pure functions.
import { describe, expect, it } from "vitest";
import { blamesUpstream, faultOf } from "../../../main/engine/faults.js";
import { streamErrorStatus } from "../../../main/engine/streamErrors.js";
import { ATTEMPT_FAULTS } from "../../../shared/types.js";

describe("faultOf (R25.4)", () => {
  it("R25.4 an attempt that answered is nobody's fault", () => {
    expect(faultOf(null, "complete", false)).toBe("none");
    expect(faultOf(null, "complete", true)).toBe("none");
  });

  it("R25.4 a malformed-request refusal is the client's on the client's own format and the gateway's after a translation", () => {
    expect(faultOf("bad_request", "headers", false)).toBe("client");
    expect(faultOf("bad_request", "headers", true)).toBe("gateway");
    expect(faultOf("bad_request", "before_content", true)).toBe("gateway");
  });

  it("R25.4 a context refusal (R25.2's verdict) is the context's, translated or not", () => {
    expect(faultOf("context_overflow", "headers", false)).toBe("context");
    expect(faultOf("context_overflow", "headers", true)).toBe("context");
  });

  it("R25.4 the upstream's side: transport, provider, account", () => {
    expect(faultOf("transport", "connect", false)).toBe("transport");
    expect(faultOf("timeout", "connect", true)).toBe("transport");
    expect(faultOf("server_error", "mid_stream", false)).toBe("provider");
    expect(faultOf("stream_early_eof", "no_terminal", false)).toBe("provider");
    expect(faultOf("upstream_invalid_json", "before_content", false)).toBe("provider");
    expect(faultOf("rate_limit", "headers", true)).toBe("account");
    expect(faultOf("window_exhausted", "mid_stream", false)).toBe("account");
  });

  it("R25.4 a client that left, a continuation that would not stitch, and a local limit are not the upstream's", () => {
    expect(faultOf("client_abort", "mid_stream", false)).toBe("client");
    expect(faultOf("continuation_refused", "before_content", false)).toBe("gateway");
    expect(faultOf("RATE_LIMIT_QUEUE_TIMEOUT", "connect", false)).toBe("gateway");
  });

  it("R25.4 only transport, provider and account faults may cool or trip anything", () => {
    expect(ATTEMPT_FAULTS.filter(blamesUpstream)).toEqual(["transport", "provider", "account"]);
  });
});

describe("streamErrorStatus (R25.4)", () => {
  it("R25.4 each format's in-stream error names its class", () => {
    expect(streamErrorStatus('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')).toBe(503);
    expect(streamErrorStatus('{"type":"error","error":{"type":"invalid_request_error","message":"bad"}}')).toBe(400);
    expect(streamErrorStatus('{"type":"error","error":{"type":"rate_limit_error","message":"slow"}}')).toBe(429);
    expect(streamErrorStatus('{"error":{"message":"x","type":"server_error","code":"overloaded"}}')).toBe(503);
    expect(streamErrorStatus('{"error":{"message":"x","type":"invalid_request_error","code":"model_not_found"}}')).toBe(404);
    expect(streamErrorStatus('{"error":{"code":529,"message":"x","status":"UNAVAILABLE"}}')).toBe(503);
    expect(streamErrorStatus('{"error":{"code":500,"message":"x","status":"INTERNAL"}}')).toBe(500);
    expect(streamErrorStatus('{"type":"response.failed","response":{"error":{"code":"rate_limit_exceeded","message":"x"}}}')).toBe(429);
    expect(streamErrorStatus('{"type":"error","code":"invalid_request","message":"x"}')).toBe(400);
  });

  it("R25.4 an error event that names nothing, or is not JSON, is the provider's 500", () => {
    expect(streamErrorStatus('{"error":{"message":"something broke"}}')).toBe(500);
    expect(streamErrorStatus("not json")).toBe(500);
  });
});
