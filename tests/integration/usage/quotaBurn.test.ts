// R21.6 burn and pace, R21.7 thresholds, through a real gateway over HTTP against a simulator whose
// Anthropic answers carry the unified 5h/7d utilisation of the tokens each key was served. Two
// sessions (told apart by their R7.1 session header) take turns on one subscription account: GET
// /api/usage/quotas shows each window's length, its pace an hour into the window, and the share of
// each session; /api/events carries quota.threshold at 80, 95 and 100 % of the 5-hour window, each
// once in the period.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { UsageQuotaItem } from "../../../shared/apiTypes.js";
import { PACE_MIN_ELAPSED_SHARE } from "../../../shared/quotaPace.js";
import type { Simulator } from "../../../main/simulator/index.js";
import { SIM_QUOTA } from "../../../main/simulator/quotaMeters.js";
import { addProvider, startGateway, startSim, type TestGateway } from "../harness.js";

const HOUR = 3_600_000;
let gw: TestGateway;
let sim: Simulator;
let offset = 0;
/** The share of the 5-hour window each answer moved, by session (the first answer is the baseline). */
const charged: Record<string, number> = { alpha: 0, beta: 0 };
const requests: Record<string, number> = { alpha: 0, beta: 0 };
const events: Array<{ type: string; connectionId: string; window: string; percent: number }> = [];
const thresholdsAfterStep: number[][] = [];
let stream: AbortController;
let streamText = "";
let baselinePercent = 0;

/** A prompt of about `percent` % of the simulator's 5-hour allowance (4 characters a token). */
const prompt = (percent: number) => "x".repeat(Math.max(1, Math.round((percent / 100) * SIM_QUOTA.fiveHourTokens * 4)));

async function send(session: "alpha" | "beta", percent: number, baseline = false): Promise<void> {
  const r = await gw.post(
    "/v1/messages",
    { model: "ant/m1", max_tokens: 16, messages: [{ role: "user", content: prompt(percent) }] },
    { "anthropic-version": "2023-06-01", "x-session-id": session },
  );
  expect(r.status).toBe(200);
  const share = ((r.body.usage.input_tokens + r.body.usage.output_tokens) / SIM_QUOTA.fiveHourTokens) * 100;
  if (baseline) {
    baselinePercent = share;
    return;
  }
  charged[session] += share;
  requests[session] += 1;
}

function quotaEvents(): typeof events {
  return streamText
    .split("\n\n")
    .filter((f) => f.startsWith("event: quota.threshold\n"))
    .map((f) =>
      JSON.parse(
        f
          .split("\n")
          .find((l) => l.startsWith("data: "))!
          .slice(6),
      ),
    );
}

/** Waits until the stream has carried `count` quota.threshold events (or a little while for none). */
async function settle(count: number): Promise<void> {
  const until = Date.now() + 1_000;
  while (quotaEvents().length < count && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 50));
}

async function quotas(): Promise<Map<string, UsageQuotaItem>> {
  const r = await gw.api("GET", "/api/usage/quotas");
  expect(r.status).toBe(200);
  return new Map((r.body.items as UsageQuotaItem[]).map((i) => [i.window, i]));
}

