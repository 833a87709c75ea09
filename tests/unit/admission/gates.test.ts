// Issue 26 item 4: the global and provider gates of R8.1, above the connection and model gates,
// taken all at once in the order global → provider → connection → model, with the connection
// gate's queue and wait semantics (R9.3 budgets, SEMAPHORE_* and RATE_LIMIT_QUEUE_* refusals).
import { describe, expect, it } from "vitest";
import { createAdmissionControl } from "../../../main/gateway/pipeline/admission/control.js";
import type { Admission, AdmissionRequest } from "../../../main/gateway/pipeline/admit.js";
import { DEFAULT_RESILIENCE_SETTINGS, type ResilienceSettings } from "../../../shared/resilienceSettings.js";
import type { Provider } from "../../../shared/types.js";
import { connection, provider } from "../gateway/fixtures.js";

const clock = { now: () => Date.now() };
const signal = () => new AbortController().signal;

function control(opts: { globalCap?: () => number | null; queue?: Partial<ResilienceSettings["requestQueue"]> } = {}) {
  const settings = { requestQueue: { ...DEFAULT_RESILIENCE_SETTINGS.requestQueue, ...opts.queue }, quotaShareConcurrencyLimit: { enabled: true } };
  return createAdmissionControl({ clock, settings: () => settings, globalCap: opts.globalCap });
}

function admitted(a: Admission): Extract<Admission, { admitted: true }> {
  if (!a.admitted) throw new Error(`refused: ${a.refusal.code}`);
  return a;
}

const request = (p: Provider, connectionId: string, extra: Partial<AdmissionRequest> = {}): AdmissionRequest => ({
  provider: p,
  connection: connection({ id: connectionId, provider: p.id }),
  model: "m",
  signal: signal(),
  ...extra,
});

/** Admission decided within a turn of the event loop (at once, or a promise already settled). */
async function decidedSoon(a: Admission | Promise<Admission>): Promise<Admission | "waiting"> {
  return Promise.race([Promise.resolve(a), new Promise<"waiting">((r) => setTimeout(() => r("waiting"), 30))]);
}

