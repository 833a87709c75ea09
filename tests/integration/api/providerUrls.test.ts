// R23.3 over HTTP: a base URL with one `/v1` too many (or too few) is saved in API.md's convention
// on every way a provider is saved (POST, PATCH, PUT, config import); GET answers the stored value,
// and a real request through the simulator then succeeds instead of a 404 about /v1/v1/messages.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { startGateway, startSim, type TestGateway } from "../harness.js";

describe("R23.3 forgiving provider URLs over HTTP", () => {
  let gw: TestGateway;
  let sim: Simulator;

  beforeAll(async () => {
    [gw, sim] = await Promise.all([startGateway(), startSim()]);
  });
  afterAll(async () => {
    await Promise.all([gw?.close(), sim?.close()]);
  });

  const baseUrlOf = async (id: string): Promise<string> => (await gw.api("GET", `/api/providers/${id}`)).body.baseUrl;

  it("R23.3 an Anthropic URL ending in /v1/ is saved as the origin, GET shows it, and a request through it is served", async () => {
    const created = await gw.api("POST", "/api/providers", { id: "ant", format: "anthropic", baseUrl: `${sim.url}/v1/`, models: ["m1"] });
    expect(created.status).toBe(201);
    expect(created.body.baseUrl).toBe(sim.url);
    expect(await baseUrlOf("ant")).toBe(sim.url);
    expect((await gw.api("GET", "/api/providers")).body.find((p: { id: string }) => p.id === "ant").baseUrl).toBe(sim.url);
    expect((await gw.api("POST", "/api/connections", { id: "ant-c1", provider: "ant", apiKey: "k-ant" })).status).toBe(201);

    const res = await gw.post("/v1/messages", { model: "ant/m1", max_tokens: 32, messages: [{ role: "user", content: "hi" }] });
    expect(res.status, res.text).toBe(200);
    expect(res.body.type).toBe("message");
    expect(sim.requests.filter((r) => r.key === "k-ant").map((r) => r.path)).toEqual(["/v1/messages"]);
  });

  it("R23.3 an OpenAI URL without /v1 is saved with it, and a request through it is served", async () => {
    const created = await gw.api("POST", "/api/providers", { id: "oai", format: "openai", baseUrl: `${sim.url}/`, models: ["m1"] });
    expect(created.status).toBe(201);
    expect(created.body.baseUrl).toBe(`${sim.url}/v1`);
    expect((await gw.api("POST", "/api/connections", { id: "oai-c1", provider: "oai", apiKey: "k-oai" })).status).toBe(201);

    const res = await gw.post("/v1/chat/completions", { model: "oai/m1", messages: [{ role: "user", content: "hi" }] });
    expect(res.status, res.text).toBe(200);
    expect(sim.requests.filter((r) => r.key === "k-oai").map((r) => r.path)).toEqual(["/v1/chat/completions"]);
  });

  it("R23.3 custom paths are kept as typed", async () => {
    const proxied = await gw.api("POST", "/api/providers", { id: "proxied", format: "openai", baseUrl: "https://proxy.example.test/api/openai/v1/" });
    expect(proxied.body.baseUrl).toBe("https://proxy.example.test/api/openai/v1");
    const codex = await gw.api("POST", "/api/providers", { id: "codex", format: "openai-responses", baseUrl: "https://chatgpt.example.test/backend-api/codex" });
    expect(codex.body.baseUrl).toBe("https://chatgpt.example.test/backend-api/codex");
  });

  it("R23.3 PATCH and PUT normalise too; a PATCH of the format alone re-reads the stored URL in the new format's convention", async () => {
    const patched = await gw.api("PATCH", "/api/providers/ant", { baseUrl: `${sim.url}/v1` });
    expect(patched.status).toBe(200);
    expect(patched.body.baseUrl).toBe(sim.url);

    expect((await gw.api("POST", "/api/providers", { id: "switch", format: "openai", baseUrl: `${sim.url}/v1` })).status).toBe(201);
    const reformatted = await gw.api("PATCH", "/api/providers/switch", { format: "anthropic" });
    expect(reformatted.body).toMatchObject({ format: "anthropic", baseUrl: sim.url });

    const replaced = await gw.api("PUT", "/api/providers/switch", { format: "openai", baseUrl: sim.url });
    expect(replaced.status).toBe(200);
    expect(replaced.body.baseUrl).toBe(`${sim.url}/v1`);
    expect(await baseUrlOf("switch")).toBe(`${sim.url}/v1`);
  });

  it("R23.3 a config import normalises new and existing providers alike", async () => {
    const res = await gw.api("POST", "/api/config/import", {
      providers: [
        { id: "imported", format: "anthropic", baseUrl: `${sim.url}/v1` },
        { id: "oai", format: "openai", baseUrl: sim.url },
      ],
    });
    expect(res.status, res.text).toBe(200);
    expect(await baseUrlOf("imported")).toBe(sim.url);
    expect(await baseUrlOf("oai")).toBe(`${sim.url}/v1`);
    const exported = await gw.api("GET", "/api/config/export");
    expect(exported.body.providers.find((p: { id: string }) => p.id === "imported").baseUrl).toBe(sim.url);
  });
});
