// Providers & connections (R14.2): every provider with its connections and their live status;
// add, edit, test and delete both. Refreshes itself on config, cooldown and breaker events.
// A cooldown's time left comes from the server's remainingMs (the Cooldown Manager's rows), never
// from rateLimitedUntil against the browser's clock: under --test-clock the two clocks differ.
import { useEffect, useMemo, useState } from "react";
import type { BreakerState, Connection, Provider } from "../../../shared/types.js";
import { Badge } from "../components/Badge.js";
import { ConfirmButton } from "../components/ConfirmButton.js";
import { DataTable } from "../components/DataTable.js";
import { remainingAt, useCountdowns } from "../countdown.js";
import { errorText } from "../stores/liveResource.js";
import { cooldowns } from "../stores/resources.js";
import { call, type ContractOutput } from "../transport.js";
import { connectionStatus, type StatusTone } from "../format.js";
import { providerLists, useProviderLists } from "../stores/providers.js";
import { useDoctor } from "../stores/doctor.js";
import { EmptyProviders } from "./EmptyProviders.js";
import { ConnectionForm } from "./providers/ConnectionForm.js";
import { DoctorButton, DoctorMatrix } from "./providers/DoctorMatrix.js";
import { ProviderForm } from "./providers/ProviderForm.js";

const BREAKER_TONES: Record<BreakerState, StatusTone> = { CLOSED: "ok", DEGRADED: "warn", HALF_OPEN: "warn", OPEN: "bad" };

export function ProvidersPage() {
  useEffect(() => providerLists.watch(), []);
  const { providers, connections, breakers } = useProviderLists();
  const { status, error, reload } = providerLists.use();
  const byProvider = useMemo(() => groupConnections(connections), [connections]);
  useEffect(() => cooldowns.watch(), []);
  const cooling = cooldowns.use();
  const coolingMs = useMemo(() => new Map((cooling.data ?? []).filter((r) => r.status === "cooling_down").map((r) => [r.connectionId, r.remainingMs])), [cooling.data]);
  const now = useCountdowns([...coolingMs.values()], cooling.loadedAt, cooling.reload);
  const coolingLeft = (id: string) => {
    const remaining = coolingMs.get(id);
    return remaining === undefined || remaining === null ? 0 : remainingAt(remaining, cooling.loadedAt, now);
  };
  const [adding, setAdding] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);

  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Providers &amp; connections</h1>
          <p className="muted">Upstream services, and the accounts or keys Switchyard spreads requests over.</p>
        </div>
        <div className="toolbar">
          <button type="button" onClick={() => setAdding(true)} disabled={adding}>
            Add provider
          </button>
          <button type="button" className="secondary" onClick={() => void Promise.all([reload(), cooling.reload()])} disabled={status === "loading"}>
            Refresh
          </button>
        </div>
      </header>

      {error && (
        <p role="alert" className="error-banner">
          Could not load providers: {error}
        </p>
      )}
      {notice && (
        <p role="status" className="notice-ok">
          {notice}
        </p>
      )}
      {adding && (
        <ProviderForm
          provider={null}
          onDone={(saved) => {
            setAdding(false);
            if (saved) setNotice(`Provider ${saved.id} added. Now add a connection (an account or key) to it.`);
            void reload();
          }}
        />
      )}
      {status === "loading" && providers.length === 0 && <p aria-live="polite">Loading…</p>}
      {status === "ready" && providers.length === 0 && !adding && <EmptyProviders origin={window.location.origin} onAdd={() => setAdding(true)} />}

      {providers.map((provider) => (
        <ProviderSection
          key={provider.id}
          provider={provider}
          breaker={breakers[provider.id] ?? null}
          connections={byProvider.get(provider.id) ?? []}
          coolingLeft={coolingLeft}
          onNotice={setNotice}
        />
      ))}
    </div>
  );
}

