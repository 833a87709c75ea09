// R25.6: a wait longer than a minute is never handed out as a Retry-After (Claude Code stops
// retrying past 60 s). When it fits waitOrSwitch.maxWaitMs, Switchyard takes it itself: the stream's
// keep-alives go on, the targets are walked again after it, and the client gets its answer. This
// test waits the minute for real (about 61 s).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, parseSse, startGateway, startSim, type TestGateway } from "../harness.js";

let gw: TestGateway;
let sim: Simulator;

beforeAll(async () => {
  sim = await startSim({ label: "hold" });
  gw = await startGateway({ env: { SWITCHYARD_STREAM_HEARTBEAT_MS: "5000" } });
  await addProvider(gw, "hold", sim, "anthropic", ["hold-key"]);
  expect((await gw.api("PATCH", "/api/resilience", { waitOrSwitch: { enabled: true, maxWaitMs: 90_000 } })).status).toBe(200);
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

describe("R25.6 a wait over a minute within waitOrSwitch.maxWaitMs", () => {
  it("R25.6 is held by Switchyard with keep-alives, then served: the client never sees a long Retry-After", { timeout: 120_000 }, async () => {
    sim.addFault("hold-key", { status: 429, retryAfterMs: 60_500, times: 1 });
    const started = Date.now();
    const r = await gw.post(
      "/v1/messages",
      { model: "hold/m1", max_tokens: 64, stream: true, messages: [{ role: "user", content: "hi" }] },
      { "anthropic-version": "2023-06-01", "x-api-key": "x" },
    );
    const waited = Date.now() - started;
    expect(r.status).toBe(200);
    expect(r.headers.get("retry-after")).toBeNull();
    const events = parseSse(r.text).map((e) => e.event);
    expect(events.filter((e) => e === "ping").length).toBeGreaterThanOrEqual(10);
    expect(events).toContain("message_stop");
    expect(waited).toBeGreaterThanOrEqual(60_000);
    expect(sim.requests.filter((q) => q.key === "hold-key")).toHaveLength(2);
    const row = (await gw.api("GET", "/api/logs?limit=1")).body[0];
    expect(row).toMatchObject({ status: 200, comboWaits: { count: 1 } });
  });
});
