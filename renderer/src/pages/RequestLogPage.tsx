// Request log (R15.1, issue 14): the newest requests with their outcome, filterable by status,
// provider, model, combo, client and time; new requests appear at the top as they finish (live
// `request` events) with their traffic class (R20.3), and each opens into the timeline of its attempts.
import { useEffect, useMemo, useState, type SubmitEvent } from "react";
import { keysOf } from "../../../shared/records.js";
import type { RequestLogEntry } from "../../../shared/types.js";
import { Badge } from "../components/Badge.js";
import { DataTable } from "../components/DataTable.js";
import { SelectField, TextField } from "../components/Field.js";
import { providerLists, useProviderLists } from "../stores/providers.js";
import { isFiltered, NO_FILTERS, useRequestLog, watchRequestLog, type LogFilters, type LogWindow } from "../stores/requestLog.js";
import { combos } from "../stores/resources.js";
import { CLIENT_LABELS } from "./connect/snippets.js";
import { TRAFFIC_CLASS_MEANINGS, TRAFFIC_CLASS_TONES } from "./logs/agentSteps.js";
import { PromptLoggingCard } from "./logs/PromptLoggingCard.js";
import { RequestTimeline } from "./logs/RequestTimeline.js";

const WINDOW_OPTIONS: Array<{ value: LogWindow; label: string }> = [
  { value: "", label: "Any time" },
  { value: "15m", label: "Last 15 minutes" },
  { value: "1h", label: "Last hour" },
  { value: "24h", label: "Last 24 hours" },
];

const CLIENT_OPTIONS = [{ value: "" as const, label: "All clients" }, ...keysOf(CLIENT_LABELS).map((value) => ({ value, label: CLIENT_LABELS[value] }))];

export function RequestLogPage() {
  useEffect(() => watchRequestLog(), []);
  useEffect(() => providerLists.watch(), []);
  useEffect(() => combos.watch(), []);
  const { entries, filters, status, error, setFilters } = useRequestLog();
  const { providers, connections } = useProviderLists();
  const comboList = combos.use((s) => s.data) ?? [];
  const [draft, setDraft] = useState<LogFilters>(filters);
  const [openId, setOpenId] = useState<string | null>(null);
  const models = useMemo(() => [...new Set(entries.map((e) => e.model))].sort(), [entries]);
  const filtered = isFiltered(filters);
  const connectionName = (id: string | null) => (id ? (connections.find((c) => c.id === id)?.name ?? id) : null);
  const set =
    <K extends keyof LogFilters>(key: K) =>
    (value: LogFilters[K]) =>
      setDraft((d) => ({ ...d, [key]: value }));

  function apply(event: SubmitEvent) {
    event.preventDefault();
    void setFilters(draft);
  }

  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Request log</h1>
          <p className="muted">
            Every client request with the connection that served it, its status, latency and attempts. New requests appear live; open one to see why it went where it went.
          </p>
        </div>
      </header>
      <form className="card" noValidate onSubmit={apply} aria-label="Filter the request log">
        <div className="form-grid">
          <TextField label="Status" inputMode="numeric" value={draft.status} onChange={set("status")} hint="e.g. 200, 429, 503" />
          <SelectField
            label="Provider"
            value={draft.provider}
            onChange={set("provider")}
            options={[{ value: "", label: "All providers" }, ...providers.map((p) => ({ value: p.id, label: p.id }))]}
          />
          <TextField label="Model" list="log-models" value={draft.model} onChange={set("model")} hint="exact name as requested" />
          <SelectField
            label="Combo"
            value={draft.combo}
            onChange={set("combo")}
            options={[{ value: "", label: "Any or none" }, ...comboList.map((c) => ({ value: c.name, label: c.name }))]}
          />
          <SelectField label="Client" value={draft.client} onChange={set("client")} options={CLIENT_OPTIONS} />
          <SelectField label="Time" value={draft.window} onChange={set("window")} options={WINDOW_OPTIONS} />
        </div>
        <datalist id="log-models">
          {models.map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
        <div className="form-actions">
          <button type="submit">Apply filters</button>
          <button
            type="button"
            className="secondary"
            disabled={!filtered}
            onClick={() => {
              setDraft(NO_FILTERS);
              void setFilters(NO_FILTERS);
            }}
          >
            Clear filters
          </button>
        </div>
      </form>
      {openId && <RequestTimeline id={openId} name={connectionName} onClose={() => setOpenId(null)} />}
      {error && (
        <p role="alert" className="error-banner">
          Could not load the log: {error}
        </p>
      )}
      {status === "ready" && entries.length === 0 && (
        <section className="empty" aria-labelledby="no-requests">
          <h2 id="no-requests">{filtered ? "No request matches these filters" : "No requests yet"}</h2>
          {filtered ? (
            <p>Clear or change the filters; matching requests will appear here as they arrive.</p>
          ) : (
            <p>
              Point a client at <code>{window.location.origin}/v1</code> (OpenAI) or <code>{window.location.origin}</code> (Anthropic) and send a request; it appears here as soon
              as it finishes. The Connect your tools page has the lines for each tool.
            </p>
          )}
        </section>
      )}
      {entries.length > 0 && (
        <DataTable
          className="card log-table"
          caption="Requests, newest first"
          columns={["Time", "Model", "Served by", "Status", { label: "Latency (first byte)", numeric: true }, "Attempts", "Class", "Client"]}
        >
          {entries.map((entry) => (
            <LogRow key={entry.id} entry={entry} connection={connectionName(entry.connectionId)} onOpen={() => setOpenId(entry.id)} />
          ))}
        </DataTable>
      )}
      <PromptLoggingCard />
    </div>
  );
}

