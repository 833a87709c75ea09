// Providers & connections (R14.2): every provider with its connections and their live status.
// Refreshes itself on config, cooldown and breaker events; no polling.
import { useEffect, useMemo } from "react";
import type { BreakerState, Connection, Provider } from "../../../shared/types.js";
import { Badge } from "../components/Badge.js";
import { connectionStatus, type StatusTone } from "../format.js";
import { useProviders, watchProviders } from "../stores/providers.js";
import { useNow } from "../useNow.js";
import { EmptyProviders } from "./EmptyProviders.js";

const BREAKER_TONES: Record<BreakerState, StatusTone> = { CLOSED: "ok", DEGRADED: "warn", HALF_OPEN: "warn", OPEN: "bad" };

export function ProvidersPage() {
  useEffect(() => watchProviders(), []);
  const { providers, connections, breakers, status, error, reload } = useProviders();
  const byProvider = useMemo(() => groupConnections(connections), [connections]);
  const anyCooling = connections.some((c) => c.rateLimitedUntil !== null && c.rateLimitedUntil > Date.now());
  const now = useNow(anyCooling ? 1_000 : null);

  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Providers &amp; connections</h1>
          <p className="muted">Upstream services, and the accounts or keys Switchyard spreads requests over.</p>
        </div>
        <button type="button" onClick={() => void reload()} disabled={status === "loading"}>
          Refresh
        </button>
      </header>

      {error && (
        <p role="alert" className="error-banner">
          Could not load providers: {error}
        </p>
      )}
      {status === "loading" && providers.length === 0 && <p aria-live="polite">Loading…</p>}
      {status === "ready" && providers.length === 0 && <EmptyProviders origin={window.location.origin} />}

      {providers.map((provider) => (
        <ProviderSection key={provider.id} provider={provider} breaker={breakers[provider.id] ?? null} connections={byProvider.get(provider.id) ?? []} now={now} />
      ))}
    </div>
  );
}

function ProviderSection({ provider, breaker, connections, now }: { provider: Provider; breaker: BreakerState | null; connections: Connection[]; now: number }) {
  const titleId = `provider-${provider.id}`;
  return (
    <section className="card" aria-labelledby={titleId}>
      <header className="card-header">
        <h2 id={titleId}>{provider.id}</h2>
        <Badge tone="muted">{provider.format}</Badge>
        <Badge tone="muted">{provider.category}</Badge>
        {breaker && <Badge tone={BREAKER_TONES[breaker] ?? "muted"}>Breaker {breaker.toLowerCase().replace("_", "-")}</Badge>}
      </header>
      <dl className="facts">
        <div>
          <dt>Base URL</dt>
          <dd>
            <code>{provider.baseUrl}</code>
          </dd>
        </div>
        <div>
          <dt>Models</dt>
          <dd>{provider.models.length > 0 ? provider.models.join(", ") : provider.passthroughModels ? "any (passthrough)" : "none listed"}</dd>
        </div>
      </dl>
      {connections.length === 0 ? (
        <p className="muted">
          No connections yet. Add one with <code>POST /api/connections</code> and <code>{`{"provider":"${provider.id}","name":…,"apiKey":…}`}</code>.
        </p>
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Connections of {provider.id}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Priority</th>
                <th scope="col">Active</th>
                <th scope="col">Key</th>
                <th scope="col">Last error</th>
              </tr>
            </thead>
            <tbody>
              {connections.map((connection) => (
                <ConnectionRow key={connection.id} connection={connection} now={now} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function ConnectionRow({ connection, now }: { connection: Connection; now: number }) {
  const view = connectionStatus(connection, now);
  const lastError = [connection.lastErrorType, connection.lastError].filter(Boolean).join(": ");
  return (
    <tr>
      <th scope="row">{connection.name}</th>
      <td>
        <Badge tone={view.tone}>{view.label}</Badge>
      </td>
      <td>{connection.priority}</td>
      <td>{connection.active ? "Yes" : "No"}</td>
      <td>{connection.hasSecret ? "Set" : "None"}</td>
      <td className="last-error" title={lastError || undefined}>
        {lastError || <span className="muted">—</span>}
      </td>
    </tr>
  );
}

/** Connections per provider, lowest priority number first (it is tried first), then by name. */
function groupConnections(connections: Connection[]): Map<string, Connection[]> {
  const map = new Map<string, Connection[]>();
  for (const connection of connections) {
    const list = map.get(connection.provider) ?? [];
    list.push(connection);
    map.set(connection.provider, list);
  }
  for (const list of map.values()) list.sort((a, b) => a.priority - b.priority || a.name.localeCompare(b.name));
  return map;
}
