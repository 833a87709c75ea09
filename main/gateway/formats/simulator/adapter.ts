// The built-in simulator provider (R0.5) has no wire format of its own: it answers in whatever
// format the client speaks, so traffic to it is never translated. It takes fault programs per
// request (the client's x-sim-fault header) or per provider (`options.fault` in its config).

import { firstHeader, type ProviderAdapter } from "../adapter.js";

export const simulatorAdapter: ProviderAdapter = {
  upstreamFormatFor: (clientFormat) => clientFormat,
  // Its models are priced by their names alone (it stands in for any vendor).
  pricingProvider: null,
  limitsPerModel: false,
  baseUrlConvention: "a simulator base URL is the simulator's origin (or empty for the built-in one)",
  extraHeaders: (provider, clientHeaders): Record<string, string> => {
    // The request's own choice wins over the provider's standing fault.
    const fault = firstHeader(clientHeaders, "x-sim-fault") ?? (provider.options.fault ? JSON.stringify(provider.options.fault) : undefined);
    return fault ? { "x-sim-fault": fault } : {};
  },
};