function LogRow({ entry, connection, onOpen }: { entry: RequestLogEntry; connection: string | null; onOpen(): void }) {
  const tone = entry.status < 400 ? "ok" : entry.status === 429 || entry.status === 503 ? "warn" : "bad";
  const verdicts = entry.attempts.map((a) => `${a.provider}: ${a.status ?? "—"}${a.verdict ? ` ${a.verdict}` : ""}`).join("; ");
  const time = new Date(entry.time).toLocaleTimeString();
  return (
    <tr>
      <td className="nowrap">
        <button type="button" className="link" onClick={onOpen}>
          {time}
          <span className="visually-hidden"> {entry.model}: open its timeline</span>
        </button>
      </td>
      <th scope="row" className="nowrap">
        {entry.model}
        {entry.combo && entry.combo !== entry.model && <span className="muted"> (combo {entry.combo})</span>}
      </th>
      <td>{entry.provider ? `${entry.provider}${connection ? ` · ${connection}` : ""}` : <span className="muted">—</span>}</td>
      <td>
        <Badge tone={tone}>{entry.status}</Badge> {entry.errorCode && <code>{entry.errorCode}</code>}
      </td>
      {/* The first-byte time may take a second line, so that a 1024 px window holds every column. */}
      <td className="num">
        <span className="nowrap">{entry.latencyMs} ms</span>
        {entry.ttfbMs !== null && (
          <>
            {" "}
            <span className="muted nowrap">({entry.ttfbMs} ms)</span>
          </>
        )}
      </td>
      <td className="last-error log-attempts" title={verdicts || undefined}>
        {entry.attempts.length}
        {entry.attempts.length > 1 && <span className="muted"> · {entry.attempts.map((a) => a.status ?? "—").join(" → ")}</span>}
      </td>
      <td title={entry.trafficClass && TRAFFIC_CLASS_MEANINGS[entry.trafficClass]}>
        {entry.trafficClass ? <Badge tone={TRAFFIC_CLASS_TONES[entry.trafficClass]}>{entry.trafficClass}</Badge> : <span className="muted">—</span>}
      </td>
      <td>{entry.clientKind ? CLIENT_LABELS[entry.clientKind] : <span className="muted">—</span>}</td>
    </tr>
  );
}
