// The gateway side of R7: session keys (D7 order, hashing), lease context parsing, and how one
// request's selection orders pins and skips other owners' leases.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Connection } from "../../../shared/types.js";
import { LeaseBook, type Lease } from "../../../main/engine/leases.js";
import { SessionPins } from "../../../main/engine/sessionAffinity.js";
import { hashOwnerToken, leaseContextOf } from "../../../main/gateway/http/leaseContext.js";
import { leaseInService } from "../../../main/gateway/pipeline/leaseEligibility.js";
import { boundedLeaseRetryMs, createRequestSession } from "../../../main/gateway/context/requestSession.js";
import { clientHalf } from "../../../main/gateway/formats/index.js";
import { sessionKeyOf } from "../../../main/gateway/http/sessionKey.js";
import { connection, fakeClock, harness, provider } from "../engine/fixtures.js";
import { MemoryLeaseStore, MemoryPinStore } from "./memoryStores.js";

/** What an OpenAI chat client's half reads from the body (D7's body fields). */
const hint = (body: Record<string, unknown>) => () => clientHalf("openai").sessionHint(body);

describe("session key (D7)", () => {
  it("D7 headers win in order x-codex-session-id, x-session-id, x-omniroute-session, then the body fields in order", () => {
    const body = { metadata: { session_id: "m" }, conversation_id: "c", session_id: "s", prompt_cache_key: "p" };
    expect(sessionKeyOf({ "x-omniroute-session": "o", "x-session-id": "x", "x-codex-session-id": "cx" }, hint(body))).toBe("cx");
    expect(sessionKeyOf({ "x-omniroute-session": "o", "x-session-id": "x" }, hint(body))).toBe("x");
    expect(sessionKeyOf({ "x-omniroute-session": "o" }, hint(body))).toBe("o");
    expect(sessionKeyOf({}, hint(body))).toBe("m");
    expect(sessionKeyOf({}, hint({ ...body, metadata: {} }))).toBe("c");
    expect(sessionKeyOf({}, hint({ session_id: "s", prompt_cache_key: "p" }))).toBe("s");
    expect(sessionKeyOf({}, hint({ prompt_cache_key: "p" }))).toBe("p");
    expect(sessionKeyOf({}, hint({}))).toBeNull();
  });

  it("R16.5 Codex's session-id and thread-id headers are session keys, after D7's own headers", () => {
    expect(sessionKeyOf({ "session-id": "cs", "thread-id": "ct" }, hint({ prompt_cache_key: "p" }))).toBe("cs");
    expect(sessionKeyOf({ "thread-id": "ct" }, hint({ prompt_cache_key: "p" }))).toBe("ct");
    expect(sessionKeyOf({ "x-codex-session-id": "cx", "session-id": "cs" }, hint({}))).toBe("cx");
  });

  it("D7 keys of up to 180 characters of [A-Za-z0-9._:-] are kept; others become their SHA-256", () => {
    const ok = "a".repeat(180);
    expect(sessionKeyOf({ "x-session-id": ok }, hint({}))).toBe(ok);
    for (const raw of ["a".repeat(181), "has space", "ümlaut", "a/b"]) {
      expect(sessionKeyOf({ "x-session-id": raw }, hint({}))).toBe(`sha256:${createHash("sha256").update(raw).digest("hex")}`);
    }
  });
});

describe("lease context (D7)", () => {
  const token = `vlo_${"A".repeat(43)}`;
  it("D7 owner vlo_ + 43 base64url characters, a positive integer generation; only the hash goes on", () => {
    expect(leaseContextOf({})).toEqual({ kind: "none" });
    expect(leaseContextOf({ "x-omniroute-lease-generation": "3" }).kind).toBe("required");
    expect(leaseContextOf({ "x-omniroute-lease-owner": `vlo_${"A".repeat(42)}` }).kind).toBe("invalid");
    expect(leaseContextOf({ "x-omniroute-lease-owner": token, "x-omniroute-lease-generation": "0" }).kind).toBe("invalid");
    expect(leaseContextOf({ "x-omniroute-lease-owner": token, "x-omniroute-lease-generation": "7" })).toEqual({ kind: "present", ownerHash: hashOwnerToken(token), generation: 7 });
    expect(leaseContextOf({}, { owner: token, generation: 2 })).toEqual({ kind: "present", ownerHash: hashOwnerToken(token), generation: 2 });
    expect(hashOwnerToken(token)).not.toContain(token);
  });
});

