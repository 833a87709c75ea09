import { afterEach, describe, expect, it, vi } from "vitest";
import type { RequestLogEntry } from "../../../shared/types.js";
import { openHarness, withCacheReadShare, type StoreHarness } from "./storeFixture.js";

let seq = 0;
function entry(overrides: Partial<RequestLogEntry> = {}): RequestLogEntry {
  seq += 1;
  return withCacheReadShare({
    id: `req-${seq}`,
    time: 1_700_000_000_000 + seq,
    transport: "http",
    clientFormat: "openai",
    model: "gpt-x",
    combo: null,
    provider: "openai",
    connectionId: "c1",
    status: 200,
    errorCode: null,
    latencyMs: 120,
    ttfbMs: 40,
    stream: false,
    inputTokens: 10,
    outputTokens: 20,
    // R18.1: every token kind, the cost and the key round-trip too.
    cacheReadTokens: 4,
    cacheWriteTokens: 0,
    reasoningTokens: 3,
    costUsd: 0.00012,
    costSource: "catalog",
    costNotional: true,
    apiKeyId: "key_x",
    servedModel: "openai/gpt-x",
    attempts: [{ provider: "openai", connectionId: "c1", model: "gpt-x", status: 200, verdict: null, latencyMs: 118 }],
    ...overrides,
  });
}

describe("request log", () => {
  let h: StoreHarness;
  const errors: Error[] = [];
  const open = (logRetention?: number) => {
    h = openHarness({ logRetention, onLogError: (err) => errors.push(err) });
    return h;
  };
  const storedRows = () => (h.raw().prepare("SELECT count(*) AS n FROM request_log").get() as { n: number }).n;

  afterEach(() => {
    vi.useRealTimers();
    h.cleanup();
    errors.length = 0;
  });

  it("R15.1 buffers appends and writes a batch of 1000 in one go", () => {
    open();
    for (let i = 0; i < 999; i++) h.store.logs.append(entry());
    expect(storedRows()).toBe(0);
    h.store.logs.append(entry());
    expect(storedRows()).toBe(1000);
  });

  it("R15.1 writes a partial batch after 250 ms", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    open();
    h.store.logs.append(entry());
    h.store.logs.append(entry());
    vi.advanceTimersByTime(249);
    expect(storedRows()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(storedRows()).toBe(2);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("R15.1 flush writes synchronously and cancels the pending timer", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    open();
    h.store.logs.append(entry());
    expect(vi.getTimerCount()).toBe(1);
    h.store.logs.flush();
    expect(storedRows()).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
    h.store.logs.flush();
    expect(storedRows()).toBe(1);
  });

  it("R15.1 round-trips every field, newest first, including entries still buffered", () => {
    open();
    const older = entry({ stream: true, combo: "smart", errorCode: "rate_limited", status: 429, ttfbMs: null });
    const newer = entry({ inputTokens: null, outputTokens: null, connectionId: null, provider: null, attempts: [] });
    h.store.logs.append(older);
    h.store.logs.flush();
    h.store.logs.append(newer);
    expect(h.store.logs.list({})).toEqual([newer, older]);
  });

  it("R15.1 filters by provider, model and status and bounds the limit", () => {
    open();
    h.store.logs.append(entry({ provider: "openai", model: "a", status: 200 }));
    h.store.logs.append(entry({ provider: "anth", model: "b", status: 429 }));
    h.store.logs.append(entry({ provider: "openai", model: "b", status: 429 }));
    const ids = (q: Parameters<typeof h.store.logs.list>[0]) => h.store.logs.list(q).map((e) => e.id);
    const [first, second, third] = ids({}).reverse();
    expect(ids({ provider: "openai" })).toEqual([third, first]);
    expect(ids({ model: "b" })).toEqual([third, second]);
    expect(ids({ status: 429, provider: "anth" })).toEqual([second]);
    expect(ids({ limit: 2 })).toEqual([third, second]);
    expect(ids({ limit: 0 })).toEqual([third]);
    expect(ids({ provider: "nobody" })).toEqual([]);
  });

  it("R15.1 lists 100 entries by default and at most 1000", () => {
    open();
    for (let i = 0; i < 1_050; i++) h.store.logs.append(entry());
    expect(h.store.logs.list({})).toHaveLength(100);
    expect(h.store.logs.list({ limit: 5_000 })).toHaveLength(1_000);
  });

  it("R15.1 keeps only the newest logRetention rows", () => {
    open(5);
    const appended = Array.from({ length: 12 }, () => entry());
    for (const e of appended) h.store.logs.append(e);
    h.store.logs.flush();
    expect(storedRows()).toBe(5);
    expect(h.store.logs.list({}).map((e) => e.id)).toEqual(
      appended
        .slice(-5)
        .reverse()
        .map((e) => e.id),
    );
  });

  it("R15.1 keeps 10 000 rows by default", () => {
    open();
    for (let i = 0; i < 10_100; i++) h.store.logs.append(entry());
    h.store.logs.flush();
    expect(storedRows()).toBe(10_000);
  });

  it("R15.1 close flushes what is buffered; later appends are reported, not lost silently", () => {
    open();
    const e = entry();
    h.store.logs.append(e);
    h.store.close();
    h.store.logs.append(entry());
    expect(errors.map((err) => err.message)).toEqual([expect.stringContaining("closed")]);
    expect(h.reopen().logs.list({})).toEqual([e]);
  });

  it("R15.1 a duplicate id is reported while the rest of its batch is stored", () => {
    open();
    const e = entry();
    h.store.logs.append(e);
    h.store.logs.append({ ...e, model: "dup" });
    h.store.logs.append(entry());
    h.store.logs.flush();
    expect(storedRows()).toBe(2);
    expect(errors).toHaveLength(1);
    expect(errors[0].message).toContain(e.id);
  });
});
