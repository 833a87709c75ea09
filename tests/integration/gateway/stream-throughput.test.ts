// The throughput watchdog's warm-up guard (D13, R13.5) over real HTTP: the same trickling stream
// from the simulator is left alone while it is slow only inside the warm-up, and cut once it is
// still slow after warm-up + one window — never before that.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, parseSse, startGateway, startSim, type TestGateway } from "../harness.js";

let gw: TestGateway;
let sim: Simulator;

const WINDOW_MS = 1_000;
/** The reply's eight or so frames at this pace: about 1.9 s of some 15 B/s, far below the 500 B/s set here. */
const TRICKLE_MS = 250;

beforeAll(async () => {
  sim = await startSim({ label: "throughput" });
  gw = await startGateway();
  await addProvider(gw, "tp", sim, "openai", ["tp-1"]);
});

afterEach(async () => {
  sim.clearFaults();
  await gw.api("PATCH", "/api/resilience", { streamRecovery: { throughputWatchdog: { enabled: false } } });
  await gw.api("POST", "/api/resilience/cooldowns", { all: true });
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

async function watchdog(warmupMs: number): Promise<void> {
  const patched = await gw.api("PATCH", "/api/resilience", {
    streamRecovery: { throughputWatchdog: { enabled: true, warmupMs, windowMs: WINDOW_MS, minBytesPerSec: 500, minBytes: 1 } },
  });
  expect(patched.status, patched.text).toBe(200);
}

/** One trickling stream through the gateway: its SSE events and how long it took. */
async function trickle(): Promise<{ events: Array<{ data: string }>; elapsedMs: number }> {
  sim.addFault("tp-1", { trickleMs: TRICKLE_MS, times: 1 });
  const t0 = Date.now();
  const r = await gw.post("/v1/chat/completions", { model: "tp/m1", stream: true, messages: [{ role: "user", content: "hi" }] });
  expect(r.status).toBe(200);
  return { events: parseSse(r.text), elapsedMs: Date.now() - t0 };
}

describe("throughput watchdog warm-up (D13)", () => {
  it("D13 the defaults are warm-up 30 s, window 30 s, 4 B/s and 1 B of measurable output, off", async () => {
    const settings = await gw.api("GET", "/api/resilience");
    expect(settings.body.streamRecovery.throughputWatchdog).toEqual({ enabled: false, warmupMs: 30_000, windowMs: 30_000, minBytesPerSec: 4, minBytes: 1 });
  });

  it("D13 a stream slow only during the warm-up is not cut, though one window of it is far below the minimum", async () => {
    const warmupMs = 5_000;
    await watchdog(warmupMs);
    const { events, elapsedMs } = await trickle();
    expect(events.at(-1)?.data).toBe("[DONE]");
    const text = events
      .slice(0, -1)
      .map((e) => JSON.parse(e.data).choices?.[0]?.delta?.content ?? "")
      .join("");
    expect(text).toBe("Hello from throughput (key tp-1)");
    // Longer than a window, all of it inside the warm-up: without the guard it would be judged at 1 s.
    expect(elapsedMs).toBeGreaterThan(WINDOW_MS + 500);
    expect(elapsedMs).toBeLessThan(warmupMs);
  });

  it("D13 the same stream still slow after the warm-up is cut with STREAM_THROUGHPUT_TOO_LOW, not before warm-up + window", async () => {
    const warmupMs = 400;
    await watchdog(warmupMs);
    const { events, elapsedMs } = await trickle();
    const last = JSON.parse(events.at(-1)!.data);
    expect(last.error.code).toBe("STREAM_THROUGHPUT_TOO_LOW");
    expect(elapsedMs).toBeGreaterThanOrEqual(warmupMs + WINDOW_MS);
    // Cut before the upstream had finished: the stream did not end on its own.
    expect(events.some((e) => e.data === "[DONE]")).toBe(false);
  });
});
