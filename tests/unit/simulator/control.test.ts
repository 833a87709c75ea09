import { spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../../main/simulator/index.js";
import { collect, post } from "./helpers.js";

let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({ label: "sim-c" });
});
afterAll(async () => {
  await sim.close();
});

const chat = { model: "m", messages: [{ role: "user", content: "hi" }] };

async function control(method: string, path: string, body?: unknown) {
  const res = await request(`${sim.url}${path}`, {
    method: method as "GET",
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.statusCode, json: (await res.body.json()) as Record<string, any> };
}

describe("control endpoint", () => {
  it("R0.5 programs faults over HTTP with POST /__sim/faults and clears them with DELETE", async () => {
    expect((await control("POST", "/__sim/faults", { key: "ck", fault: { status: 429, retryAfter: 3, times: 1 } })).json).toEqual({ ok: true, key: "ck" });
    const limited = await post(`${sim.url}/v1/chat/completions`, chat, { authorization: "Bearer ck" });
    expect(limited.status).toBe(429);
    expect(limited.headers["retry-after"]).toBe("3");
    expect((await post(`${sim.url}/v1/chat/completions`, chat, { authorization: "Bearer ck" })).status).toBe(200);

    await control("POST", "/__sim/faults", { key: "ck", fault: { status: 500 } });
    await control("POST", "/__sim/faults", { fault: { status: 502 } });
    expect((await control("DELETE", "/__sim/faults?key=ck")).json).toEqual({ ok: true });
    expect((await post(`${sim.url}/v1/chat/completions`, chat, { authorization: "Bearer ck" })).status).toBe(502);
    await control("DELETE", "/__sim/faults");
    expect((await post(`${sim.url}/v1/chat/completions`, chat, { authorization: "Bearer ck" })).status).toBe(200);
  });

  it("R0.5 rejects an invalid fault on the control endpoint with 400", async () => {
    const res = await control("POST", "/__sim/faults", { key: "x", fault: { status: "429" } });
    expect(res.status).toBe(400);
    expect(res.json.error.message).toContain("status");
  });

  it("R0.5 reports the request count and the last 50 requests, and resets them", async () => {
    await control("DELETE", "/__sim/requests");
    for (let i = 0; i < 55; i++) await post(`${sim.url}/v1/chat/completions`, { ...chat, model: `m${i}` });
    const res = await control("GET", "/__sim/requests");
    expect(res.json.count).toBe(55);
    expect(res.json.requests).toHaveLength(50);
    expect(res.json.requests[49].model).toBe("m54");
    expect(res.json.requests[0].model).toBe("m5");
    await control("DELETE", "/__sim/requests");
    expect((await control("GET", "/__sim/requests")).json).toEqual({ count: 0, requests: [] });
    expect(sim.requests).toHaveLength(0);
  });

  it("R0.5 answers an unknown control route with 404", async () => {
    expect((await control("GET", "/__sim/nothing")).status).toBe(404);
  });
});

describe("shutdown", () => {
  it("R0.5 close() ends stalled streams, pinging streams and keep-alive sockets without hanging", async () => {
    const local = await startSimulator();
    await post(`${local.url}/v1/chat/completions`, chat);
    local.addFault("stall", { stallAfterChunks: 1 });
    local.addFault("ping", { pingEveryMs: 20 });
    const stalled = collect(`${local.url}/v1/chat/completions`, { ...chat, stream: true }, { authorization: "Bearer stall" }, 20_000);
    const pinging = collect(`${local.url}/v1/chat/completions`, { ...chat, stream: true }, { authorization: "Bearer ping" }, 20_000);
    const slow = post(`${local.url}/v1/chat/completions`, chat, { "x-sim-fault": JSON.stringify({ latencyMs: 20_000 }) }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 150));
    const started = Date.now();
    await local.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    const [a, b, c] = await Promise.all([stalled, pinging, slow]);
    expect(a.ended).toBe(false);
    expect(a.error).not.toBeNull();
    expect(b.error).not.toBeNull();
    expect(c).toBeInstanceOf(Error);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

/** Transpiles the simulator sources to plain ESM in a temp dir, so the real CLI entry can run under node. */
function transpileSimulator(): string {
  const out = mkdtempSync(path.join(tmpdir(), "sim-cli-"));
  const src = fileURLToPath(new URL("../../../main/simulator", import.meta.url));
  const walk = (dir: string, rel: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const from = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        mkdirSync(path.join(out, rel, entry.name), { recursive: true });
        walk(from, path.join(rel, entry.name));
      } else if (entry.name.endsWith(".ts")) {
        const js = ts.transpileModule(readFileSync(from, "utf8"), {
          compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
        }).outputText;
        writeFileSync(path.join(out, rel, entry.name.replace(/\.ts$/, ".js")), js);
      }
    }
  };
  walk(src, "");
  writeFileSync(path.join(out, "package.json"), '{"type":"module"}');
  return out;
}

describe("CLI", () => {
  it("R0.5 cli prints 'Simulator listening on http://127.0.0.1:<port>' and serves", async () => {
    const dir = transpileSimulator();
    const child = spawn(process.execPath, [path.join(dir, "cli.js"), "--port", "0", "--label", "sim-cli"], { stdio: ["ignore", "pipe", "pipe"] });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).once("line", resolve);
        child.once("exit", (code) => reject(new Error(`cli exited with ${code}`)));
      });
      const match = /^Simulator listening on (http:\/\/127\.0\.0\.1:(\d+))$/.exec(line);
      expect(match).not.toBeNull();
      const res = await post(`${match![1]}/v1/chat/completions`, chat, { authorization: "Bearer cli-key" });
      expect(JSON.parse(res.text).choices[0].message.content).toBe("Hello from sim-cli (key cli-key)");
    } finally {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
