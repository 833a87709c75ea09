// Issue 13 item 5: a whole session with known secrets (provider keys, a client key, the admin
// token, a lease owner token), including upstream errors that echo the provider key back; then
// every API response and header, every log line of the server process, every export, every row of
// every table (request log included) and the raw database files are searched: none may appear.
// Client keys and lease owners are stored only as their SHA-256.
import Database from "better-sqlite3";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../main/simulator/index.js";
import { parseSse } from "../integration/harness.js";
import { startServer, type ServerProcess } from "../crash/server.js";

const ADMIN = `adm-${randomBytes(12).toString("hex")}`;
const PROVIDER_KEY = `sk-prov-${randomBytes(12).toString("hex")}`;
const PROVIDER_KEY_2 = `sk-prov2-${randomBytes(12).toString("hex")}`;
const OWNER = `vlo_${randomBytes(32).toString("base64url")}`;
const home = mkdtempSync(path.join(tmpdir(), "switchyard-secrets-"));
let server: ServerProcess | undefined;
let sim: Simulator | undefined;

afterAll(async () => {
  await server?.stop();
  await sim?.close();
  rmSync(home, { recursive: true, force: true });
});

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");
const transcript: string[] = [];

async function call(method: string, route: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; text: string; json: any }> {
  const res = await fetch(server!.url + route, {
    method,
    headers: { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  transcript.push(`${method} ${route} -> ${res.status}\n${JSON.stringify([...res.headers])}\n${text}`);
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    // SSE and YAML stay text
  }
  return { status: res.status, text, json };
}
const admin = (method: string, route: string, body?: unknown) => call(method, route, body, { authorization: `Bearer ${ADMIN}` });

function findSecrets(text: string, secrets: string[]): string[] {
  return secrets.filter((s) => text.includes(s));
}

it(
  "R1.7 R7.2 R15.1 no provider key, client key, admin token or owner token appears in any response, log line, export, table row or database file",
  { timeout: 60_000 },
  async () => {
    // The upstream echoes the rejected credential in its error texts, as some providers do.
    sim = await startSimulator({
      label: "secrets",
      replyText: "All fine.",
      pickFault: (r) => {
        if (r.key !== PROVIDER_KEY) return undefined;
        const body = r.body as { messages?: Array<{ content?: unknown }> } | null;
        const text = JSON.stringify(body?.messages ?? "");
        if (text.includes("echo 401"))
          return {
            status: 401,
            body: JSON.stringify({ error: { message: `Incorrect API key provided: ${PROVIDER_KEY}`, type: "invalid_request_error", code: "invalid_api_key" } }),
            times: 1,
          };
        if (text.includes("echo 400")) return { status: 400, body: JSON.stringify({ error: { message: `Bad request for key ${PROVIDER_KEY}`, type: "invalid_request_error" } }) };
        if (text.includes("echo stream")) return { body: `data: {"error":{"message":"key ${PROVIDER_KEY} revoked"}}\n\n` };
        return undefined;
      },
    });
    server = await startServer(home, ADMIN);

    expect((await admin("POST", "/api/providers", { id: "sec", format: "openai", baseUrl: `${sim.url}/v1`, category: "apikey", models: ["m1"] })).status).toBe(201);
    expect((await admin("POST", "/api/connections", { id: "sec-c1", provider: "sec", apiKey: PROVIDER_KEY })).status).toBe(201);
    expect((await admin("POST", "/api/connections", { id: "sec-c2", provider: "sec", apiKey: PROVIDER_KEY_2, priority: 1 })).status).toBe(201);
    expect((await admin("POST", "/api/combos", { name: "sec-combo", targets: [{ model: "sec/m1" }] })).status).toBe(201);
    const created = await admin("POST", "/api/keys", { name: "agent", scopes: ["lease:exclusive"], allowedConnections: ["sec-c1", "sec-c2"] });
    expect(created.status).toBe(201);
    const CLIENT_KEY = created.json.key as string;
    // The creation answer is the one place the client key may appear (shown once, API.md).
    transcript.pop();
    expect((await admin("PATCH", "/api/settings", { requireClientKey: true })).status).toBe(200);

    const secrets = [ADMIN, PROVIDER_KEY, PROVIDER_KEY_2, CLIENT_KEY, OWNER];
    const asClient = { authorization: `Bearer ${CLIENT_KEY}` };
    const chat = (content: string, stream = false) => ({ model: "sec/m1", stream, messages: [{ role: "user", content }] });

    expect((await call("POST", "/v1/chat/completions", chat("hello"), asClient)).status).toBe(200);
    expect((await call("POST", "/v1/chat/completions", chat("hello", true), { "x-api-key": CLIENT_KEY })).status).toBe(200);
    expect((await call("POST", "/v1/messages", { ...chat("hello"), max_tokens: 16 }, { "x-api-key": CLIENT_KEY, "x-session-id": "s-secret-test" })).status).toBe(200);
    // Connection 1 answers these with its key in the text: a client-side 400 goes back to the
    // client, an error inside a stream and a 401 fail over to connection 2.
    const rejected = await call("POST", "/v1/chat/completions", chat("echo 400"), asClient);
    expect(rejected.status).toBe(400);
    // The upstream did echo the key: the gateway's redaction is what keeps it out.
    expect(rejected.text).toContain("[redacted]");
    const streamed = await call("POST", "/v1/chat/completions", chat("echo stream", true), asClient);
    expect(parseSse(streamed.text).length).toBeGreaterThan(0);
    expect((await call("POST", "/v1/chat/completions", chat("echo 401"), asClient)).status).toBe(200);
    expect((await call("POST", "/v1/chat/completions", chat("hello"), { authorization: `Bearer ${ADMIN}` })).status).toBe(401);
    expect((await call("POST", "/v1/chat/completions", chat("hello"), { authorization: `Bearer ${PROVIDER_KEY}` })).status).toBe(401);
    expect((await call("POST", "/api/providers", {}, { authorization: `Bearer ${CLIENT_KEY}` })).status).toBe(401);
    const lease = await call("POST", "/api/v1/session-leases", { action: "acquire", owner: OWNER }, asClient);
    expect(lease.status).toBe(200);
    const leased = { ...asClient, "x-omniroute-lease-owner": OWNER, "x-omniroute-lease-generation": String(lease.json.generation) };
    expect((await call("POST", "/v1/chat/completions", chat("hello"), leased)).status).toBe(200);
    expect((await call("POST", "/v1/chat/completions", chat("hello"), { ...leased, "x-omniroute-lease-generation": "999" })).status).toBe(409);
    await admin("POST", "/api/connections/sec-c1/test");

    for (const route of [
      "/api/providers",
      "/api/providers/sec",
      "/api/connections",
      "/api/connections/sec-c1",
      "/api/connections/sec-c2",
      "/api/combos",
      "/api/keys",
      "/api/settings",
      "/api/resilience",
      "/api/resilience/sources",
      "/api/resilience/cooldowns",
      "/api/resilience/model-cooldowns",
      "/api/monitoring/health",
      "/api/monitoring/stats",
      "/api/logs?limit=500",
      "/api/sessions/pins",
      "/api/sessions/leases",
      "/api/config/export",
      "/api/config/export?format=yaml",
    ]) {
      expect((await admin("GET", route)).status, route).toBe(200);
    }
    expect((await call("GET", "/v1/models", undefined, asClient)).status).toBe(200);
    // The log rows are flushed in batches; a graceful stop writes the last one.
    await server.stop();

    const leaks: string[] = [];
    for (const entry of transcript) for (const s of findSecrets(entry, secrets)) leaks.push(`response ${entry.split("\n")[0]} contains ${s.slice(0, 8)}…`);
    // The CLI prints the dashboard link with the admin token in its fragment (API.md); nothing else may.
    const logLines = server
      .output()
      .split("\n")
      .filter((l) => !l.startsWith("Dashboard: "));
    for (const line of logLines) for (const s of findSecrets(line, secrets)) leaks.push(`log line contains ${s.slice(0, 8)}…: ${line.slice(0, 120)}`);

    const db = new Database(path.join(home, "switchyard.db"), { readonly: true });
    try {
      const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>).map((t) => t.name);
      let rows = 0;
      for (const table of tables) {
        for (const row of db.prepare(`SELECT * FROM "${table}"`).all()) {
          rows++;
          for (const s of findSecrets(JSON.stringify(row), secrets)) leaks.push(`table ${table} contains ${s.slice(0, 8)}…`);
        }
      }
      expect(rows).toBeGreaterThan(10);
      expect(tables).toContain("request_log");
      expect((db.prepare("SELECT COUNT(*) AS n FROM request_log").get() as { n: number }).n).toBeGreaterThan(5);
      // Stored hashed: the SHA-256 of the client key and of the owner token are what the rows hold.
      expect(db.prepare("SELECT COUNT(*) AS n FROM api_keys WHERE key_hash = ?").get(sha256(CLIENT_KEY))).toEqual({ n: 1 });
      expect(db.prepare("SELECT COUNT(*) AS n FROM session_leases WHERE owner_hash = ?").get(sha256(OWNER))).toEqual({ n: 1 });
    } finally {
      db.close();
    }
    for (const file of readdirSync(home)) {
      const bytes = readFileSync(path.join(home, file));
      for (const s of secrets) if (bytes.includes(Buffer.from(s))) leaks.push(`file ${file} contains ${s.slice(0, 8)}…`);
    }
    expect(leaks).toEqual([]);
    expect(transcript.length).toBeGreaterThan(30);
  },
);
