// A same-format request goes upstream as the client's own JSON text with only the model replaced
// (issue 12: no re-serialisation of bodies that can be hundreds of KB), over real HTTP; a body the
// generic parser read (a gzip body it inflated) is serialised instead.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway, type TestGateway } from "../harness.js";

let gw: TestGateway;
let upstream: Server;
const received: string[] = [];

beforeAll(async () => {
  upstream = createServer((req, res) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (text += c));
    req.on("end", () => {
      received.push(text);
      const answer = JSON.stringify({
        id: "x",
        object: "chat.completion",
        created: 1,
        model: "m1",
        choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(answer);
    });
  });
  await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", r));
  gw = await startGateway();
  const baseUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
  expect((await gw.api("POST", "/api/providers", { id: "raw", format: "openai", baseUrl, category: "apikey", models: ["m1"] })).status).toBe(201);
  expect((await gw.api("POST", "/api/connections", { provider: "raw", apiKey: "k" })).status).toBe(201);
});

afterAll(async () => {
  await gw?.close();
  await new Promise<void>((r) => upstream.close(() => r()));
});

const send = (text: string) => fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer x" }, body: text });

describe("same-format pass-through (issue 12)", () => {
  // Spacing, key order and a number JSON.stringify would print as 1: only a pass-through keeps them.
  const client = '{"messages": [{"role":"user","content":"hi"}],  "temperature": 1.0, "model":"raw/m1"}';

  it("R1.1 the upstream receives the client's bytes with only the model replaced", async () => {
    const r = await send(client);
    expect(r.status).toBe(200);
    expect((await r.json()).model).toBe("raw/m1");
    expect(received.at(-1)).toBe('{"messages": [{"role":"user","content":"hi"}],  "temperature": 1.0, "model":"m1"}');
  });

  it("R1.1 a body the generic parser decoded (gzip) is serialised, still with the upstream's model", async () => {
    const r = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-encoding": "gzip", authorization: "Bearer x" },
      body: gzipSync(client),
    });
    expect(r.status).toBe(200);
    expect(received.at(-1)).toBe('{"messages":[{"role":"user","content":"hi"}],"temperature":1,"model":"m1"}');
  });
});
