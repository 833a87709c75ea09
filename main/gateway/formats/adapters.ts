// The format registry: one line per format. The tables are total over WireFormat, so adding a
// format to shared/types.ts fails to compile until its folder exports both halves.

import { keysOf } from "../../../shared/records.js";
import type { Provider, ProviderFormat, WireFormat } from "../../../shared/types.js";
import type { ClientHalf, FormatHalves, ProviderAdapter, SameFormatHalf, UpstreamHalf } from "./adapter.js";
import type { QuotaHeaderFamily } from "./quota.js";
import { anthropicFormat } from "./anthropic/adapter.js";
import { geminiFormat } from "./gemini/adapter.js";
import { openaiFormat } from "./openai/adapter.js";
import { responsesFormat } from "./responses/adapter.js";
import { simulatorAdapter } from "./simulator/adapter.js";

const FORMATS: Record<WireFormat, FormatHalves> = {
  openai: openaiFormat,
  "openai-responses": responsesFormat,
  anthropic: anthropicFormat,
  gemini: geminiFormat,
};

const FORMAT_NAMES = keysOf(FORMATS);

export function clientHalf(format: WireFormat): ClientHalf {
  return FORMATS[format].client;
}

export function upstreamHalf(format: WireFormat): UpstreamHalf {
  return FORMATS[format].upstream;
}

export function sameFormatHalf(format: WireFormat): SameFormatHalf {
  return FORMATS[format].same;
}

/** Every client half, for the routes that serve them. */
export function clientHalves(): ClientHalf[] {
  return FORMAT_NAMES.map(clientHalf);
}

/** Every upstream half, in registry order. */
export function upstreamHalves(): UpstreamHalf[] {
  return FORMAT_NAMES.map(upstreamHalf);
}

/** R18.3: every upstream half's quota header families, each once, in registry order. */
export function quotaHeaderFamilies(): QuotaHeaderFamily[] {
  return [...new Set(upstreamHalves().flatMap((half) => half.quotaHeaders))];
}

export function providerAdapterFor(format: ProviderFormat): ProviderAdapter {
  return format === "simulator" ? simulatorAdapter : FORMATS[format].upstream;
}

/** The wire format an upstream call to this provider speaks for a client of `clientFormat`. */
export function upstreamFormatOf(provider: Pick<Provider, "format">, clientFormat: WireFormat): WireFormat {
  return providerAdapterFor(provider.format).upstreamFormatFor(clientFormat);
}
