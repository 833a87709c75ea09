// Issue 13 item 4 (HTTP): every route of a real `switchyard serve` process gets malformed JSON,
// wrong types, huge and deeply nested bodies, invalid UTF-8, oversized headers, unknown fields,
// and the dashboard's static files get path tricks. Each answer is a clear 4xx (in the client's
// format on /v1) or a 5xx carrying a request id; no body shows a stack trace or a source path;
// the process never dies; and nothing is half-saved (every list reads the same afterwards).
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONTRACT } from "../../shared/contract.js";
import { startServer, type ServerProcess } from "../crash/server.js";

const TOKEN = "fuzz-admin-token";
const home = mkdtempSync(path.join(tmpdir(), "switchyard-fuzz-"));
let server: ServerProcess;
let port: number;

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A raw HTTP/1.1 request: the path goes out exactly as written, the body as the given bytes. */
function raw(method: string, rawPath: string, body: Buffer | null, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: "127.0.0.1", port, method, path: rawPath, headers: { ...(body ? { "content-type": "application/json", "content-length": String(body.length) } : {}), ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body ?? undefined);
  });
}

/** Bytes written straight to a socket; resolves with everything read until the server closes. */
function socketExchange(text: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let data = "";
    socket.on("data", (d: Buffer) => (data += d.toString("latin1")));
    socket.on("error", () => resolve(data));
    socket.on("close", () => resolve(data));
    socket.write(text);
  });
}

const LEAKS = /\n\s+at |\bat [\w$.<>]+ \(|\/work\/|\/home\/|node_modules|\.ts:\d+|\.js:\d+|file:\/\/|\bError: .*\n/;

function deep(depth: number): string {
  return "[".repeat(depth) + "]".repeat(depth);
}

const BODIES: Array<[string, Buffer]> = [
  ["malformed JSON", Buffer.from('{"model": "x", "messages": [')],
  ["an array", Buffer.from("[1,2,3]")],
  ["a string", Buffer.from('"hello"')],
  ["null", Buffer.from("null")],
  [
    "wrong types",
    Buffer.from(
      JSON.stringify({
        id: 7,
        name: [],
        model: {},
        messages: "hi",
        max_tokens: "ten",
        stream: "yes",
        provider: 1,
        targets: "x",
        format: 3,
        baseUrl: [],
        scopes: "all",
        action: 9,
        advanceMs: "soon",
        enabled: "on",
        connectionId: {},
        sessionAffinityTtlMs: "long",
      }),
    ),
  ],
  ["unknown fields only", Buffer.from(JSON.stringify({ zzz: 1, __proto__: { polluted: true }, constructor: { prototype: { polluted: true } } }))],
  ["deeply nested", Buffer.from(`{"model":"x","messages":${deep(20_000)}}`)],
  [
    "invalid UTF-8",
    Buffer.concat([Buffer.from('{"model":"'), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xa0, 0xa1]), Buffer.from('","messages":[{"role":"user","content":"\xff"}]}', "latin1")]),
  ],
];

/** The routes of the contract and the client routes, with ids that name nothing. */
function routes(): Array<{ verb: string; path: string; auth: "admin" | "none" }> {
  // POST /api/demo reads no body at all, so no body is malformed for it and every call rightly starts
  // the demo; its own tests (tests/integration/api/everyday.test.ts) cover it.
  const out: Array<{ verb: string; path: string; auth: "admin" | "none" }> = Object.values(CONTRACT)
    .filter((e) => e !== CONTRACT.startDemo)
    .map((e) => ({ verb: e.verb, path: e.path.replace(/:\w+/g, "no-such-%2e%2e%2fthing"), auth: "admin" as const }));
  for (const p of ["/v1/chat/completions", "/v1/messages", "/v1/messages/count_tokens", "/api/v1/session-leases"]) out.push({ verb: "POST", path: p, auth: "none" });
  out.push({ verb: "GET", path: "/v1/models", auth: "none" }, { verb: "GET", path: "/health", auth: "none" });
  return out;
}

function clientFormatOk(route: string, r: Raw): boolean {
  const body = JSON.parse(r.text) as Record<string, any>;
  if (route.startsWith("/v1/messages")) return body.type === "error" && typeof body.error?.type === "string" && typeof body.error?.message === "string";
  return typeof body.error?.message === "string" && typeof body.error?.code === "string";
}

const problems: string[] = [];
function judge(label: string, route: string, r: Raw): void {
  if (LEAKS.test(r.text)) problems.push(`${label}: body leaks internals: ${r.text.slice(0, 200)}`);
  if (r.status >= 500) {
    const id = r.headers["x-switchyard-request-id"];
    if (!id && !/req(uest)?[_-]?id/i.test(r.text)) problems.push(`${label}: ${r.status} without a request id: ${r.text.slice(0, 200)}`);
    return;
  }
  if (r.status >= 400 && route.startsWith("/v1/") && r.text && !clientFormatOk(route, r)) problems.push(`${label}: not in the client's format: ${r.text.slice(0, 200)}`);
}

