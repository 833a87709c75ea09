// The adapter registry. Both tables are total over their format types, so adding a format to
// shared/types.ts fails to compile until it has an adapter.

import type { Provider, ProviderFormat, WireFormat } from "../../../shared/types.js";
import type { ProviderAdapter, WireAdapter } from "./adapter.js";
import { anthropicAdapter } from "./anthropic/adapter.js";
import { geminiAdapter } from "./gemini/adapter.js";
import { openaiAdapter } from "./openai/adapter.js";
import { simulatorAdapter } from "./simulator/adapter.js";

const WIRE_ADAPTERS: Record<WireFormat, WireAdapter> = {
  openai: openaiAdapter,
  anthropic: anthropicAdapter,
  gemini: geminiAdapter,
};

const PROVIDER_ADAPTERS: Record<ProviderFormat, ProviderAdapter> = {
  ...WIRE_ADAPTERS,
  simulator: simulatorAdapter,
};

export function adapterFor(format: WireFormat): WireAdapter {
  return WIRE_ADAPTERS[format];
}

export function providerAdapterFor(format: ProviderFormat): ProviderAdapter {
  return PROVIDER_ADAPTERS[format];
}

/** The wire format an upstream call to this provider speaks for a client of `clientFormat`. */
export function upstreamFormatOf(provider: Pick<Provider, "format">, clientFormat: WireFormat): WireFormat {
  return providerAdapterFor(provider.format).upstreamFormatFor(clientFormat);
}
