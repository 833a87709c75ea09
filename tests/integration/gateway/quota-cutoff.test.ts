// Issue 26 item 7: quotaPreflightCutoff ({enabled, cutoffPercent}, R10.2) over real HTTP. A
// connection whose learned remaining quota (its answers' rate-limit headers) is at or below
// cutoffPercent of its limit is passed over before dispatch while a sibling of its provider has
// more; the request log's skipped list says `quota_cutoff`. Passed over, not dropped: with no
// sibling able to serve, it still serves.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import type { RequestLogEntry } from "../../../shared/types.js";
import { startGateway, startSim, type TestGateway } from "../harness.js";

let gw: TestGateway;
let sim: Simulator;

const chat = { model: "qp/m1", messages: [{ role: "user", content: "hi" }] };
/** 3 of 100 requests left in a window that starts over in a minute. */
const LOW = { "x-ratelimit-limit-requests": "100", "x-ratelimit-remaining-requests": "3", "x-ratelimit-reset-requests": "60s" };

async function ask(): Promise<{ status: number; connection: string | null; log: RequestLogEntry }> {
  const res = await gw.post("/v1/chat/completions", chat);
  const log = (await gw.api<RequestLogEntry>("GET", `/api/logs/${res.headers.get("x-switchyard-request-id")}`)).body;
  return { status: res.status, connection: res.headers.get("x-omniroute-selected-connection-id"), log };
}

const cutoff = (patch: Record<string, unknown> | null) => gw.api("PATCH", "/api/resilience", { quotaPreflightCutoff: patch });

beforeAll(async () => {
  sim = await startSim({ label: "quota" });
  gw = await startGateway();
  expect((await gw.api("POST", "/api/providers", { id: "qp", format: "openai", baseUrl: `${sim.url}/v1`, category: "local", models: ["m1"] })).status).toBe(201);
  for (const [i, key] of ["qp-k1", "qp-k2"].entries()) {
    expect((await gw.api("POST", "/api/connections", { id: `qp-c${i + 1}`, provider: "qp", name: key, apiKey: key, priority: i })).status).toBe(201);
  }
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

describe("R10.2 quotaPreflightCutoff", () => {
  it("R10.2 quotaPreflightCutoff: off by default (5 %); on, a connection at 3 % of its learned limit is passed over for its sibling, and the log says quota_cutoff until its window starts over", async () => {
    expect((await gw.api("GET", "/api/resilience")).body.quotaPreflightCutoff).toEqual({ enabled: false, cutoffPercent: 5 });
    sim.addFault("qp-k1", { headers: LOW, times: 1 });
    expect((await ask()).connection).toBe("qp-c1");
    // Off: the first connection keeps serving on its last 3 %.
    expect((await ask()).connection).toBe("qp-c1");

    expect((await cutoff({ enabled: true })).status).toBe(200);
    const passed = await ask();
    expect(passed.status).toBe(200);
    expect(passed.connection).toBe("qp-c2");
    const skip = passed.log.skipped?.find((s) => s.reason === "quota_cutoff");
    expect(skip).toMatchObject({ provider: "qp", target: "qp/m1", connectionId: "qp-c1" });
    expect(skip!.remainingMs).toBeGreaterThan(50_000);
    expect(skip!.remainingMs).toBeLessThanOrEqual(60_000);
    expect(passed.log.attempts.map((a) => a.connectionId)).toEqual(["qp-c2"]);

    // 3 % is above a 2 % cutoff: it serves again.
    expect((await cutoff({ cutoffPercent: 2 })).status).toBe(200);
    const kept = await ask();
    expect(kept.connection).toBe("qp-c1");
    expect(kept.log.skipped ?? []).toEqual([]);
    await cutoff({ cutoffPercent: null });
  });

  it("R10.2 quotaPreflightCutoff passes over, never drops: when the sibling fails the low connection still answers, and with the sibling cooling it is not passed over at all", async () => {
    expect((await gw.api("GET", "/api/resilience")).body.quotaPreflightCutoff).toEqual({ enabled: true, cutoffPercent: 5 });
    sim.addFault("qp-k1", { headers: LOW, times: 1 });
    sim.addFault("qp-k2", { status: 429, retryAfter: 30, times: 1 });
    // qp-c1 still holds its 3 % window from the answers above; refresh it anyway.
    const first = await ask();
    expect(first.connection).toBe("qp-c1");
    expect(first.log.attempts.map((a) => [a.connectionId, a.status])).toEqual([
      ["qp-c2", 429],
      ["qp-c1", 200],
    ]);
    expect(first.log.skipped).toContainEqual(expect.objectContaining({ connectionId: "qp-c1", reason: "quota_cutoff" }));
    // qp-c2 now cools down: it is no sibling that could serve, so qp-c1 is not passed over.
    const alone = await ask();
    expect(alone.connection).toBe("qp-c1");
    expect(alone.log.attempts.map((a) => a.connectionId)).toEqual(["qp-c1"]);
    expect((alone.log.skipped ?? []).filter((s) => s.reason === "quota_cutoff")).toEqual([]);
    await cutoff(null);
  });
});
