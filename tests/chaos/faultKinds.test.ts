// The simulator fault kinds the chaos runs draw from (R0.5): truncated and malformed streams, and
// a per-request picker so a seeded generator decides each upstream answer.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type FaultSpec, type Simulator } from "../../main/simulator/index.js";
import { parseSse, post } from "../unit/simulator/helpers.js";

const streamChat = { model: "m", stream: true, messages: [{ role: "user", content: "hi" }] };
const anthropicStream = { model: "c", max_tokens: 10, stream: true, messages: [{ role: "user", content: "hi" }] };
const fault = (spec: FaultSpec): Record<string, string> => ({ "x-sim-fault": JSON.stringify(spec) });

let sim: Simulator;
const picks: FaultSpec[] = [];
beforeAll(async () => {
  sim = await startSimulator({ label: "kinds", replyText: "one two three four five", pickFault: (r) => (r.key === "picked" ? picks.shift() : undefined) });
});
afterAll(() => sim.close());

describe("chaos fault kinds", () => {
  it("R0.5 endAfterChunks ends the stream cleanly after N content chunks without the closing frames", async () => {
    const res = await post(`${sim.url}/v1/messages`, anthropicStream, fault({ endAfterChunks: 2 }));
    expect(res.status).toBe(200);
    const events = parseSse(res.text).map((e) => e.event);
    expect(events.filter((e) => e === "content_block_delta")).toHaveLength(2);
    expect(events).not.toContain("message_stop");
    expect(events).not.toContain("message_delta");
  });

  it("R0.5 garbleAfterChunks sends one frame whose data is not JSON after N content chunks, then ends", async () => {
    const res = await post(`${sim.url}/v1/chat/completions`, streamChat, fault({ garbleAfterChunks: 1 }));
    const frames = parseSse(res.text).filter((e) => !e.comment);
    const last = frames.at(-1)!;
    expect(() => JSON.parse(last.data)).toThrow();
    expect(frames.slice(0, -1).every((f) => f.data !== "[DONE]")).toBe(true);
    const content = frames.slice(0, -1).filter((f) => JSON.parse(f.data).choices?.[0]?.delta?.content);
    expect(content).toHaveLength(1);
  });

  it("R0.5 pickFault decides the answer per request and its result is validated", async () => {
    picks.push({ status: 503, retryAfter: 1 }, { status: 429 });
    const first = await post(`${sim.url}/v1/chat/completions`, { ...streamChat, stream: false }, { authorization: "Bearer picked" });
    const second = await post(`${sim.url}/v1/chat/completions`, { ...streamChat, stream: false }, { authorization: "Bearer picked" });
    const third = await post(`${sim.url}/v1/chat/completions`, { ...streamChat, stream: false }, { authorization: "Bearer picked" });
    expect([first.status, second.status, third.status]).toEqual([503, 429, 200]);
    expect(first.headers["retry-after"]).toBe("1");
    picks.push({ status: 42 });
    const invalid = await post(`${sim.url}/v1/chat/completions`, { ...streamChat, stream: false }, { authorization: "Bearer picked" });
    expect(invalid.status).toBe(400);
  });
});
