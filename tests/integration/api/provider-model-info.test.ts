// Provider model metadata (R11.1 data sources): explicit per-model prices, context window and
// cache support, validated, stored beside the provider and exported with the config.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiServer, SIM_PROVIDER, startApiServer } from "./apiHarness.js";

describe("provider modelInfo (R11.1)", () => {
  let api: ApiServer;

  beforeAll(async () => {
    api = await startApiServer();
  });
  afterAll(async () => {
    await api.close();
  });

  it("R11.1 modelInfo is stored, read back apart from options, patched and exported", async () => {
    const modelInfo = { m1: { inputPricePerMTok: 3, outputPricePerMTok: 15, contextWindow: 200_000, cacheSupport: true } };
    const created = await api.call("POST", "/api/providers", { ...SIM_PROVIDER, options: { note: "x" }, modelInfo });
    expect(created.status).toBe(201);
    const read = await api.call("GET", "/api/providers/sim");
    expect(read.body).toMatchObject({ modelInfo, options: { note: "x" } });
    expect(read.body.options).not.toHaveProperty("modelInfo");
    const patched = await api.call("PATCH", "/api/providers/sim", { modelInfo: { m2: { contextWindow: 8_000 } } });
    expect(patched.status).toBe(200);
    expect((await api.call("GET", "/api/providers/sim")).body.modelInfo).toEqual({ m2: { contextWindow: 8_000 } });
    const exported = await api.call("GET", "/api/config/export");
    expect(exported.body.providers[0].modelInfo).toEqual({ m2: { contextWindow: 8_000 } });
  });

  it("R11.1 an unknown or mistyped modelInfo field is a 400 naming the path, nothing guessed", async () => {
    const unknown = await api.call("POST", "/api/providers", { ...SIM_PROVIDER, id: "bad1", modelInfo: { m1: { pricePerToken: 1 } } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.path).toMatch(/^modelInfo\.m1/);
    const negative = await api.call("POST", "/api/providers", { ...SIM_PROVIDER, id: "bad2", modelInfo: { m1: { inputPricePerMTok: -1 } } });
    expect(negative.status).toBe(400);
    expect(negative.body.error.path).toBe("modelInfo.m1.inputPricePerMTok");
  });
});