describe("request session (R7.1, R7.2, R11.2)", () => {
  const conns: Connection[] = ["c1", "c2", "c3"].map((id) => connection({ id }));
  const setup = () => {
    const clock = fakeClock();
    const pins = new SessionPins(new MemoryPinStore(), clock, () => 60_000);
    const leases = new LeaseBook(new MemoryLeaseStore(), clock, 30_000);
    return { clock, pins, leases };
  };

  it("R7.1 the session names its pinned connection and model; the pin moves to whichever connection answers", () => {
    const deps = setup();
    deps.pins.served("s", "p", "c3");
    const session = createRequestSession(deps, { sessionKey: "s", leaseOwnerHash: null });
    expect(session.pinnedConnectionId()).toBe("c3");
    expect(createRequestSession(deps, { sessionKey: null, leaseOwnerHash: null }).pinnedConnectionId()).toBeNull();
    session.served("p", "c1", "m1");
    expect(deps.pins.pinned("s")).toMatchObject({ provider: "p", connectionId: "c1", model: "m1" });
    expect(session.pin()).toMatchObject({ connectionId: "c1", model: "m1" });
  });

  it("R11.2 connections leased by another owner are skipped; when nothing else is left the answer is 429 LEASE_CAPACITY_UNAVAILABLE", () => {
    const deps = setup();
    deps.leases.acquire("A", "k", ["c1"]);
    const mine = createRequestSession(deps, { sessionKey: null, leaseOwnerHash: "A" });
    expect(
      conns
        .slice(0, 1)
        .filter((c) => mine.isFree(c))
        .map((c) => c.id),
    ).toEqual(["c1"]);
    const other = createRequestSession(deps, { sessionKey: null, leaseOwnerHash: null });
    expect(conns.filter((c) => other.isFree(c)).map((c) => c.id)).toEqual(["c2", "c3"]);
    expect(other.capacityRefusal()).toBeNull();
    const blocked = createRequestSession(deps, { sessionKey: null, leaseOwnerHash: null });
    deps.clock.advance(10_000);
    expect(blocked.isFree(conns[0])).toBe(false);
    expect(blocked.capacityRefusal()).toMatchObject({ status: 429, code: "LEASE_CAPACITY_UNAVAILABLE", retryAfterMs: 20_000 });
  });

  it("R7.2 Retry-After of a lease refusal is bounded to 1–120 s", () => {
    expect(boundedLeaseRetryMs(10)).toBe(1_000);
    expect(boundedLeaseRetryMs(500_000)).toBe(120_000);
    expect(boundedLeaseRetryMs(null)).toBe(120_000);
    expect(boundedLeaseRetryMs(42_000)).toBe(42_000);
  });
});

describe("a lease whose connection can no longer serve (R7.2)", () => {
  it("R7.2 a terminal, cooling or missing connection's lease moves to a free eligible one of the key, its own provider's first; with none free it stays", () => {
    const alpha = provider({ id: "alpha" });
    const beta = provider({ id: "beta" });
    const conns = [
      connection({ id: "a1", provider: "alpha" }),
      connection({ id: "b1", provider: "beta" }),
      connection({ id: "a2", provider: "alpha" }),
      connection({ id: "a3", provider: "alpha" }),
    ];
    const h = harness({ connections: conns });
    const leases = new LeaseBook(new MemoryLeaseStore(), h.clock, 600_000);
    const deps = {
      leases,
      engine: h.engine,
      connectionById: (id: string) => h.store.list().find((c) => c.id === id) ?? null,
      providerById: (id: string) => [alpha, beta].find((p) => p.id === id) ?? null,
    };
    const allowed = ["a1", "b1", "a2", "a3"];
    const mine = (leases.acquire("A", "k", allowed) as { lease: Lease }).lease;
    leases.acquire("B", "k", ["a2"]);
    expect(leaseInService(deps, mine, allowed)).toBe(mine);
    h.store.updateRuntime("a1", { testStatus: "expired" });
    const moved = leaseInService(deps, mine, allowed);
    expect(moved).toMatchObject({ connectionId: "a3", generation: mine.generation });
    h.store.updateRuntime("a3", { rateLimitedUntil: h.clock.now() + 60_000 });
    expect(leaseInService(deps, moved, allowed)).toMatchObject({ connectionId: "b1", generation: mine.generation });
    const gone = { ...deps, connectionById: (id: string) => (id === "b1" ? null : deps.connectionById(id)) };
    const onB1 = leases.fence("A", "k", mine.generation)!;
    expect(leaseInService(gone, onB1, allowed)).toBe(onB1);
    h.clock.advance(60_000);
    expect(leaseInService(gone, onB1, allowed)).toMatchObject({ connectionId: "a3", generation: mine.generation });
  });
});
