// Issue 13 item 3: `kill -9` the server while cooldowns, breakers, settings, pins, leases and
// request-log rows are being written; restart on the same home. The database passes
// PRAGMA integrity_check, every write the server acknowledged before the kill is still there,
// persisted breakers and cooldowns come back, leases and pins are intact.
import Database from "better-sqlite3";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../main/simulator/index.js";
import { saveReport } from "../chaos/runDriver.js";
import { startServer, type ServerProcess } from "./server.js";

const FULL = process.env.CHAOS_FULL === "1";
const ROUNDS = FULL ? 5 : 1;
const LOAD_MS = FULL ? 3_000 : 1_500;
const TOKEN = "crash-admin-token";
const homes: string[] = [];
const servers: ServerProcess[] = [];
let sim: Simulator | undefined;

afterAll(async () => {
  for (const s of servers) await s.stop().catch(() => undefined);
  await sim?.close();
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});

const chat = (model: string) => ({ model, messages: [{ role: "user", content: "hi" }] });

/** What the server acknowledged before it was killed: each must survive the kill. */
interface Acked {
  ttl: number;
  maxWaitMs: number;
  pins: Map<string, string>;
  cooling: Map<string, number>;
  logRows: number;
  sent: { ttl: Set<number>; maxWaitMs: Set<number> };
}

async function setup(server: ServerProcess, simUrl: string): Promise<{ key: string; owner: string; generation: number }> {
  const provider = async (id: string, keys: string[], category = "apikey") => {
    expect((await server.api("POST", "/api/providers", { id, format: "openai", baseUrl: `${simUrl}/v1`, category, models: ["m1"] })).status).toBe(201);
    for (const [i, apiKey] of keys.entries()) {
      expect((await server.api("POST", "/api/connections", { id: `${id}-c${i}`, provider: id, apiKey, priority: i })).status).toBe(201);
    }
  };
  await provider("brk", ["k-brk-1", "k-brk-2"], "local");
  await provider("pin", ["k-pin-1", "k-pin-2", "k-pin-3"]);
  await provider("flaky", ["k-flaky-1", "k-flaky-2", "k-flaky-3", "k-flaky-4", "k-flaky-ok"]);
  // The breaker opens before the load (local: failureThreshold 2), so the kill finds it persisted.
  await server.post("/v1/chat/completions", chat("brk/m1"));
  await server.post("/v1/chat/completions", chat("brk/m1"));
  const key = (await server.api("POST", "/api/keys", { name: "lease", scopes: ["lease:exclusive"], allowedConnections: ["pin-c2"] })).body.key as string;
  const owner = `vlo_${randomBytes(32).toString("base64url")}`;
  const acquired = await server.post("/api/v1/session-leases", { action: "acquire", owner }, { authorization: `Bearer ${key}` });
  expect(acquired.status).toBe(200);
  return { key, owner, generation: acquired.body.generation as number };
}

async function noteCooling(server: ServerProcess, acked: Acked): Promise<void> {
  const list = await server.api("GET", "/api/connections?provider=flaky");
  for (const c of list.body as Array<{ id: string; rateLimitedUntil: number | null }>) {
    if (c.rateLimitedUntil !== null && c.rateLimitedUntil > Date.now() + 60_000) acked.cooling.set(c.id, c.rateLimitedUntil);
  }
}

/** Mixed writes until `stopAt`; records only what came back acknowledged. */
async function load(server: ServerProcess, dbPath: string, stopAt: number, acked: Acked, round: number): Promise<void> {
  let n = 0;
  const worker = async (kind: number): Promise<void> => {
    while (Date.now() < stopAt) {
      const i = n++;
      try {
        if (kind === 0) {
          const ttl = 600_000 + round * 10_000 + i;
          acked.sent.ttl.add(ttl);
          const r = await server.api("PATCH", "/api/settings", { sessionAffinityTtlMs: ttl });
          if (r.status === 200) acked.ttl = Math.max(acked.ttl, ttl);
        } else if (kind === 1) {
          const maxWaitMs = 10_000 + round * 10_000 + i;
          acked.sent.maxWaitMs.add(maxWaitMs);
          const r = await server.api("PATCH", "/api/resilience", { comboCooldownWait: { maxWaitMs } });
          if (r.status === 200) acked.maxWaitMs = Math.max(acked.maxWaitMs, maxWaitMs);
        } else if (kind === 2) {
          const session = `crash-${round}-${i}`;
          const r = await server.post("/v1/chat/completions", chat("pin/m1"), { "x-session-id": session });
          const conn = r.headers.get("x-omniroute-selected-connection-id");
          if (r.status === 200 && conn) acked.pins.set(session, conn);
        } else if (kind === 3) {
          await server.post("/v1/chat/completions", chat("flaky/m1"));
          await noteCooling(server, acked);
        } else {
          // A reader beside the server: rows it can see are committed, so they must survive.
          const db = new Database(dbPath, { readonly: true, fileMustExist: true });
          try {
            const { n: rows } = db.prepare("SELECT COUNT(*) AS n FROM request_log").get() as { n: number };
            acked.logRows = Math.max(acked.logRows, rows);
          } finally {
            db.close();
          }
          await new Promise((r) => setTimeout(r, 50));
        }
      } catch {
        // The kill lands in the middle of some calls: those were never acknowledged.
      }
    }
  };
  await Promise.all([0, 1, 2, 2, 2, 3, 3, 4].map(worker));
}

