// POST /api/connections/:id/test: one tiny real call through the same upstream path as traffic.
import type { Provider, WireFormat } from "../../shared/types.js";
import type { Store } from "../store/types.js";
import { translateRequest, upstreamPath } from "../gateway/formats/index.js";
import { readBodyText, transportErrorCode, type UpstreamClient } from "../gateway/upstream/client.js";
import { buildUpstreamHeaders } from "../gateway/upstream/headers.js";
import { redactSecret } from "../gateway/redact.js";

export interface ConnectionTestResult {
  ok: boolean;
  latencyMs: number;
  error?: string;
}

export function createConnectionTester(deps: {
  store: Store;
  upstream: UpstreamClient;
  userAgent: string;
  onPassed: (provider: Provider, connectionId: string) => void;
  baseUrlFor: (provider: Provider) => Promise<string>;
}) {
  return async (connectionId: string): Promise<ConnectionTestResult> => {
    const connection = deps.store.connections.get(connectionId);
    if (!connection) return { ok: false, latencyMs: 0, error: "connection not found" };
    const provider = deps.store.providers.get(connection.provider);
    if (!provider) return { ok: false, latencyMs: 0, error: "provider not found" };
    const format: WireFormat = provider.format === "simulator" ? "openai" : provider.format;
    const model = provider.models[0] ?? "test";
    const probe = { model, max_tokens: 1, messages: [{ role: "user", content: "ping" }] };
    const { body } = translateRequest("openai", format, probe, model);
    const secret = deps.store.connections.getSecret(connectionId);
    const headers = buildUpstreamHeaders(provider, format, "openai", secret, {}, deps.userAgent);
    const t0 = Date.now();
    try {
      const res = await deps.upstream.send({
        url: (await deps.baseUrlFor(provider)).replace(/\/+$/, "") + upstreamPath(format, model, false),
        headers, body: JSON.stringify(body), signal: AbortSignal.timeout(20_000), headersTimeoutMs: 20_000, bodyTimeoutMs: 20_000,
      });
      const text = await readBodyText(res.body, 4096);
      const latencyMs = Date.now() - t0;
      if (res.status >= 400) return { ok: false, latencyMs, error: `upstream answered ${res.status}: ${redactSecret(text, secret).slice(0, 200)}` };
      deps.onPassed(provider, connectionId);
      return { ok: true, latencyMs };
    } catch (err) {
      return { ok: false, latencyMs: Date.now() - t0, error: `upstream unreachable (${transportErrorCode(err)})` };
    }
  };
}
