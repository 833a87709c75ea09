// R23.4: the Connect page checks the provider(s) the chosen model goes to before its snippets.
import { describe, expect, it } from "vitest";
import { providersOfModel } from "../../../renderer/src/pages/connect/modelProviders.js";
import type { Combo, Provider } from "../../../shared/types.js";

const provider = (id: string, models: string[], priority = 0): Provider => ({
  id,
  format: "openai",
  baseUrl: "http://127.0.0.1:9/v1",
  category: "apikey",
  models,
  quotaFamilies: {},
  passthroughModels: false,
  rateLimitCooldownSeconds: null,
  priority,
  options: {},
  createdAt: 1,
  updatedAt: 1,
});
const combo = (name: string, models: string[]): Combo => ({ name, strategy: "priority", targets: models.map((model) => ({ model })), config: {}, createdAt: 1, updatedAt: 1 });

const providers = [provider("a", ["m1", "shared"], 1), provider("b", ["m2", "shared"], 0)];

describe("R23.4 the providers a Connect-page model reaches", () => {
  it("R23.4 provider/model names its provider; a bare model the first provider listing it (R1.3)", () => {
    expect(providersOfModel("a/m1", providers, [])).toEqual(["a"]);
    expect(providersOfModel("shared", providers, [])).toEqual(["b"]);
    expect(providersOfModel("nobody/x", providers, [])).toEqual([]);
    expect(providersOfModel("unknown", providers, [])).toEqual([]);
  });

  it("R23.4 a combo reaches every provider of its targets, nested combos included, each once", () => {
    const combos = [combo("outer", ["a/m1", "inner", "a/m1"]), combo("inner", ["b/m2", "outer"])];
    expect(providersOfModel("outer", providers, combos)).toEqual(["a", "b"]);
  });
});
