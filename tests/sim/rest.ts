// The promises checked at rest: permits, queues and leases drain to zero (I5), a restart loses
// nothing saved (I6), and no secret appears in the management API, an export, /metrics or any file of
// the data folder (I8).
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { World } from "./world.js";

type Json = Record<string, any>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** I5: no permit held and nothing queued at any gate once the request is answered. */
export async function drained(world: World): Promise<string | null> {
  let busy: Json[] = [];
  for (let i = 0; i < 10; i++) {
    const health = (await world.gw.api<Json>("GET", "/api/monitoring/health")).body;
    busy = ((health?.queues ?? []) as Json[]).filter((q) => q.inFlight !== 0 || q.queued !== 0);
    if (busy.length === 0) return null;
    await sleep(50);
  }
  return `at rest ${busy.map((q) => `${q.scope} ${String(q.connectionId ?? q.provider ?? "global")} inFlight ${q.inFlight} queued ${q.queued}`).join("; ")}`;
}

/** I5: once the lease is handed back, none is left. */
export async function leasesDrained(world: World): Promise<string | null> {
  const items = ((await world.gw.api<Json>("GET", "/api/sessions/leases")).body?.items ?? []) as Json[];
  return items.length === 0 ? null : `${items.length} lease(s) left after release`;
}

/** I14: a context refusal cools nothing: no connection, lockout or breaker names it as its cause (R25.2). */
export async function contextCoolsNothing(world: World): Promise<string | null> {
  const cooldowns = ((await world.gw.api<Json>("GET", "/api/resilience/cooldowns")).body?.items ?? []) as Json[];
  for (const item of cooldowns) {
    if (item.lastErrorType === "context_overflow") return `R25.2 ${String(item.connectionId)} is ${String(item.status)} after a context refusal`;
    const lock = ((item.lockouts ?? []) as Json[]).find((l) => l.reason === "context_overflow");
    if (lock) return `R25.2 ${String(item.connectionId)} has ${String(lock.model)} locked out for a context refusal`;
  }
  const breakers = ((await world.gw.api<Json>("GET", "/api/monitoring/health")).body?.providerBreakers ?? []) as Json[];
  const moved = breakers.find((b) => b.lastFailureKind === "context_overflow");
  return moved ? `R25.2 the breaker of ${String(moved.provider)} counted a context refusal` : null;
}

const RUNTIME_FIELDS = new Set([
  "testStatus",
  "rateLimitedUntil",
  "backoffLevel",
  "lastError",
  "lastErrorType",
  "errorCode",
  "budgetUsed",
  "lastUsedAt",
  "updatedAt",
  "lastSeenAt",
  "consecutiveUseCount",
]);

/** What the user saved: config, keys, account rows, settings, and the request log. */
export async function snapshot(world: World): Promise<Json> {
  const get = async (route: string) => (await world.gw.api("GET", route)).body as unknown;
  const strip = (rows: unknown) => (Array.isArray(rows) ? rows.map((r: Json) => Object.fromEntries(Object.entries(r).filter(([k]) => !RUNTIME_FIELDS.has(k)))) : rows);
  await sleep(300); // the request log's batched writes
  const logs = ((await get("/api/logs?limit=1000")) as Json[]).map((r) => r.id as string);
  return {
    providers: await get("/api/providers"),
    connections: strip(await get("/api/connections")),
    combos: await get("/api/combos"),
    keys: strip(await get("/api/keys")),
    settings: await get("/api/settings"),
    resilience: await get("/api/resilience"),
    logs,
  };
}

function sortById(v: unknown): unknown {
  return Array.isArray(v) ? [...v].sort((a: Json, b: Json) => String(a.id ?? a.name).localeCompare(String(b.id ?? b.name))) : v;
}

/** I6: the same config after the restart, and every logged row still there. */
export function compareSnapshots(before: Json, after: Json): string | null {
  for (const part of ["providers", "connections", "combos", "keys", "settings", "resilience"]) {
    const a = JSON.stringify(sortById(before[part]));
    const b = JSON.stringify(sortById(after[part]));
    if (a !== b) return `${part} changed across the restart: ${firstDifference(a, b)}`;
  }
  const kept = new Set(after.logs as string[]);
  const lost = (before.logs as string[]).filter((id) => !kept.has(id));
  return lost.length > 0 ? `${lost.length} request-log row(s) lost across the restart` : null;
}

function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `…${a.slice(Math.max(0, i - 60), i + 40)} became …${b.slice(Math.max(0, i - 60), i + 40)}`;
}

function filesUnder(dir: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    const st = statSync(full);
    if (st.isDirectory()) out.push(...filesUnder(full));
    else out.push([full, readFileSync(full).toString("latin1")]);
  }
  return out;
}

/**
 * I8: no login, Switchyard key or lease owner in the API's answers, an export, /metrics or the data
 * folder; no held key in an answer either (a held key is the user's own saved secret, so the data
 * folder may keep it).
 */
export async function secretsKept(world: World, heldKeys: string[]): Promise<string | null> {
  await sleep(300);
  const logs = (await world.gw.api<Json[]>("GET", "/api/logs?limit=1000")).body ?? [];
  const details = await Promise.all(logs.slice(0, 40).map(async (r) => (await world.gw.api("GET", `/api/logs/${r.id}`)).text));
  const routes = [
    "/api/connections",
    "/api/config/export",
    "/api/usage/quotas",
    "/api/resilience/cooldowns",
    "/api/keys",
    "/api/sessions/leases",
    "/api/monitoring/health",
    "/metrics",
  ];
  const answers: Array<[string, string]> = [["/api/logs", JSON.stringify(logs)], ...details.map((t, i): [string, string] => [`/api/logs/${logs[i].id}`, t])];
  for (const route of routes) answers.push([route, (await world.gw.api("GET", route)).text]);
  const never = [...world.secrets].filter((s) => s && !heldKeys.includes(s));
  for (const [where, text] of answers) {
    const found = [...never, ...heldKeys].find((s) => text.includes(s));
    if (found) return `${where} shows a secret (${found.slice(0, 12)}…)`;
  }
  for (const [file, text] of filesUnder(world.homeDir)) {
    const found = never.find((s) => text.includes(s));
    if (found) return `${path.basename(file)} in the data folder holds a secret (${found.slice(0, 12)}…)`;
  }
  return null;
}
