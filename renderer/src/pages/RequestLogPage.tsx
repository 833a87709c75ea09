// Request log (R15.1): the newest requests with their outcome, filterable by provider, model and
// status; new requests appear at the top as they finish (live `request` events).
import { useEffect, useMemo, useState, type FormEvent } from "react";
import type { RequestLogEntry } from "../../../shared/types.js";
import { Badge } from "../components/Badge.js";
import { DataTable } from "../components/DataTable.js";
import { SelectField, TextField } from "../components/Field.js";
import { providerLists, useProviderLists } from "../stores/providers.js";
import { NO_FILTERS, useRequestLog, watchRequestLog, type LogFilters } from "../stores/requestLog.js";

export function RequestLogPage() {
  useEffect(() => watchRequestLog(), []);
  useEffect(() => providerLists.watch(), []);
  const { entries, filters, status, error, setFilters } = useRequestLog();
  const { providers, connections } = useProviderLists();
  const [draft, setDraft] = useState<LogFilters>(filters);
  const models = useMemo(() => [...new Set(entries.map((e) => e.model))].sort(), [entries]);
  const filtered = filters.provider || filters.model || filters.status;
  const connectionName = (id: string | null) => (id ? connections.find((c) => c.id === id)?.name ?? id : null);

  function apply(event: FormEvent) {
    event.preventDefault();
    void setFilters(draft);
  }

  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Request log</h1>
          <p className="muted">Every client request with the connection that served it, its status, latency and attempts. New requests appear live.</p>
        </div>
      </header>
      <form className="card" noValidate onSubmit={apply} aria-label="Filter the request log">
        <div className="form-grid">
          <SelectField
            label="Provider"
            value={draft.provider}
            onChange={(provider) => setDraft((d) => ({ ...d, provider }))}
            options={[{ value: "", label: "All providers" }, ...providers.map((p) => ({ value: p.id, label: p.id }))]}
          />
          <TextField label="Model" list="log-models" value={draft.model} onChange={(model) => setDraft((d) => ({ ...d, model }))} hint="exact name as requested" />
          <TextField label="Status" inputMode="numeric" value={draft.status} onChange={(s) => setDraft((d) => ({ ...d, status: s }))} hint="e.g. 200, 429, 503" />
        </div>
        <datalist id="log-models">
          {models.map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
        <div className="form-actions">
          <button type="submit">Apply filters</button>
          <button type="button" className="secondary" disabled={!filtered} onClick={() => {
              setDraft(NO_FILTERS);
              void setFilters(NO_FILTERS);
            }}>
            Clear filters
          </button>
        </div>
      </form>
      {error && <p role="alert" className="error-banner">Could not load the log: {error}</p>}
      {status === "ready" && entries.length === 0 && (
        <section className="empty" aria-labelledby="no-requests">
          <h2 id="no-requests">{filtered ? "No request matches these filters" : "No requests yet"}</h2>
          {filtered ? (
            <p>Clear or change the filters; matching requests will appear here as they arrive.</p>
          ) : (
            <p>
              Point a client at <code>{window.location.origin}/v1</code> (OpenAI) or <code>{window.location.origin}</code> (Anthropic) and send
              a request; it appears here as soon as it finishes.
            </p>
          )}
        </section>
      )}
      {entries.length > 0 && (
        <DataTable className="card" caption="Requests, newest first" columns={["Time", "Model", "Served by", "Status", { label: "Latency (first byte)", numeric: true }, "Attempts"]}>
          {entries.map((entry) => (
            <LogRow key={entry.id} entry={entry} connection={connectionName(entry.connectionId)} />
          ))}
        </DataTable>
      )}
    </div>
  );
}

function LogRow({ entry, connection }: { entry: RequestLogEntry; connection: string | null }) {
  const tone = entry.status < 400 ? "ok" : entry.status === 429 || entry.status === 503 ? "warn" : "bad";
  const verdicts = entry.attempts.map((a) => `${a.provider}: ${a.status ?? "—"}${a.verdict ? ` ${a.verdict}` : ""}`).join("; ");
  return (
    <tr>
      <td className="nowrap">{new Date(entry.time).toLocaleTimeString()}</td>
      <th scope="row" className="nowrap">
        {entry.model}
        {entry.combo && entry.combo !== entry.model && <span className="muted"> (combo {entry.combo})</span>}
      </th>
      <td>{entry.provider ? `${entry.provider}${connection ? ` · ${connection}` : ""}` : <span className="muted">—</span>}</td>
      <td>
        <Badge tone={tone}>{entry.status}</Badge> {entry.errorCode && <code>{entry.errorCode}</code>}
      </td>
      <td className="num nowrap">
        {entry.latencyMs} ms{entry.ttfbMs !== null && <span className="muted"> ({entry.ttfbMs} ms)</span>}
      </td>
      <td className="last-error log-attempts" title={verdicts || undefined}>
        {entry.attempts.length}
        {entry.attempts.length > 1 && <span className="muted"> · {entry.attempts.map((a) => a.status ?? "—").join(" → ")}</span>}
      </td>
    </tr>
  );
}