async function snapshot(): Promise<string> {
  const parts: unknown[] = [];
  for (const p of ["/api/providers", "/api/connections", "/api/combos", "/api/settings", "/api/resilience", "/api/sessions/pins", "/api/sessions/leases"]) {
    parts.push((await server.api("GET", p)).body);
  }
  const keys = (await server.api("GET", "/api/keys")).body as Array<Record<string, unknown>>;
  parts.push(keys.map(({ lastUsedAt: _ignored, ...rest }) => rest));
  return JSON.stringify(parts);
}

beforeAll(async () => {
  server = await startServer(home, TOKEN, ["--test-clock"]);
  port = Number(new URL(server.url).port);
  expect((await server.api("POST", "/api/providers", { id: "fz", format: "openai", baseUrl: "http://127.0.0.1:9/v1", category: "apikey", models: ["m1"] })).status).toBe(201);
  expect((await server.api("POST", "/api/connections", { id: "fz-c", provider: "fz", apiKey: "sk-fuzz-provider-secret" })).status).toBe(201);
  expect((await server.api("POST", "/api/combos", { name: "fz-combo", targets: [{ model: "fz/m1" }] })).status).toBe(201);
  expect((await server.api("POST", "/api/keys", { name: "fz-key" })).status).toBe(201);
  // A small body limit so "huge" costs 2 MB, not 50.
  expect((await server.api("PATCH", "/api/settings", { maxBodyMb: 1 })).status).toBe(200);
});

afterAll(async () => {
  await server?.stop();
  rmSync(home, { recursive: true, force: true });
});

describe("HTTP fuzz over every route (issue 13 item 4)", () => {
  it(
    "R1.9 API.md every malformed, mistyped, huge, nested, invalid-UTF-8 or unknown-field body gets a clear 4xx or a 5xx with a request id, never a leak, and saves nothing",
    { timeout: 120_000 },
    async () => {
      const before = await snapshot();
      const huge = Buffer.from(JSON.stringify({ model: "fz/m1", messages: [{ role: "user", content: "x".repeat(2 * 1024 * 1024) }] }));
      let cases = 0;
      const statuses = new Map<number, number>();
      for (const route of routes()) {
        const auth: Record<string, string> = route.auth === "admin" ? { authorization: `Bearer ${TOKEN}` } : {};
        const bodies: Array<[string, Buffer | null]> = route.verb === "GET" ? [["no body", null]] : [...BODIES, ["huge", huge]];
        for (const [name, body] of bodies) {
          const r = await raw(route.verb, `${route.path}${route.verb === "GET" ? "?limit=-1&limit=abc&provider[]=x&format=%ff" : ""}`, body, auth);
          judge(`${route.verb} ${route.path} (${name})`, route.path, r);
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
          if (["/v1/chat/completions", "/v1/messages"].includes(route.path) && !["huge", "invalid UTF-8"].includes(name)) expect(r.status, `${route.path} ${name}`).toBe(400);
          if (name === "huge") expect(r.status, `${route.verb} ${route.path} huge`).toBeGreaterThanOrEqual(400);
          cases++;
        }
      }
      expect(problems).toEqual([]);
      expect(cases).toBeGreaterThan(250);
      if (process.env.FUZZ_DEBUG) console.log(JSON.stringify([...statuses]));
      // The refusals are the expected ones: bad JSON/shape 400, missing token 401, bodies over the limit 413.
      for (const status of [400, 401, 413]) expect(statuses.get(status) ?? 0, String(status)).toBeGreaterThan(0);
      expect(await snapshot()).toBe(before);
      expect({}).not.toHaveProperty("polluted");
      expect((await server.api("GET", "/health")).status).toBe(200);
    },
  );

  it("API.md oversized headers are refused with a 4xx and the server keeps serving", async () => {
    for (const route of ["/v1/chat/completions", "/api/providers", "/"]) {
      const answer = await socketExchange(
        `POST ${route} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nx-filler: ${"a".repeat(64 * 1024)}\r\nContent-Length: 2\r\n\r\n{}`,
      );
      expect(answer.split("\r\n")[0], route).toBe("HTTP/1.1 431 Request Header Fields Too Large");
      expect(LEAKS.test(answer)).toBe(false);
    }
    expect((await raw("GET", "/health", null)).status).toBe(200);
  });

  it("API.md path tricks on the dashboard's static files never leave the dashboard folder", async () => {
    const tricks = [
      "/../../../../etc/passwd",
      "/..%2f..%2f..%2f..%2fetc%2fpasswd",
      "/%2e%2e/%2e%2e/%2e%2e/package.json",
      "/assets/..%5c..%5c..%5cpackage.json",
      "/assets/%2e%2e%2f%2e%2e%2f%2e%2e%2fmain%2fcli.ts",
      "/index.html%00.js",
      "/%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd",
      "/%ff%fe",
      "//etc/passwd",
      "/.%2e/.%2e/admin-token",
      "/admin-token",
      "/switchyard.db",
    ];
    for (const trick of tricks) {
      const r = await raw("GET", trick, null);
      expect(r.text, trick).not.toMatch(/root:x:0:0|"name": "switchyard"|#!\/usr\/bin\/env node|SQLite format|fuzz-admin-token/);
      judge(`GET ${trick}`, trick, r);
      if (r.status === 200) expect(r.text, trick).toMatch(/<!doctype html>/i);
      else expect(r.status, trick).toBeGreaterThanOrEqual(400);
    }
    expect(problems).toEqual([]);
    expect(server.child.exitCode).toBeNull();
  });
});
