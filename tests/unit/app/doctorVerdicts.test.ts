// R23.4: the contract doctor's readings of answers the integration tests do not provoke: each
// status and shape gets a sentence the user can act on.
import { describe, expect, it } from "vitest";
import { answerShapeOf, type CallSite, errorShapeOf, readAnswer, readErrorAnswer, readStream, statusVerdict } from "../../../main/app/doctorVerdicts.js";

const anthropic: CallSite = {
  format: "anthropic",
  upstreamFormat: "anthropic",
  baseUrl: "https://api.example.test",
  path: "/v1/messages",
  model: "claude-x",
  connectionName: "team key",
};
const gemini: CallSite = {
  format: "gemini",
  upstreamFormat: "gemini",
  baseUrl: "https://g.example.test/v1beta",
  path: "/models/gem:generateContent",
  model: "gem",
  connectionName: "g",
};

describe("R23.4 doctor verdicts", () => {
  it("R23.4 answer and error shapes are told apart by the keys only each format's bodies carry", () => {
    expect(answerShapeOf({ type: "message", content: [] })).toBe("anthropic");
    expect(answerShapeOf({ object: "chat.completion", choices: [] })).toBe("openai");
    expect(answerShapeOf({ object: "response", output: [] })).toBe("openai-responses");
    expect(answerShapeOf({ candidates: [] })).toBe("gemini");
    expect(answerShapeOf({ hello: 1 })).toBeNull();
    expect(errorShapeOf({ type: "error", error: { type: "invalid_request_error", message: "x" } })).toBe("anthropic");
    expect(errorShapeOf([{ error: { code: 400, message: "x", status: "INVALID_ARGUMENT" } }])).toBe("gemini");
    expect(errorShapeOf({ error: { message: "x", type: "invalid_request_error" } })).toBe("openai");
    expect(errorShapeOf({ message: "x" })).toBeNull();
  });

  it("R23.4 each status says what to do", () => {
    const said = (status: number, body: unknown, headers = {}) => statusVerdict(anthropic, status, JSON.stringify(body), headers);
    expect(said(403, { type: "error", error: { type: "permission_error", message: "no access" } })).toEqual({
      ok: false,
      blocking: true,
      detail: 'the upstream refused connection "team key" (403: no access): check its API key and that the account may use model "claude-x"',
    });
    expect(said(404, { type: "error", error: { type: "not_found_error", message: "model: claude-x" } }).detail).toBe(
      'the upstream does not know model "claude-x" (404: model: claude-x): check the provider\'s model list',
    );
    expect(said(429, { type: "error", error: { type: "rate_limit_error", message: "slow down" } })).toEqual({
      ok: false,
      detail: 'the upstream rate-limits connection "team key" right now (429: slow down): the key works; check again later',
    });
    expect(said(503, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }).detail).toBe(
      "the upstream failed (503: Overloaded): check again later, or check the server behind https://api.example.test",
    );
    expect(said(301, "", { location: "https://api.example.test/" }).detail).toBe(
      "the base URL https://api.example.test redirects (301 to https://api.example.test/): use the address it redirects to",
    );
  });

  it("R23.4 a 200 web page is not the API", () => {
    expect(readAnswer(anthropic, "<!DOCTYPE html><html>").detail).toBe(
      'the answer is not JSON (it starts "<!DOCTYPE html><html>"): the base URL https://api.example.test may point at a web page or another service, not the API',
    );
  });

  it("R23.4 Gemini's error shape passes; an error that is not JSON, or a malformed request accepted, fails", () => {
    expect(readErrorAnswer(gemini, 400, JSON.stringify({ error: { code: 400, message: "bad", status: "INVALID_ARGUMENT" } }), {})).toEqual({ ok: true });
    expect(readErrorAnswer(gemini, 400, "Bad Request", {}).detail).toBe(
      'the error answer (400) is not JSON (it starts "Bad Request"): clients cannot read this upstream\'s errors',
    );
    expect(readErrorAnswer(gemini, 200, "{}", {}).detail).toBe("the upstream accepted a request whose body is not JSON (200): it will not report a client's mistakes as errors");
  });

  it("R23.4 a stream frame that is not JSON, and an error event inside a stream, fail the stream check", () => {
    const garbled = readStream(anthropic, "text/event-stream", 'event: message_start\ndata: {"type":"message_start","message":{}}\n\ndata: {not json\n\n');
    expect(garbled.detail).toBe('the stream sent an event whose data is not JSON ("{not json")');
    const failed = readStream(anthropic, "text/event-stream", 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n');
    expect(failed.detail).toBe("the stream reported an error: Overloaded");
  });
});
