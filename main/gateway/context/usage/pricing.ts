// R18.1: what a request cost. The provider's modelInfo prices win; otherwise the pricing catalogue
// of @pydantic/genai-prices (shipped in the package, read offline, never auto-updated here) names the
// model's prices. Finding a model in the catalogue costs tens of microseconds, so each
// (provider, model) is looked up once and its rates kept; the arithmetic per request is ours and a
// unit test holds it to the library's own calcPrice.
import { calcPrice, type ModelPrice, type PriceCalculation } from "@pydantic/genai-prices";
import type { Provider } from "../../../../shared/types.js";
import { providerAdapterFor } from "../../formats/index.js";

export interface TokenUse {
  /** Every prompt token, cache reads and writes included. */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** Per million tokens; a tier applies its price once the prompt holds more than `start` tokens. */
interface Rate {
  base: number;
  tiers: ReadonlyArray<{ start: number; price: number }>;
}

export interface Rates {
  input: Rate | null;
  output: Rate | null;
  cacheRead: Rate | null;
  cacheWrite: Rate | null;
  source: "modelInfo" | "catalog";
}

export interface Price {
  costUsd: number | null;
  costSource: "modelInfo" | "catalog" | null;
}

const NO_PRICE: Price = { costUsd: null, costSource: null };

function flat(value: number | undefined): Rate | null {
  return value === undefined ? null : { base: value, tiers: [] };
}

function rateOf(value: ModelPrice[string]): Rate | null {
  if (value === undefined) return null;
  if (typeof value === "number") return { base: value, tiers: [] };
  return { base: value.base, tiers: [...value.tiers].sort((a, b) => a.start - b.start) };
}

function fromModelInfo(provider: Provider, model: string): Rates | null {
  const info = provider.modelInfo?.[model];
  if (!info || (info.inputPricePerMTok === undefined && info.outputPricePerMTok === undefined)) return null;
  return {
    input: flat(info.inputPricePerMTok),
    output: flat(info.outputPricePerMTok),
    cacheRead: flat(info.cacheReadPricePerMTok),
    cacheWrite: flat(info.cacheWritePricePerMTok),
    source: "modelInfo",
  };
}

/** Loopback and private hosts (the simulator, a local model) never name a catalogue provider. */
function publicApiUrl(baseUrl: string): string | undefined {
  try {
    const host = new URL(baseUrl).hostname;
    if (host === "localhost" || /^(127\.|10\.|192\.168\.|\[?::1)/.test(host)) return undefined;
    return baseUrl;
  } catch {
    return undefined;
  }
}

/** The shipped catalogue's entry of this provider's model (by its API URL, its format's provider, else the name alone), or null. */
function catalogueMatch(provider: Provider, model: string): PriceCalculation | null {
  const probe = { input_tokens: 1_000, output_tokens: 1_000 };
  const apiUrl = publicApiUrl(provider.baseUrl);
  const providerId = providerAdapterFor(provider.format).pricingProvider;
  return (apiUrl ? calcPrice(probe, model, { providerApiUrl: apiUrl }) : null) ?? (providerId ? calcPrice(probe, model, { providerId }) : null) ?? calcPrice(probe, model);
}

/** R25.1: the context window the shipped catalogue names for this provider's model, or null (tens of microseconds: callers keep it). */
export function catalogueContextWindow(provider: Provider, model: string): number | null {
  const window = catalogueMatch(provider, model)?.model.context_window;
  return typeof window === "number" && window > 0 ? window : null;
}

function fromCatalog(provider: Provider, model: string): Rates | null {
  const found = catalogueMatch(provider, model);
  if (!found) return null;
  const p = found.model_price;
  return {
    input: rateOf(p["input_mtok"]),
    output: rateOf(p["output_mtok"]),
    cacheRead: rateOf(p["cache_read_mtok"]),
    cacheWrite: rateOf(p["cache_write_mtok"]),
    source: "catalog",
  };
}

function priceAt(rate: Rate, promptTokens: number): number {
  let price = rate.base;
  for (const tier of rate.tiers) if (promptTokens > tier.start) price = tier.price;
  return price;
}

/** The cost of one request at these rates; cached tokens without a price of their own cost input's. */
export function costAt(rates: Rates, use: TokenUse): number {
  const prompt = use.inputTokens;
  const inputPrice = rates.input ? priceAt(rates.input, prompt) : 0;
  const readPrice = rates.cacheRead ? priceAt(rates.cacheRead, prompt) : inputPrice;
  const writePrice = rates.cacheWrite ? priceAt(rates.cacheWrite, prompt) : inputPrice;
  const outputPrice = rates.output ? priceAt(rates.output, prompt) : 0;
  const uncached = Math.max(0, prompt - use.cacheReadTokens - use.cacheWriteTokens);
  return (uncached * inputPrice + use.cacheReadTokens * readPrice + use.cacheWriteTokens * writePrice + use.outputTokens * outputPrice) / 1_000_000;
}

export interface Pricer {
  rates(provider: Provider, model: string): Rates | null;
  price(provider: Provider | null, model: string, use: TokenUse): Price;
}

/** Rates are kept per provider version and model: a modelInfo edit (a new updatedAt) is seen at once. */
export function createPricer(maxEntries = 2_000): Pricer {
  const memo = new Map<string, Rates | null>();
  const rates = (provider: Provider, model: string): Rates | null => {
    const key = `${provider.id}\u0000${provider.updatedAt}\u0000${model}`;
    let found = memo.get(key);
    if (found === undefined) {
      found = fromModelInfo(provider, model) ?? fromCatalog(provider, model);
      if (memo.size >= maxEntries) memo.clear();
      memo.set(key, found);
    }
    return found;
  };
  return {
    rates,
    price(provider, model, use) {
      if (!provider || !model) return NO_PRICE;
      const found = rates(provider, model);
      return found ? { costUsd: costAt(found, use), costSource: found.source } : NO_PRICE;
    },
  };
}