beforeAll(async () => {
  sim = await startSim({ label: "subscription", quotaHeaders: true, quotaClock: () => Date.now() + offset });
  gw = await startGateway({ testClock: true });
  await addProvider(gw, "ant", sim, "anthropic", ["ant-key"]);
  stream = new AbortController();
  const res = await fetch(`${gw.url}/api/events`, { headers: { authorization: `Bearer ${gw.token}` }, signal: stream.signal });
  expect(res.status).toBe(200);
  void (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) streamText += decoder.decode(chunk, { stream: true });
    } catch {
      // aborted at the end
    }
  })();
  // An hour into the simulator's 5-hour window (the gateway's clock and the simulator's move together).
  await gw.api("POST", "/api/debug/clock", { advanceMs: HOUR });
  offset += HOUR;
  // The baseline, then the two sessions in turn: ~40 → 70 → 82 (80 %) → 82.1 → 96 (95 %) → 96.1 → 101 (100 %).
  const steps: Array<["alpha" | "beta", number]> = [
    ["alpha", 40],
    ["beta", 30],
    ["beta", 12],
    ["alpha", 0.1],
    ["alpha", 14],
    ["beta", 0.1],
    ["beta", 5],
    ["alpha", 0.1],
  ];
  await send("alpha", 0.01, true);
  for (const [session, percent] of steps) {
    await send(session, percent);
    await settle(events.length + 1);
    const now = quotaEvents();
    thresholdsAfterStep.push(now.slice(events.length).map((e) => e.percent));
    events.splice(0, events.length, ...now);
  }
}, 60_000);

afterAll(async () => {
  stream?.abort();
  await gw?.close();
  await sim?.close();
});

describe("R21.6 / R21.7 subscription windows through the gateway", () => {
  it("R21.6 window items carry windowMs; count windows have none and no pace or sessions", async () => {
    const q = await quotas();
    expect(q.get("5h")!.windowMs).toBe(5 * HOUR);
    expect(q.get("7d")!.windowMs).toBe(7 * 24 * HOUR);
    expect(q.get("requests")).toMatchObject({ windowMs: null, pace: null, sessions: [] });
  });

  it("R21.6 each window's rises are charged to the session whose answer showed them (the first reading is the baseline)", async () => {
    const q = await quotas();
    for (const window of ["5h", "7d"]) {
      const item = q.get(window)!;
      const scale = window === "5h" ? 1 : SIM_QUOTA.fiveHourTokens / SIM_QUOTA.weekTokens;
      expect(item.sessions!.map((s) => s.session)).toEqual(["alpha", "beta"]);
      for (const s of item.sessions!) {
        expect(s.requests).toBe(requests[s.session!]);
        expect(s.usedPercent).toBeCloseTo(charged[s.session!] * scale, 2);
        expect(Object.keys(s.byClass)).toEqual(["main"]);
      }
      // Everything above the baseline is somebody's.
      const total = item.sessions!.reduce((n, s) => n + s.usedPercent, 0);
      expect(total).toBeCloseTo(item.usedPercent! - baselinePercent * scale, 2);
    }
  });

  it("R21.6 the pace: an hour into the 5-hour window at over 100 % it ran out (deficit, runsOutAt before the reset); the weekly window is under 3 % in, so no pace yet", async () => {
    const q = await quotas();
    const fiveHour = q.get("5h")!;
    expect(fiveHour.usedPercent!).toBeGreaterThan(100);
    expect(fiveHour.pace!.state).toBe("deficit");
    const start = fiveHour.resetAt! - fiveHour.windowMs!;
    // The line from the start through the last reading reaches 100 % at start + elapsed · 100 / used.
    const expected = start + ((fiveHour.seenAt - start) * 100) / fiveHour.usedPercent!;
    expect(Math.abs(fiveHour.pace!.runsOutAt! - expected)).toBeLessThan(1_000);
    expect(fiveHour.pace!.runsOutAt!).toBeLessThan(fiveHour.resetAt!);
    const week = q.get("7d")!;
    expect((week.seenAt - (week.resetAt! - week.windowMs!)) / week.windowMs!).toBeLessThan(PACE_MIN_ELAPSED_SHARE);
    expect(week.pace).toBeNull();
  });

  it("R21.7 quota.threshold comes on /api/events at 80, 95 and 100 % of the 5-hour window, each once in the period", () => {
    expect(thresholdsAfterStep).toEqual([[], [], [80], [], [95], [], [100], []]);
    expect(events.map((e) => [e.connectionId, e.window, e.percent])).toEqual([
      ["ant-c1", "5h", 80],
      ["ant-c1", "5h", 95],
      ["ant-c1", "5h", 100],
    ]);
  });
});
