// GET /v1/models/{model} is OpenAI's "retrieve model" (R1.3, API.md) and answers as OpenAI does —
// `{id, object:"model", created, owned_by}`, an unknown model 404 `{error:{message,
// type:"invalid_request_error", code:"model_not_found"}}`, a refused key in OpenAI's shape too —
// while a request carrying a Gemini key keeps Google's shape on the same path (R17.1).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, startGateway, startSim, type TestGateway } from "../harness.js";

type Json = Record<string, any>;

let gw: TestGateway;
let sim: Simulator;

beforeAll(async () => {
  sim = await startSim({ label: "retrieve" });
  gw = await startGateway();
  await addProvider(gw, "chat", sim, "openai", ["kc"]);
  expect((await gw.api("PATCH", "/api/settings", { aliases: { fast: "chat/m1" } })).status).toBe(200);
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

async function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: Json }> {
  const r = await fetch(gw.url + path, { headers });
  return { status: r.status, headers: r.headers, body: (await r.json()) as Json };
}

describe("GET /v1/models/{model} (R1.3, R17.1)", () => {
  it("R1.3 a model, with its slash literal or as %2F, or an alias, in OpenAI's model shape", async () => {
    for (const [path, id, owner] of [
      ["/v1/models/chat/m1", "chat/m1", "chat"],
      ["/v1/models/chat%2Fm2", "chat/m2", "chat"],
      ["/v1/models/fast", "fast", "switchyard-alias"],
    ] as const) {
      const r = await get(path, { authorization: "Bearer sk-anything" });
      expect(r.status, path).toBe(200);
      expect(r.body).toEqual({ id, object: "model", created: expect.any(Number), owned_by: owner });
      expect(r.headers.get("x-switchyard-request-id")).toBeTruthy();
    }
  });

  it("R1.3 an unknown model is 404 in OpenAI's own error shape for it", async () => {
    const r = await get("/v1/models/nope/x");
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ error: { message: expect.stringContaining("nope/x"), type: "invalid_request_error", code: "model_not_found" } });
  });

  it("R17.1 a Gemini key on the same path gets Google's shape, and Google's 404", async () => {
    const found = await get("/v1/models/chat/m1", { "x-goog-api-key": "g" });
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({ name: "models/chat/m1", supportedGenerationMethods: expect.arrayContaining(["generateContent"]) });
    const missing = await get("/v1/models/nope?key=g");
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ code: 404, status: "NOT_FOUND" });
  });

  it("R1.7 with client keys required, a missing key is refused in OpenAI's shape (a Gemini key still in Google's)", async () => {
    expect((await gw.api("PATCH", "/api/settings", { requireClientKey: true })).status).toBe(200);
    try {
      const openai = await get("/v1/models/chat/m1");
      expect(openai.status).toBe(401);
      expect(openai.body).toEqual({ error: { message: expect.any(String), type: "authentication_error", code: "unauthorized" } });
      const gemini = await get("/v1/models/chat/m1", { "x-goog-api-key": "not-a-switchyard-key" });
      expect(gemini.status).toBe(401);
      expect(gemini.body.error).toMatchObject({ code: 401, status: "UNAUTHENTICATED" });
    } finally {
      await gw.api("PATCH", "/api/settings", { requireClientKey: false });
    }
  });
});