function ProviderSection(props: { provider: Provider; breaker: BreakerState | null; connections: Connection[]; coolingLeft(id: string): number; onNotice(text: string): void }) {
  const { provider, breaker, connections, coolingLeft } = props;
  const titleId = `provider-${provider.id}`;
  const [mode, setMode] = useState<"view" | "edit" | "add-connection">("view");
  const [failure, setFailure] = useState<string | null>(null);
  const reload = providerLists.use((s) => s.reload);
  const forgetCheck = useDoctor((s) => s.forget);

  const finish = (notice: string | null) => {
    setMode("view");
    if (notice) props.onNotice(notice);
    void reload();
  };

  async function remove() {
    try {
      await call("deleteProvider", { id: provider.id });
      props.onNotice(`Provider ${provider.id} deleted.`);
    } catch (err) {
      setFailure(`Could not delete ${provider.id}: ${errorText(err)}`);
    }
    void reload();
  }

  return (
    <section className="card" aria-labelledby={titleId}>
      <header className="card-header">
        <h2 id={titleId}>{provider.id}</h2>
        <Badge tone="muted">{provider.format}</Badge>
        <Badge tone="muted">{provider.category}</Badge>
        {breaker && <Badge tone={BREAKER_TONES[breaker] ?? "muted"}>Breaker {breaker.toLowerCase().replace("_", "-")}</Badge>}
        <span className="spacer" />
        <DoctorButton providerId={provider.id} />
        <button type="button" className="small" aria-label={`Add connection to ${provider.id}`} onClick={() => setMode("add-connection")}>
          Add connection
        </button>
        <button type="button" className="secondary small" aria-label={`Edit provider ${provider.id}`} onClick={() => setMode("edit")}>
          Edit
        </button>
        <ConfirmButton label="Delete" ariaLabel={`Delete provider ${provider.id}`} confirmLabel={`Delete ${provider.id} and its connections`} onConfirm={remove} />
      </header>
      {failure && (
        <p role="alert" className="error-banner">
          {failure}
        </p>
      )}
      <dl className="facts">
        <div>
          <dt>Base URL</dt>
          <dd>
            <code>{provider.baseUrl || "(built in)"}</code>
          </dd>
        </div>
        <div>
          <dt>Models</dt>
          <dd>{provider.models.length > 0 ? provider.models.join(", ") : provider.passthroughModels ? "any (passthrough)" : "none listed"}</dd>
        </div>
      </dl>
      <DoctorMatrix providerId={provider.id} />
      {mode === "edit" && (
        <ProviderForm
          provider={provider}
          onDone={(saved) => {
            // A changed definition makes the last check stale (R23.4).
            if (saved) forgetCheck(provider.id);
            finish(saved ? `Provider ${provider.id} saved.` : null);
          }}
        />
      )}
      {mode === "add-connection" && <ConnectionForm provider={provider.id} connection={null} onDone={(saved) => finish(saved ? `Connection added to ${provider.id}.` : null)} />}
      {connections.length === 0 ? (
        mode !== "add-connection" && (
          <p className="muted">
            No connections yet: use <strong>Add connection to {provider.id}</strong> with the account's API key. Requests to <code>{provider.id}/&lt;model&gt;</code> need at least
            one.
          </p>
        )
      ) : (
        <DataTable caption={`Connections of ${provider.id}`} columns={["Name", "Status", "Priority", "Active", "Key", "Last error", "Actions"]}>
          {connections.map((connection) => (
            <ConnectionRow key={connection.id} connection={connection} coolingMs={coolingLeft(connection.id)} onNotice={props.onNotice} />
          ))}
        </DataTable>
      )}
    </section>
  );
}

function ConnectionRow({ connection, coolingMs, onNotice }: { connection: Connection; coolingMs: number; onNotice(text: string): void }) {
  // connectionStatus takes the time left as rateLimitedUntil - now: the server's time left on a zero origin.
  const view = connectionStatus({ ...connection, rateLimitedUntil: coolingMs > 0 ? coolingMs : null }, 0);
  const lastError = [connection.lastErrorType, connection.lastError].filter(Boolean).join(": ");
  const [editing, setEditing] = useState(false);
  const [testing, setTesting] = useState(false);
  const [test, setTest] = useState<ContractOutput<"testConnection"> | { ok: false; error: string; latencyMs: null } | null>(null);
  const reload = providerLists.use((s) => s.reload);

  async function runTest() {
    setTesting(true);
    try {
      setTest(await call("testConnection", { id: connection.id }));
    } catch (err) {
      setTest({ ok: false, error: errorText(err), latencyMs: null });
    } finally {
      setTesting(false);
    }
  }

  const finishEdit = (saved: boolean) => {
    setEditing(false);
    if (saved) onNotice(`Connection ${connection.name} saved.`);
    void reload();
  };

  async function remove() {
    try {
      await call("deleteConnection", { id: connection.id });
      onNotice(`Connection ${connection.name} deleted.`);
    } catch (err) {
      setTest({ ok: false, error: `Delete failed: ${errorText(err)}`, latencyMs: null });
    }
    void reload();
  }

  return (
    <>
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
        <td className="actions">
          <button type="button" className="small" aria-label={`Test ${connection.name}`} disabled={testing} onClick={() => void runTest()}>
            {testing ? "Testing…" : "Test"}
          </button>
          <button type="button" className="secondary small" aria-label={`Edit ${connection.name}`} aria-expanded={editing} onClick={() => setEditing((e) => !e)}>
            Edit
          </button>{" "}
          <ConfirmButton label="Delete" ariaLabel={`Delete ${connection.name}`} confirmLabel={`Delete ${connection.name} now`} onConfirm={remove} />
        </td>
      </tr>
      {test && (
        <tr>
          <td colSpan={7}>
            <p role="status" className={test.ok ? "notice-ok" : "error-banner"}>
              {test.ok ? `Test of ${connection.name} passed in ${test.latencyMs} ms.` : `Test of ${connection.name} failed: ${test.error ?? "unknown error"}`}
            </p>
          </td>
        </tr>
      )}
      {editing && (
        <tr>
          <td colSpan={7}>
            <ConnectionForm provider={connection.provider} connection={connection} onDone={finishEdit} />
          </td>
        </tr>
      )}
    </>
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
