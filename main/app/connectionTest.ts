// POST /api/connections/:id/test: one tiny real call through the same upstream path as traffic.
import type { ConnectionTestResult } from "../../shared/apiTypes.js";
import type { Provider } from "../../shared/types.js";
import type { Clock } from "../engine/ports.js";
import type { Store } from "../store/types.js";
import { translateRequest, upstreamFormatOf, upstreamPath } from "../gateway/formats/index.js";
import { AUXILIARY_CALL_CEILING_MS, UpstreamCallError, type CallUpstream } from "../gateway/upstream/call.js";

export function createConnectionTester(deps: { store: Store; callUpstream: CallUpstream; clock: Clock; onPassed: (provider: Provider, connectionId: string) => void }) {
  return async (connectionId: string): Promise<ConnectionTestResult> => {
    const connection = deps.store.connections.get(connectionId);
    if (!connection) return { ok: false, latencyMs: 0, error: "connection not found" };
    const provider = deps.store.providers.get(connection.provider);
    if (!provider) return { ok: false, latencyMs: 0, error: "provider not found" };
    const format = upstreamFormatOf(provider, "openai");
    const model = provider.models[0] ?? "test";
    const probe = { model, max_tokens: 1, messages: [{ role: "user", content: "ping" }] };
    const { body } = translateRequest("openai", format, probe, model);
    const t0 = deps.clock.now();
    try {
      const call = await deps.callUpstream({
        provider,
        upstreamFormat: format,
        clientFormat: "openai",
        secret: deps.store.connections.getSecret(connectionId),
        clientHeaders: {},
        path: upstreamPath(format, model, false),
        body,
        ceilingMs: AUXILIARY_CALL_CEILING_MS,
      });
      const text = await call.errorText(4096);
      const latencyMs = deps.clock.now() - t0;
      if (call.response.status >= 400) return { ok: false, latencyMs, error: `upstream answered ${call.response.status}: ${text.slice(0, 200)}` };
      deps.onPassed(provider, connectionId);
      return { ok: true, latencyMs };
    } catch (err) {
      if (!(err instanceof UpstreamCallError)) throw err;
      return { ok: false, latencyMs: deps.clock.now() - t0, error: `upstream unreachable (${err.code})` };
    }
  };
}
