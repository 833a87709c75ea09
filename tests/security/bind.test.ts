// Issue 13 item 5: Switchyard binds to 127.0.0.1 only, unless the user explicitly chooses another
// address; then it warns and requires client keys on every client route.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { clientRouteSettings, planBind } from "../../main/app/bind.js";
import { defaultAppSettings } from "../../shared/appSettings.js";
import { startServer, type ServerProcess } from "../crash/server.js";

const homes: string[] = [];
const servers: ServerProcess[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});

/** Local addresses of listening TCP sockets on `port`, read from /proc (IPv4 and IPv6). */
function listenAddresses(port: number): string[] {
  const out: string[] = [];
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const line of readFileSync(file, "utf8").split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 4 || cols[3] !== "0A") continue;
      const [addr, hexPort] = cols[1].split(":");
      if (parseInt(hexPort, 16) === port) out.push(addr);
    }
  }
  return out;
}

async function serve(args: string[]): Promise<ServerProcess> {
  const home = mkdtempSync(path.join(tmpdir(), "switchyard-bind-"));
  homes.push(home);
  const s = await startServer(home, "bind-admin-token", args);
  servers.push(s);
  return s;
}

describe("bind address", () => {
  it("R0.1 without a choice the server listens on 127.0.0.1 only and needs no client key", async () => {
    const s = await serve([]);
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(listenAddresses(Number(new URL(s.url).port))).toEqual(["0100007F"]);
    expect(s.output()).not.toMatch(/WARNING/);
    expect((await fetch(`${s.url}/v1/models`)).status).toBe(200);
  });

  it("R1.7 an explicit non-loopback address warns and requires a client key even with requireClientKey off", async () => {
    const s = await serve(["--host", "0.0.0.0"]);
    expect(s.output()).toMatch(/WARNING: listening on 0\.0\.0\.0.*Client keys are required/);
    expect(listenAddresses(Number(new URL(s.url).port))).toEqual(["00000000"]);
    expect((await s.api("GET", "/api/settings")).body.requireClientKey).toBe(false);
    const anonymous = await fetch(`${s.url}/v1/models`);
    expect(anonymous.status).toBe(401);
    expect((await anonymous.json()).error.code).toBe("unauthorized");
    const key = (await s.api("POST", "/api/keys", { name: "remote" })).body.key as string;
    expect((await fetch(`${s.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
  });

  it("R0.1 loopback choices are not exposure; any other address is, and answers only its own Host names besides loopback", () => {
    for (const host of [undefined, "", "127.0.0.1", "127.0.0.2", "localhost", "::1"]) {
      const plan = planBind(host);
      expect(plan.exposed, String(host)).toBe(false);
      expect(plan.warning).toBeNull();
      expect(plan.allowedHostnames).toEqual([]);
    }
    const lan = planBind("192.0.2.10");
    expect(lan).toMatchObject({ host: "192.0.2.10", exposed: true, allowedHostnames: ["192.0.2.10"], urlHost: "192.0.2.10" });
    expect(lan.warning).toMatch(/Client keys are required/);
    const any = planBind("0.0.0.0");
    expect(any.urlHost).toBe("127.0.0.1");
    expect(any.allowedHostnames.length).toBeGreaterThan(0);
  });

  it("R1.7 the client routes read requireClientKey forced on while exposed, and the stored settings otherwise", () => {
    const stored = { ...defaultAppSettings(), requireClientKey: false };
    expect(clientRouteSettings(planBind(undefined), () => stored)().requireClientKey).toBe(false);
    const forced = clientRouteSettings(planBind("192.0.2.10"), () => stored);
    expect(forced().requireClientKey).toBe(true);
    expect(forced()).toBe(forced());
    expect(stored.requireClientKey).toBe(false);
  });
});
