// Issue 26 item 12 over real HTTP against the simulator: a client request's edge is one value —
// the key the auth step verified, the connections the lease fence narrowed it to and the request
// id all reach the pipeline and the one request-log row together — and one body reader serves
// every client route, the generation routes, express's count route and the lease route alike.
import { randomBytes } from "node:crypto";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RequestLogEntry, SwitchyardEvent } from "../../../shared/types.js";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, startGateway, startSim, type ApiResult, type TestGateway } from "../harness.js";

let gw: TestGateway;
let sim: Simulator;
let conns: string[];
let key: { id: string; key: string };
const rows: RequestLogEntry[] = [];
const PRICES = { m1: { inputPricePerMTok: 1_000, outputPricePerMTok: 1_000 } };

const owner = () => `vlo_${randomBytes(32).toString("base64url")}`;
const chatBody = { model: "oai/m1", messages: [{ role: "user", content: "hi" }] };

function lease(action: string, ownerToken: string): Promise<ApiResult> {
  return gw.post("/api/v1/session-leases", { action, owner: ownerToken }, { authorization: `Bearer ${key.key}` });
}

/** The live row of a request, as the gateway wrote it (the event carries the same object the log got). */
async function rowOf(requestId: string | null): Promise<RequestLogEntry> {
  for (let i = 0; i < 40 && !rows.some((r) => r.id === requestId); i++) await new Promise((r) => setTimeout(r, 25));
  const row = rows.find((r) => r.id === requestId);
  expect(row).toBeDefined();
  return row!;
}

beforeAll(async () => {
  sim = await startSim({ label: "edge" });
  gw = await startGateway({ testClock: true });
  gw.app.bus.subscribe((e: SwitchyardEvent) => {
    if (e.type === "request") rows.push(e.entry);
  });
  conns = await addProvider(gw, "oai", sim, "openai", ["k-1", "k-2"], { modelInfo: PRICES });
  // The key lists the second connection first: its lease goes there, while routing alone picks the first.
  const created = await gw.api("POST", "/api/keys", { name: "agent", scopes: ["lease:exclusive"], allowedConnections: [conns[1], conns[0]] });
  expect(created.status).toBe(201);
  key = { id: created.body.id as string, key: created.body.key as string };
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

describe("issue 26 item 12: the client edge", () => {
  it("R7.2 R18 issue26 one edge per request: the verified key, the lease's one connection and the request id reach the answer and the log row together", async () => {
    const me = owner();
    const { generation } = (await lease("acquire", me)).body as { generation: number };
    try {
      const fenced = { authorization: `Bearer ${key.key}`, "x-omniroute-lease-owner": me, "x-omniroute-lease-generation": String(generation) };
      for (let i = 0; i < 3; i++) {
        const r = await gw.post("/v1/chat/completions", chatBody, fenced);
        expect(r.status).toBe(200);
        expect(r.headers.get("x-omniroute-selected-connection-id")).toBe(conns[1]);
        const requestId = r.headers.get("x-switchyard-request-id");
        expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
        const row = await rowOf(requestId);
        expect(row).toMatchObject({ status: 200, apiKeyId: key.id, connectionId: conns[1], servedModel: "oai/m1", attempts: [{ connectionId: conns[1], status: 200 }] });
        // Priced once, as the row was written (R18.1).
        expect(row.costUsd).toBeGreaterThan(0);
      }
      // The stored row is that row.
      const stored = (await gw.api<RequestLogEntry[]>("GET", "/api/logs?limit=1")).body[0];
      expect(stored).toMatchObject({ id: rows.at(-1)!.id, apiKeyId: key.id, connectionId: conns[1] });
      // A refusal at the edge (a stale generation) still names the request it refused, with its key.
      const stale = await gw.post("/v1/chat/completions", chatBody, { ...fenced, "x-omniroute-lease-generation": String(generation + 1) });
      expect(stale.status).toBe(409);
      expect(stale.headers.get("x-switchyard-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      await lease("release", me);
    }
  });

  it("R1.7 issue26 with client keys required, the key's allowedConnections bound the request; a request without a key is refused before its body is read", async () => {
    const limited = await gw.api("POST", "/api/keys", { name: "limited", allowedConnections: [conns[1]] });
    await gw.api("PATCH", "/api/settings", { requireClientKey: true });
    try {
      for (let i = 0; i < 2; i++) {
        const r = await gw.post("/v1/chat/completions", chatBody, { authorization: `Bearer ${limited.body.key as string}` });
        expect(r.status).toBe(200);
        expect(r.headers.get("x-omniroute-selected-connection-id")).toBe(conns[1]);
        expect(await rowOf(r.headers.get("x-switchyard-request-id"))).toMatchObject({ apiKeyId: limited.body.id, connectionId: conns[1] });
      }
      const refused = await fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: "{not json" });
      expect(refused.status).toBe(401);
    } finally {
      await gw.api("PATCH", "/api/settings", { requireClientKey: false });
    }
  });

  it("API.md issue26 one body reader on every client route: a gzip body is read on a generation route, on count_tokens and on the lease route; over maxBodyMb both client routes answer 413", async () => {
    const gzipPost = (route: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(gw.url + route, { method: "POST", headers: { "content-type": "application/json", "content-encoding": "gzip", ...headers }, body: gzipSync(JSON.stringify(body)) });
    const chat = await gzipPost("/v1/chat/completions", chatBody);
    expect(chat.status).toBe(200);
    expect((await rowOf(chat.headers.get("x-switchyard-request-id"))).status).toBe(200);
    const counted = await gzipPost("/v1/messages/count_tokens", { model: "oai/m1", messages: [{ role: "user", content: "hello there" }] });
    expect(counted.status).toBe(200);
    expect(counted.headers.get("x-switchyard-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(((await counted.json()) as { input_tokens: number }).input_tokens).toBeGreaterThan(0);
    const me = owner();
    const leased = await gzipPost("/api/v1/session-leases", { action: "acquire", owner: me }, { authorization: `Bearer ${key.key}` });
    expect(leased.status).toBe(200);
    expect(await leased.json()).toMatchObject({ state: "ACTIVE" });
    await lease("release", me);
    // RFC 7159 §8.1 as body-parser held it: another UTF charset is decoded, a non-UTF one refused.
    const asCharset = (charset: string, bytes: Uint8Array) =>
      fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": `application/json; charset=${charset}` }, body: new Uint8Array(bytes) });
    expect((await asCharset("utf-16le", Buffer.from(JSON.stringify(chatBody), "utf16le"))).status).toBe(200);
    expect((await asCharset("latin1", Buffer.from(JSON.stringify(chatBody), "latin1"))).status).toBe(400);
    const corrupt = await fetch(`${gw.url}/v1/messages/count_tokens`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
      body: "not gzip",
    });
    expect(corrupt.status).toBe(400);

    await gw.api("PATCH", "/api/settings", { maxBodyMb: 1 });
    try {
      const big = { model: "oai/m1", messages: [{ role: "user", content: "x".repeat(1_200_000) }] };
      for (const route of ["/v1/chat/completions", "/v1/messages/count_tokens"]) {
        const plain = await gw.post(route, big);
        expect(plain.status).toBe(413);
        expect(plain.text).toContain("payload_too_large");
        // Counted on the decoded bytes: a small gzip body that inflates past the limit is too large too.
        expect((await gzipPost(route, big)).status).toBe(413);
      }
    } finally {
      await gw.api("PATCH", "/api/settings", { maxBodyMb: 50 });
    }
  });
});
