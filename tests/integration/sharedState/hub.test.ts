// The shared-state hub (R19) against a real redis-server: the merge rules run in Redis's Lua, the
// changes reach the other instance by pub/sub, claims are exclusive, and writes made while Redis
// was down are merged by the same rules when it returns.
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createRedisSharedState, stateHashKey } from "../../../main/group/redisState.js";
import { createLocalSharedState } from "../../../main/group/follow.js";
import type { SharedEntry, SharedKind, SharedState } from "../../../main/engine/sharedState.js";
import { startRedis, type RedisProcess } from "../admission/processes.js";

let redis: RedisProcess;
let raw: Redis;
const hubs: SharedState[] = [];
let keySeq = 0;

/** A key no other test touches, so the tests share one Redis without seeing each other. */
const freshKey = () => `prov/conn-${++keySeq}-${Date.now()}`;

function hub(url = redis.url): SharedState {
  const h = createRedisSharedState(url);
  hubs.push(h);
  return h;
}

/** What an instance's memory would hold: every entry the hub delivered, by key. */
function mirror(h: SharedState, kind: SharedKind): Map<string, SharedEntry> {
  const seen = new Map<string, SharedEntry>();
  h.subscribe(kind, (key, entry) => seen.set(key, entry));
  return seen;
}

async function until(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Lets a write that should change nothing reach Redis before the stored entry is read. */
const settle = (ms = 120) => new Promise((r) => setTimeout(r, ms));

const ready = (...hs: SharedState[]) => until(() => hs.every((h) => h.status().status === "ok"));
const stored = async (kind: SharedKind, key: string) => JSON.parse((await raw.hget(stateHashKey(kind), key)) ?? "null") as SharedEntry | null;

function cooldown(level: number, base: number, untilMs: number, extra: Partial<SharedEntry> = {}) {
  return { value: { backoffLevel: level, rateLimitedUntil: untilMs }, at: Date.now(), until: untilMs, base, level, ...extra };
}

beforeAll(async () => {
  redis = await startRedis();
  raw = new Redis(redis.url);
});

afterEach(async () => {
  await Promise.all(hubs.splice(0).map((h) => h.close()));
});

afterAll(async () => {
  raw?.disconnect();
  await redis?.stop();
});

describe("merge rules in Redis (R19.2)", () => {
  it("R19.2 anti-thundering-herd: two instances raising from the same base 0 leave the level at 1; a raise from base 1 still reaches 2", async () => {
    const [a, b] = [hub(), hub()];
    await ready(a, b);
    const key = freshKey();
    const end = Date.now() + 20_000;
    a.write("runtime", key, cooldown(1, 0, end), "until");
    b.write("runtime", key, cooldown(1, 0, end + 5), "until");
    // B's same-incident write carried a slightly later end: it extends the wait, never the level.
    await settle(150);
    expect((await stored("runtime", key))?.level).toBe(1);
    b.write("runtime", key, cooldown(0, 0, end + 10_000), "until");
    await settle(100);
    const herd = await stored("runtime", key);
    expect(herd?.level).toBe(1);
    expect(herd?.until).toBe(end + 10_000);
    a.write("runtime", key, cooldown(2, 1, end + 20_000), "until");
    await settle(100);
    expect((await stored("runtime", key))?.level).toBe(2);
  });

  it("R19.2 a terminal entry is kept against a later non-forced write; a forced write (operator reset) replaces it", async () => {
    const [a, b] = [hub(), hub()];
    const seenByA = mirror(a, "runtime");
    await ready(a, b);
    const key = freshKey();
    a.write("runtime", key, { value: { testStatus: "banned" }, at: Date.now(), until: null, terminal: true }, "until");
    await until(() => seenByA.get(key)?.terminal === true);
    b.write("runtime", key, cooldown(1, 0, Date.now() + 60_000, { at: Date.now() + 1_000 }), "until");
    b.write("runtime", key, { value: null, at: Date.now() + 2_000, until: null }, "until");
    await settle(150);
    expect((await stored("runtime", key))?.terminal).toBe(true);
    expect(seenByA.get(key)?.terminal).toBe(true);
    b.write("runtime", key, { value: null, at: Date.now(), until: null, force: true }, "until");
    await until(() => seenByA.get(key)?.value === null);
    expect(seenByA.get(key)?.force).toBe(true);
  });

  it("R19.3 the later until wins whatever order the writes arrive in; lww keeps the later write", async () => {
    const [a, b] = [hub(), hub()];
    await ready(a, b);
    const key = freshKey();
    const now = Date.now();
    a.write("lockout", key, { value: { reason: "x" }, at: now + 5, until: now + 90_000 }, "until");
    await settle(80);
    b.write("lockout", key, { value: { reason: "y" }, at: now + 10, until: now + 30_000 }, "until");
    await settle(120);
    expect((await stored("lockout", key))?.until).toBe(now + 90_000);
    a.write("pin", key, { value: "c1", at: now + 20, until: null }, "lww");
    await settle(80);
    b.write("pin", key, { value: "c0", at: now + 10, until: null }, "lww");
    await settle(120);
    expect((await stored("pin", key))?.value).toBe("c1");
  });
});

describe("delivery and claims", () => {
  it("R19.1 a write on one instance reaches the other's listener within 250 ms, and a joining instance learns the whole state", async () => {
    const [a, b] = [hub(), hub()];
    const seenByB = mirror(b, "breaker");
    await ready(a, b);
    const delays: number[] = [];
    for (let i = 0; i < 20; i++) {
      const key = freshKey();
      const start = performance.now();
      a.write("breaker", key, { value: { state: "OPEN" }, at: Date.now(), until: Date.now() + 30_000 }, "lww");
      await until(() => seenByB.has(key), 1_000);
      delays.push(performance.now() - start);
    }
    expect(Math.max(...delays)).toBeLessThan(250);
    const c = hub();
    const seenByC = mirror(c, "breaker");
    await ready(c);
    await until(() => seenByC.size >= 20);
    expect(a.status()).toMatchObject({ mode: "redis", status: "ok" });
    await until(() => (a.status().instances ?? 0) >= 3);
  });

  it("R19.2 a claim is exclusive in the group: held by one owner, taken for the other, free again after release", async () => {
    const [a, b] = [hub(), hub()];
    await ready(a, b);
    const key = `probe:${freshKey()}:1`;
    expect(await a.claim("breaker", key, a.instanceId, 5_000)).toBe("held");
    expect(await b.claim("breaker", key, b.instanceId, 5_000)).toBe("taken");
    expect(await a.claim("breaker", key, a.instanceId, 5_000)).toBe("held");
    await b.release("breaker", key, b.instanceId);
    expect(await b.claim("breaker", key, b.instanceId, 5_000)).toBe("taken");
    await a.release("breaker", key, a.instanceId);
    expect(await b.claim("breaker", key, b.instanceId, 5_000)).toBe("held");
  });

  it("R19.3 without Redis the state is local and reported ok", async () => {
    const local = createLocalSharedState();
    expect(local.status()).toEqual({ mode: "local", status: "ok" });
    expect(await local.claim("lease", "s1", "me", 1_000)).toBe("held");
  });
});

describe("Redis loss and return (R19.3)", () => {
  it("R19.3 both instances report unreachable within ~1 s, keep their writes, and merge them by the rules when Redis returns; one that started meanwhile joins", async () => {
    const own = await startRedis();
    const port = Number(new URL(own.url).port);
    const [a, b] = [hub(own.url), hub(own.url)];
    const seenByA = mirror(a, "runtime");
    const seenByB = mirror(b, "runtime");
    await ready(a, b);
    await own.stop();
    const lostAt = Date.now();
    await until(() => a.status().status === "unreachable" && b.status().status === "unreachable", 2_000);
    expect(Date.now() - lostAt).toBeLessThan(1_500);
    expect(a.status()).toEqual({ mode: "redis", status: "unreachable" });
    const now = Date.now();
    a.write("runtime", "p/shared", cooldown(1, 0, now + 20_000), "until");
    b.write("runtime", "p/shared", cooldown(1, 0, now + 30_000), "until");
    b.write("runtime", "p/banned", { value: { testStatus: "banned" }, at: now, until: null, terminal: true }, "until");
    a.write("runtime", "p/banned", cooldown(1, 0, now + 40_000, { at: now + 10 }), "until");
    expect(await a.claim("lease", "s", a.instanceId, 1_000)).toBe("unreachable");
    const late = hub(`redis://127.0.0.1:${port}`);
    const seenByLate = mirror(late, "runtime");
    const back = await startRedis(port);
    try {
      await ready(a, b, late);
      for (const seen of [seenByA, seenByB, seenByLate]) {
        await until(() => seen.get("p/shared")?.until === now + 30_000 && seen.get("p/banned")?.terminal === true).catch((e) => {
          throw new Error(`${e} ${JSON.stringify([...seen])} ${JSON.stringify([a.status(), b.status(), late.status()])}`);
        });
        expect(seen.get("p/shared")?.level).toBe(1);
      }
      expect(await a.claim("lease", "s", a.instanceId, 1_000)).toBe("held");
    } finally {
      await back.stop();
    }
  });
});
