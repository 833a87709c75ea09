// The upstream call's one cancellation (issue 12): the client's cancellation, the attempt
// deadline (R13.6) and an admitted job's execution deadline (R9.1) all stop the call through one
// signal, and each reports as itself. Real HTTP over loopback against a server that answers late.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Cancellation } from "../../../main/gateway/upstream/cancellation.js";
import { UpstreamCallError, type ExecutionDeadline } from "../../../main/gateway/upstream/call.js";
import { listen, provider, upstreamCaller } from "./fixtures.js";

describe("upstream call cancellation", () => {
  let srv: Awaited<ReturnType<typeof listen>>;
  let seen = 0;
  beforeAll(async () => {
    srv = await listen((req, res) => {
      seen++;
      const delay = Number(new URL(req.url ?? "/", "http://x").searchParams.get("delay") ?? 0);
      const timer = setTimeout(() => res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}'), delay);
      res.on("close", () => clearTimeout(timer));
    });
  });
  afterAll(() => srv.close());

  /** The client's cancellation, as ClientResponse's `departure`. */
  const source = () => new Cancellation();

  const request = (delay: number, extra: { signal?: Cancellation; execution?: ExecutionDeadline } = {}) => ({
    provider: provider({ id: "p", baseUrl: srv.url }),
    upstreamFormat: "openai" as const,
    clientFormat: "openai" as const,
    secret: "sk-test",
    clientHeaders: {},
    path: `/v1/chat/completions?delay=${delay}`,
    body: "{}",
    ...extra,
  });

  const failureOf = async (p: Promise<unknown>) => {
    const err = await p.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UpstreamCallError);
    return err as UpstreamCallError;
  };

  // Issue 26 item 5: this test asserted the opposite (an 80 ms budget stopped a call whose own
  // deadline was 5 s, as RATE_LIMIT_EXECUTION_TIMEOUT). R9.1 raises the budget to the request's own
  // timeout when that is longer, so the call's own deadline ends it, as an upstream timeout.
  it("R9.1 an execution budget shorter than the call's own deadline is raised to it: the call runs to its own deadline and the job does not expire", async () => {
    const { callUpstream } = upstreamCaller({ attemptDeadlineMs: 400 });
    const execution: ExecutionDeadline = { remainingMs: () => 80, budgetMs: 80, expired: false };
    const started = Date.now();
    const err = await failureOf(callUpstream(request(2_000, { execution })));
    expect(Date.now() - started).toBeGreaterThanOrEqual(380);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(execution.expired).toBe(false);
    expect(err).toMatchObject({ code: "ETIMEDOUT", timedOut: true });
    // Raised, not dropped: an answer within the call's own deadline is served.
    const ok = await callUpstream(request(150, { execution: { remainingMs: () => 20, budgetMs: 20, expired: false } }));
    expect(await ok.bodyText(1024)).toBe('{"ok":true}');
  });

  it("R9.1 a budget longer than the call's own deadline still expires the job when it was dispatched long before its call", async () => {
    const { callUpstream } = upstreamCaller({ attemptDeadlineMs: 5_000 });
    // Dispatched 9.92 s ago with a 10 s budget: 80 ms are left, well before the call's own 5 s.
    const execution: ExecutionDeadline = { remainingMs: () => 80, budgetMs: 10_000, expired: false };
    const started = Date.now();
    const err = await failureOf(callUpstream(request(2_000, { execution })));
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(execution.expired).toBe(true);
    expect(err.timedOut).toBe(false);
  });

  it("R13.6 an attempt deadline shorter than the execution's is a timeout, and the job did not expire", async () => {
    const { callUpstream } = upstreamCaller({ attemptDeadlineMs: 80 });
    const execution: ExecutionDeadline = { remainingMs: () => 5_000, budgetMs: 5_000, expired: false };
    const err = await failureOf(callUpstream(request(2_000, { execution })));
    expect(err).toMatchObject({ code: "ETIMEDOUT", timedOut: true });
    expect(execution.expired).toBe(false);
  });

  it("R13.7 the idle timeout (no byte at all) also bounds the wait for the headers, well before the attempt deadline", async () => {
    const { callUpstream } = upstreamCaller({ attemptDeadlineMs: 5_000, idleTimeoutMs: 300 });
    const started = Date.now();
    const err = await failureOf(callUpstream(request(2_000)));
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(err).toMatchObject({ code: "UND_ERR_HEADERS_TIMEOUT", timedOut: false });
    // Headers within the idle timeout are no silence: the same caller is answered.
    const ok = await callUpstream(request(50));
    expect(await ok.bodyText(1024)).toBe('{"ok":true}');
  });

  it("R9.1 a job whose deadline passed before its call starts is stopped at once", async () => {
    const { callUpstream } = upstreamCaller();
    // Its budget, raised to the call's own 600 s, ran out before the call began.
    const execution: ExecutionDeadline = { remainingMs: () => -5, budgetMs: 600_000, expired: false };
    await failureOf(callUpstream(request(2_000, { execution })));
    expect(execution.expired).toBe(true);
  });

  it("R13.1 the client leaving stops the call, neither deadline counts, and no listener is left behind", async () => {
    const { callUpstream } = upstreamCaller();
    const client = source();
    const execution: ExecutionDeadline = { remainingMs: () => 5_000, budgetMs: 5_000, expired: false };
    const pending = callUpstream(request(2_000, { signal: client, execution }));
    await new Promise((r) => setTimeout(r, 50));
    expect(client.listenerCount).toBe(1);
    client.abort();
    const err = await failureOf(pending);
    expect(err.timedOut).toBe(false);
    expect(execution.expired).toBe(false);

    const ok = source();
    const before = seen;
    const call = await callUpstream(request(0, { signal: ok }));
    expect(await call.bodyText(1024)).toBe('{"ok":true}');
    expect(seen).toBe(before + 1);
    await new Promise((r) => setImmediate(r));
    expect(ok.listenerCount).toBe(0);
    // undici took its 'abort' listener off the call's cancellation when the body ended.
    expect(call.signal).toBeInstanceOf(Cancellation);
    expect(call.signal.listenerCount).toBe(0);
    expect(call.signal.aborted).toBe(false);
  });

  it("issue 12: a Cancellation aborts once with an AbortError reason, like an AbortSignal, and runs each listener once", () => {
    const c = new Cancellation();
    const calls: string[] = [];
    const kept = () => calls.push("kept");
    const removed = () => calls.push("removed");
    c.addEventListener("abort", kept);
    c.addEventListener("abort", removed);
    c.removeEventListener("abort", removed);
    expect(c.listenerCount).toBe(1);
    c.abort();
    c.abort(new Error("again"));
    expect(calls).toEqual(["kept"]);
    expect(c.aborted).toBe(true);
    expect(c.reason).toBeInstanceOf(DOMException);
    expect((c.reason as DOMException).name).toBe("AbortError");
    c.addEventListener("abort", kept);
    expect(c.listenerCount).toBe(0);
    const timedOut = new Cancellation();
    timedOut.abort(new DOMException("late", "TimeoutError"));
    expect((timedOut.reason as DOMException).name).toBe("TimeoutError");
  });

  it("R13.1 a client already gone never reaches the upstream", async () => {
    const { callUpstream } = upstreamCaller();
    const gone = source();
    gone.abort();
    const before = seen;
    await failureOf(callUpstream(request(0, { signal: gone })));
    await new Promise((r) => setTimeout(r, 50));
    expect(seen).toBe(before);
  });
});