describe("R8.1 global and provider gates", () => {
  it("R8.1 gates are taken all at once, global → provider → connection: a request waiting on a full provider gate holds no global permit, so another provider's request goes at once", async () => {
    const ctl = control({ globalCap: () => 2 });
    const p1 = provider({ id: "p1", category: "local", maxConcurrent: 1 });
    const p2 = provider({ id: "p2", category: "local" });
    const a = admitted(await ctl.admit(request(p1, "a")));
    // b's own connection is idle: only the provider gate holds it.
    const b = ctl.admit(request(p1, "b"));
    expect(b).toBeInstanceOf(Promise);
    const c = await decidedSoon(ctl.admit(request(p2, "c")));
    expect(c).not.toBe("waiting");
    const d = ctl.admit(request(p2, "d"));
    expect(await decidedSoon(d)).toBe("waiting");
    const rows = ctl.queues();
    expect(rows.slice(0, 2)).toEqual([
      expect.objectContaining({ scope: "global", provider: null, connectionId: null, inFlight: 2, queued: 2, maxConcurrent: 2 }),
      expect.objectContaining({ scope: "provider", provider: "p1", connectionId: null, inFlight: 1, queued: 1, maxConcurrent: 1 }),
    ]);
    // R9.3: a waiter counts in its own connection's queue, whichever gate holds it.
    expect(rows.find((r) => r.connectionId === "b")).toMatchObject({ scope: "connection", inFlight: 0, queued: 1 });
    expect(rows.find((r) => r.connectionId === "d")).toMatchObject({ scope: "connection", inFlight: 0, queued: 1 });
    a.release();
    const bIn = admitted(await b);
    // First come, first served: d still waits for the global gate that b took.
    expect(await decidedSoon(d)).toBe("waiting");
    admitted(c as Admission).release();
    const dIn = admitted(await d);
    bIn.release();
    dIn.release();
    expect(ctl.queues().filter((r) => r.scope !== "connection")).toEqual([
      expect.objectContaining({ scope: "global", inFlight: 0, queued: 0 }),
      expect.objectContaining({ scope: "provider", provider: "p1", inFlight: 0, queued: 0 }),
    ]);
    await ctl.close();
  });

  it("R8.1 a full global gate refuses like a connection gate: SEMAPHORE_TIMEOUT after the wait budget and SEMAPHORE_QUEUE_FULL at 20 waiters, each naming the global gate", async () => {
    const ctl = control({ globalCap: () => 1, queue: { maxWaitMs: 120 } });
    const local = provider({ id: "loc", category: "local" });
    const first = admitted(await ctl.admit(request(local, "one")));
    const waiters = Array.from({ length: 20 }, (_, i) => Promise.resolve(ctl.admit(request(local, `w${i}`))));
    const full = await ctl.admit(request(local, "late"));
    expect(full.admitted ? null : full.refusal).toMatchObject({ code: "SEMAPHORE_QUEUE_FULL", status: 503 });
    expect(full.admitted ? "" : full.refusal.message).toContain("global gate");
    const results = await Promise.all(waiters);
    const refusal = results[0].admitted ? null : results[0].refusal;
    expect(refusal).toMatchObject({ code: "SEMAPHORE_TIMEOUT", status: 503 });
    expect(refusal?.message).toContain("the global gate (settings maxConcurrent 1)");
    first.release();
    await ctl.close();
  });

  it("R8.1 a provider gate on a queue-protected connection waits within its maxWaitMs and then refuses RATE_LIMIT_QUEUE_TIMEOUT naming the provider's gate", async () => {
    const ctl = control({ queue: { maxWaitMs: 100 } });
    const keyed = provider({ id: "keyed", category: "apikey", maxConcurrent: 1 });
    const first = admitted(await ctl.admit(request(keyed, "k1")));
    const started = Date.now();
    const second = await ctl.admit(request(keyed, "k2"));
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(second.admitted ? null : second.refusal).toMatchObject({ code: "RATE_LIMIT_QUEUE_TIMEOUT", status: 503 });
    expect(second.admitted ? "" : second.refusal.message).toContain("provider keyed's gate (maxConcurrent 1)");
    first.release();
    await ctl.close();
  });

  it("R8.1 unset = no gate: without caps no gate row shows and nothing waits; a gate's row leaves once its cap is removed", async () => {
    let cap: number | null = null;
    const ctl = control({ globalCap: () => cap });
    const free = provider({ id: "free", category: "local" });
    const held = [admitted(await ctl.admit(request(free, "f1"))), admitted(await ctl.admit(request(free, "f1")))];
    expect(ctl.queues().map((r) => r.scope)).toEqual(["connection"]);
    cap = 5;
    held.push(admitted(await ctl.admit(request(free, "f1"))));
    expect(ctl.queues().filter((r) => r.scope === "global")).toEqual([expect.objectContaining({ inFlight: 1, maxConcurrent: 5 })]);
    cap = null;
    held.push(admitted(await ctl.admit(request(free, "f1"))));
    expect(ctl.queues().map((r) => r.scope)).toEqual(["connection"]);
    for (const a of held) a.release();
    expect(ctl.queues()).toEqual([expect.objectContaining({ connectionId: "f1", inFlight: 0 })]);
    await ctl.close();
  });

  it("R8.2 a quota-share dispatch goes on without a slot when the provider gate's wait ends; a plain one is refused", async () => {
    const ctl = control({ queue: { maxWaitMs: 60 } });
    const shared = provider({ id: "qs", category: "local", maxConcurrent: 1 });
    const first = admitted(await ctl.admit(request(shared, "q1")));
    const plain = await ctl.admit(request(shared, "q2"));
    expect(plain.admitted ? null : plain.refusal.code).toBe("SEMAPHORE_TIMEOUT");
    const second = await ctl.admit(request(shared, "q2", { quotaShare: true }));
    expect(second.admitted).toBe(true);
    admitted(second).release();
    first.release();
    await ctl.close();
  });
});