it("R10.2 R2.5 R4.1 R7.1 R7.2 R15.1 kill -9 under load loses nothing acknowledged; the database stays intact", { timeout: 30_000 * ROUNDS + 30_000 }, async () => {
  expect(existsSync(path.resolve("dist/main/cli.js")), "dist/ is missing: run `node scripts/build.mjs` first").toBe(true);
  let draw = 0;
  // Four of five flaky connections are rate limited now and then, for 10 minutes each time.
  sim = await startSimulator({
    label: "crash",
    recordLimit: 0,
    pickFault: (r) => {
      if (r.key?.startsWith("k-brk")) return { status: 503 };
      if (r.key?.startsWith("k-flaky-") && r.key !== "k-flaky-ok" && draw++ % 3 === 0) return { status: 429, retryAfter: 600 };
      return undefined;
    },
  });
  const home = mkdtempSync(path.join(tmpdir(), "switchyard-crash-"));
  homes.push(home);
  const dbPath = path.join(home, "switchyard.db");
  let server = await startServer(home, TOKEN);
  servers.push(server);
  const lease = await setup(server, sim.url);
  const acked: Acked = { ttl: 0, maxWaitMs: 0, pins: new Map(), cooling: new Map(), logRows: 0, sent: { ttl: new Set(), maxWaitMs: new Set() } };
  const figures: Array<Record<string, number>> = [];
  let breaker: { state: string; failure_count: number; open_until: number } | undefined;

  // One cooldown is certain before the load; more are written during it.
  await server.post("/v1/chat/completions", chat("flaky/m1"));
  await noteCooling(server, acked);
  expect(acked.cooling.size).toBeGreaterThan(0);

  for (let round = 0; round < ROUNDS; round++) {
    const stopAt = Date.now() + LOAD_MS + 1_000;
    const running = load(server, dbPath, stopAt, acked, round);
    // The kill lands while every kind of write is in flight.
    await new Promise((r) => setTimeout(r, LOAD_MS));
    await server.kill9();
    await running;

    const db = new Database(dbPath);
    try {
      expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
      const rows = (db.prepare("SELECT COUNT(*) AS n FROM request_log").get() as { n: number }).n;
      expect(rows).toBeGreaterThanOrEqual(acked.logRows);
      const pins = new Map(
        (db.prepare("SELECT session_key, connection_id FROM session_account_affinity").all() as Array<{ session_key: string; connection_id: string }>).map((r) => [
          r.session_key,
          r.connection_id,
        ]),
      );
      for (const [session, conn] of acked.pins) expect(pins.get(session), session).toBe(conn);
      breaker = db.prepare("SELECT state, failure_count, open_until FROM domain_circuit_breakers WHERE provider = 'brk'").get() as typeof breaker;
      expect(["OPEN", "HALF_OPEN"]).toContain(breaker?.state);
      figures.push({ round, pins: acked.pins.size, cooling: acked.cooling.size, logRowsSeen: acked.logRows, logRowsAfter: rows });
    } finally {
      db.close();
    }

    server = await startServer(home, TOKEN);
    servers.push(server);
    expect((await server.api("GET", "/api/settings")).body.sessionAffinityTtlMs).toBeGreaterThanOrEqual(acked.ttl);
    expect(acked.sent.ttl.has((await server.api("GET", "/api/settings")).body.sessionAffinityTtlMs)).toBe(true);
    const wait = (await server.api("GET", "/api/resilience")).body.comboCooldownWait.maxWaitMs as number;
    expect(wait).toBeGreaterThanOrEqual(acked.maxWaitMs);
    expect(acked.sent.maxWaitMs.has(wait)).toBe(true);
    const health = (await server.api("GET", "/api/monitoring/health")).body;
    // The persisted breaker comes back as it was: OPEN until its stored open_until, HALF_OPEN after
    // (or as stored HALF_OPEN); never reset to CLOSED by the crash.
    const restored = health.providerBreakers.find((b: { provider: string }) => b.provider === "brk");
    expect(restored?.failureCount).toBe(breaker!.failure_count);
    expect(restored?.state).not.toBe("CLOSED");
    const left = breaker!.open_until - Date.now();
    if (breaker!.state === "HALF_OPEN") expect(restored?.state).toBe("HALF_OPEN");
    else if (Math.abs(left) > 1_000) expect(restored?.state).toBe(left > 0 ? "OPEN" : "HALF_OPEN");
    for (const [id, until] of acked.cooling) expect((await server.api("GET", `/api/connections/${id}`)).body.rateLimitedUntil, id).toBe(until);
    const renewed = await server.post("/api/v1/session-leases", { action: "renew", owner: lease.owner, generation: lease.generation }, { authorization: `Bearer ${lease.key}` });
    expect(renewed.status, renewed.text).toBe(200);
    expect(renewed.body.generation).toBe(lease.generation);
    // A pin taken before the kill still routes its session to the same connection.
    const [session, conn] = [...acked.pins][acked.pins.size - 1] ?? [];
    if (session) {
      const again = await server.post("/v1/chat/completions", chat("pin/m1"), { "x-session-id": session });
      expect(again.headers.get("x-omniroute-selected-connection-id")).toBe(conn);
    }
  }
  expect(acked.pins.size).toBeGreaterThan(0);
  expect(acked.cooling.size).toBeGreaterThan(0);
  expect(acked.logRows).toBeGreaterThan(0);
  saveReport(`crash${FULL ? "-full" : ""}.json`, { rounds: ROUNDS, figures });
  await server.stop();
});
