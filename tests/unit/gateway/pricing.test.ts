// R18.1: the per-request price arithmetic holds to the catalogue library's own calculator, and
// modelInfo prices win over the catalogue.
import { calcPrice } from "@pydantic/genai-prices";
import { describe, expect, it } from "vitest";
import { createPricer } from "../../../main/gateway/context/usage/pricing.js";
import { provider } from "../engine/fixtures.js";

const uses = [
  { inputTokens: 12_000, outputTokens: 800, cacheReadTokens: 0, cacheWriteTokens: 0 },
  { inputTokens: 40_000, outputTokens: 1_500, cacheReadTokens: 30_000, cacheWriteTokens: 5_000 },
  // Over Anthropic's and Gemini's 200k tier: every price of the request moves up.
  { inputTokens: 250_000, outputTokens: 4_000, cacheReadTokens: 100_000, cacheWriteTokens: 20_000 },
];

describe("pricing (R18.1)", () => {
  const cases: Array<[format: "anthropic" | "openai" | "gemini", catalogProvider: string, model: string]> = [
    ["anthropic", "anthropic", "claude-sonnet-4-5"],
    ["anthropic", "anthropic", "claude-opus-4-6"],
    ["openai", "openai", "gpt-5"],
    ["openai", "openai", "gpt-4o-mini"],
    ["gemini", "google", "gemini-2.5-pro"],
  ];
  for (const [format, providerId, model] of cases) {
    it(`R18.1 prices ${model} as the catalogue's calcPrice does, cached tokens at their own price`, () => {
      const pricer = createPricer();
      const p = provider({ id: "up", format, baseUrl: "http://127.0.0.1:9/v1" });
      for (const use of uses) {
        const expected = calcPrice(
          { input_tokens: use.inputTokens, output_tokens: use.outputTokens, cache_read_tokens: use.cacheReadTokens, cache_write_tokens: use.cacheWriteTokens },
          model,
          { providerId },
        );
        expect(expected).not.toBeNull();
        const price = pricer.price(p, model, use);
        expect(price.costSource).toBe("catalog");
        expect(price.costUsd).toBeCloseTo(expected!.total_price, 10);
      }
    });
  }

  it("R18.1 a public base URL names the catalogue provider (DeepSeek behind an OpenAI-format provider)", () => {
    const pricer = createPricer();
    const p = provider({ id: "ds", format: "openai", baseUrl: "https://api.deepseek.com/v1" });
    const use = uses[1];
    const expected = calcPrice(
      { input_tokens: use.inputTokens, output_tokens: use.outputTokens, cache_read_tokens: use.cacheReadTokens, cache_write_tokens: use.cacheWriteTokens },
      "deepseek-chat",
      { providerApiUrl: "https://api.deepseek.com/v1" },
    );
    expect(expected?.provider.id).toBe("deepseek");
    expect(pricer.price(p, "deepseek-chat", use).costUsd).toBeCloseTo(expected!.total_price, 10);
  });

  it("R18.1 modelInfo prices win, and cached tokens without their own price cost the input price", () => {
    const pricer = createPricer();
    const p = provider({ format: "anthropic", modelInfo: { "claude-sonnet-4-5": { inputPricePerMTok: 1, outputPricePerMTok: 2, cacheReadPricePerMTok: 0.5 } } });
    const price = pricer.price(p, "claude-sonnet-4-5", { inputTokens: 1_000_000, outputTokens: 1_000_000, cacheReadTokens: 400_000, cacheWriteTokens: 100_000 });
    // 500k uncached at 1 + 400k read at 0.5 + 100k written at the input price 1 + 1M out at 2.
    expect(price).toEqual({ costUsd: 0.5 + 0.2 + 0.1 + 2, costSource: "modelInfo" });
  });

  it("R18.1 an unknown model has no price (null, not zero), and a modelInfo edit is seen at once", () => {
    const pricer = createPricer();
    const p = provider({ id: "sim", format: "openai", baseUrl: "http://127.0.0.1:9/v1" });
    expect(pricer.price(p, "sim-model-x", uses[0])).toEqual({ costUsd: null, costSource: null });
    const edited = { ...p, updatedAt: 1, modelInfo: { "sim-model-x": { inputPricePerMTok: 10, outputPricePerMTok: 10 } } };
    expect(pricer.price(edited, "sim-model-x", { inputTokens: 100_000, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 })).toEqual({
      costUsd: 1,
      costSource: "modelInfo",
    });
  });
});
