// Issue 13 item 5: the localhost surface of a real `switchyard serve`. A foreign Host is refused
// with 403 before any body byte is read; cross-origin requests to /api are refused the same way;
// the admin token is only ever compared in constant time.
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type ServerProcess } from "../crash/server.js";

const TOKEN = "surface-admin-token-0123456789";
const home = mkdtempSync(path.join(tmpdir(), "switchyard-surface-"));
let server: ServerProcess;
let port: number;

beforeAll(async () => {
  server = await startServer(home, TOKEN);
  port = Number(new URL(server.url).port);
});
afterAll(async () => {
  await server?.stop();
  rmSync(home, { recursive: true, force: true });
});

/**
 * Sends only the request head of a request announcing a 10 MB body and never sends the body:
 * an answer can only come from a check made before the body is read.
 */
function headOnly(method: string, route: string, headers: Record<string, string>): Promise<{ status: number; text: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, "127.0.0.1");
    let data = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer without the body: ${method} ${route}`));
    }, 3_000);
    socket.on("data", (d: Buffer) => {
      data += d.toString("utf8");
      if (/\r\n\r\n[^]*\}/.test(data)) {
        clearTimeout(timer);
        socket.destroy();
        resolve({ status: Number(data.slice(9, 12)), text: data, ms: Date.now() - started });
      }
    });
    socket.on("error", reject);
    const lines = Object.entries({ "content-type": "application/json", "content-length": String(10 * 1024 * 1024), ...headers }).map(([k, v]) => `${k}: ${v}`);
    socket.write(`${method} ${route} HTTP/1.1\r\n${lines.join("\r\n")}\r\n\r\n`);
  });
}

describe("localhost surface", () => {
  it("API.md a foreign Host gets 403 before any body is read, on client, management and dashboard routes", async () => {
    for (const route of ["/v1/chat/completions", "/v1/messages", "/api/providers", "/api/v1/session-leases", "/"]) {
      for (const host of ["evil.example", `evil.example:${port}`, "127.0.0.1.nip.io", "localhost.evil.example"]) {
        const r = await headOnly("POST", route, { host, authorization: `Bearer ${TOKEN}` });
        expect(r.status, `${route} ${host}`).toBe(403);
        expect(r.text).toContain("forbidden_host");
      }
    }
    const providers = await server.api("GET", "/api/providers");
    expect(providers.body).toEqual([]);
  });

  it("API.md cross-origin requests to /api are refused with 403 before the body is read, and get no CORS header", async () => {
    for (const origin of ["http://evil.example", "null", `http://127.0.0.1:${port + 1}`, `https://localhost:${port}.evil.example`]) {
      const r = await headOnly("POST", "/api/providers", { host: `127.0.0.1:${port}`, origin, authorization: `Bearer ${TOKEN}` });
      expect(r.status, origin).toBe(403);
      expect(r.text).toContain("forbidden_origin");
      expect(r.text.toLowerCase()).not.toContain("access-control-allow-origin");
    }
    const same = await fetch(`${server.url}/api/settings`, { headers: { authorization: `Bearer ${TOKEN}`, origin: server.url } });
    expect(same.status).toBe(200);
  });

  it("API.md a wrong admin token of any length, a prefix or an extension of the right one is 401", async () => {
    for (const wrong of ["", "x", TOKEN.slice(0, -1), `${TOKEN}x`, TOKEN.toUpperCase(), "a".repeat(10_000)]) {
      const r = await fetch(`${server.url}/api/settings`, { headers: { authorization: `Bearer ${wrong}` } });
      expect(r.status, wrong.slice(0, 12)).toBe(401);
    }
  });

  it("API.md the admin token is compared only through timingSafeEqual of SHA-256 digests, nowhere with ===", () => {
    const adapter = readFileSync(path.resolve("main/api/httpAdapter.ts"), "utf8");
    expect(adapter).toMatch(/const expected = sha256\(adminToken\)/);
    expect(adapter).toMatch(/timingSafeEqual\(sha256\(match\[1\]\), expected\)/);
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((f) => {
        const p = path.join(dir, f);
        return statSync(p).isDirectory() ? files(p) : p.endsWith(".ts") ? [p] : [];
      });
    for (const file of files(path.resolve("main"))) {
      const text = readFileSync(file, "utf8");
      expect(text, file).not.toMatch(/[!=]==?\s*(?:deps\.|opts\.)?adminToken\b|\badminToken\s*[!=]==?(?!\s*(?:undefined|null))|adminToken\.(?:startsWith|includes|localeCompare)/);
    }
  });
});
