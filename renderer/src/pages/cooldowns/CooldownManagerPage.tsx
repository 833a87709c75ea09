// Cooldown Manager (R6, D6): every connection out of routing, with a live countdown, its backoff
// level and last error; clear one, a selection, or all of a provider, and see what the server did.
// Terminal states are listed but cannot be cleared here (R4.6), and the page says why; so are
// connections skipped for being over budget until the period ends (R18.4).
import { useEffect, useMemo, useState } from "react";
import type { ClearCooldownsResult, CooldownRow } from "../../../../shared/apiTypes.js";
import { Badge } from "../../components/Badge.js";
import { DataTable } from "../../components/DataTable.js";
import { SettingsCard } from "../../components/SettingsCard.js";
import { remainingAt, useCountdowns } from "../../countdown.js";
import { formatRemaining, type StatusTone } from "../../format.js";
import { errorText } from "../../stores/liveResource.js";
import { cooldowns, resilienceSettings } from "../../stores/resources.js";
import { call } from "../../transport.js";
import type { SettingField } from "../../settingsForm.js";
import { ErrorRulesCard } from "./ErrorRulesCard.js";

const STATUS: Record<CooldownRow["status"], { label: string; tone: StatusTone }> = {
  cooling_down: { label: "Cooling down", tone: "warn" },
  model_locked: { label: "Model locked", tone: "warn" },
  unavailable: { label: "Unavailable", tone: "warn" },
  terminal: { label: "Terminal", tone: "bad" },
  slow_lane: { label: "Slow lane", tone: "muted" },
  budget: { label: "Over budget", tone: "warn" },
};

const TERMINAL_LABELS: Record<string, string> = { banned: "Banned", expired: "Expired", credits_exhausted: "Credits exhausted" };

// R6.3: what this page edits of the resilience document.
const RULE_FIELDS: readonly SettingField[] = [
  { path: "streamStallCooldown.enabled", label: "Cool a connection after a stream stall", kind: "bool", help: "off: a stall is only recorded (R4.8)" },
  { path: "connectionCooldown.oauth.baseCooldownMs", label: "OAuth: base cooldown", kind: "ms" },
  { path: "connectionCooldown.oauth.maxBackoffSteps", label: "OAuth: max backoff steps", kind: "int" },
  { path: "connectionCooldown.apikey.baseCooldownMs", label: "API key: base cooldown", kind: "ms" },
  { path: "connectionCooldown.apikey.maxBackoffSteps", label: "API key: max backoff steps", kind: "int" },
];

type Outcome = { kind: "ok"; what: string; result: ClearCooldownsResult } | { kind: "error"; what: string; message: string };

export function CooldownManagerPage() {
  useEffect(() => cooldowns.watch(), []);
  useEffect(() => resilienceSettings.watch(), []);
  const { data, status, error, loadedAt, reload } = cooldowns.use();
  const rows = useMemo(() => data ?? [], [data]);
  const now = useCountdowns(
    rows.map((r) => r.remainingMs),
    loadedAt,
    reload,
  );
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [busy, setBusy] = useState(false);

  // A row that left the list (expired, cleared elsewhere) cannot stay selected.
  useEffect(() => {
    setSelected((s) => {
      const present = new Set(rows.filter((r) => clearable(r.status)).map((r) => r.connectionId));
      const kept = [...s].filter((id) => present.has(id));
      return kept.length === s.size ? s : new Set(kept);
    });
  }, [rows]);

  const byProvider = useMemo(() => {
    const map = new Map<string, CooldownRow[]>();
    for (const row of rows) map.set(row.provider, [...(map.get(row.provider) ?? []), row]);
    return map;
  }, [rows]);

  async function clear(what: string, body: Record<string, unknown>) {
    setBusy(true);
    try {
      const result = await call("clearCooldowns", body);
      setOutcome({ kind: "ok", what, result });
      setSelected(new Set());
    } catch (err) {
      setOutcome({ kind: "error", what, message: errorText(err) });
    } finally {
      setBusy(false);
      void reload();
    }
  }

  const toggle = (id: string, on: boolean) =>
    setSelected((s) => {
      const next = new Set(s);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });

  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Cooldown Manager</h1>
          <p className="muted">
            Connections that Switchyard is not routing to right now, and why (over budget among the reasons), and Claude accounts in the slow lane. Countdowns run live.
          </p>
        </div>
      </header>

      <div className="toolbar">
        <button type="button" disabled={busy || selected.size === 0} onClick={() => void clear(`${selected.size} selected`, { connectionIds: [...selected] })}>
          Clear selected ({selected.size})
        </button>
        <button type="button" className="secondary" disabled={busy || rows.length === 0} onClick={() => void clear("all providers", { all: true })}>
          Clear all cooldowns
        </button>
      </div>
      <ClearOutcome outcome={outcome} />

      {error && (
        <p role="alert" className="error-banner">
          Could not load cooldowns: {error}
        </p>
      )}
      {status === "loading" && !data && <p aria-live="polite">Loading…</p>}
      {data && rows.length === 0 && (
        <section className="empty" aria-labelledby="no-cooldowns">
          <h2 id="no-cooldowns">Every connection is in routing</h2>
          <p>
            When an upstream rate-limits a key (HTTP 429), rejects it, or runs out of credit, the connection appears here with the time left before Switchyard tries it again. You
            can clear a cooldown early; banned, expired or out-of-credit connections are shown but need new credentials on the <a href="#/providers">Providers</a> page.
          </p>
        </section>
      )}

      {[...byProvider.entries()].map(([provider, list]) => (
        <section className="card" key={provider} aria-labelledby={`cd-${provider}`}>
          <header className="card-header">
            <h2 id={`cd-${provider}`}>{provider}</h2>
            <span className="spacer" />
            <button type="button" className="secondary small" disabled={busy} onClick={() => void clear(`all of ${provider}`, { all: true, provider })}>
              Clear all of {provider}
            </button>
          </header>
          <DataTable
            caption={`Connections of ${provider} out of routing`}
            columns={["Connection", "Status", "Time left", { label: "Backoff", numeric: true }, "Last error · lockouts", "Action"]}
          >
            {list.map((row) => (
              <CooldownTableRow
                key={row.connectionId}
                row={row}
                left={row.remainingMs === null ? null : remainingAt(row.remainingMs, loadedAt, now)}
                selected={selected.has(row.connectionId)}
                busy={busy}
                onToggle={toggle}
                onClear={() => void clear(row.name, { connectionIds: [row.connectionId] })}
              />
            ))}
          </DataTable>
        </section>
      ))}

      <SettingsCard title="Cooldown rules" description="How long a connection rests after a failure: base × 2^level, up to the step cap (R4.2)." fields={RULE_FIELDS} />
      <ErrorRulesCard />
    </div>
  );
}

function CooldownTableRow(props: { row: CooldownRow; left: number | null; selected: boolean; busy: boolean; onToggle(id: string, on: boolean): void; onClear(): void }) {
  const { row, left } = props;
  const terminal = row.status === "terminal";
  // R12.6: a slow-lane account still routes; there is no cooldown to clear.
  const slowLane = row.status === "slow_lane";
  // R18.4: clearing does not lift a budget; the period's end (or a new budget) does.
  const overBudget = row.status === "budget";
  const status = STATUS[row.status];
  const explainId = `why-${row.connectionId}`;
  return (
    <tr>
      <th scope="row">
        <label className="nowrap">
          <input type="checkbox" checked={props.selected} disabled={!clearable(row.status)} onChange={(e) => props.onToggle(row.connectionId, e.target.checked)} /> {row.name}
        </label>
      </th>
      <td>
        <Badge tone={status.tone}>{terminal ? (TERMINAL_LABELS[row.testStatus] ?? row.testStatus) : status.label}</Badge>
        {slowLane && row.slowLaneUntil !== null && <span className="field-hint"> until {new Date(row.slowLaneUntil).toLocaleTimeString()}</span>}
      </td>
      <td className={terminal ? undefined : "nowrap"}>
        {left !== null ? (
          formatRemaining(left)
        ) : terminal ? (
          <span id={explainId} className="field-hint">
            Not a cooldown: replace the key on the Providers page.
          </span>
        ) : (
          <span className="muted">—</span>
        )}
      </td>
      <td className="num">{row.backoffLevel}</td>
      <td>
        {overBudget ? <span id={explainId}>over budget: raise or remove the budget in the connection form</span> : (row.lastErrorType ?? <span className="muted">—</span>)}
        {row.lockouts.length > 0 && <span className="field-hint"> · {row.lockouts.map((l) => `${l.model} locked (${l.reason})`).join(", ")}</span>}
      </td>
      <td className="actions">
        <button
          type="button"
          className="small"
          aria-label={`Clear ${row.name}`}
          disabled={!clearable(row.status) || props.busy}
          aria-describedby={terminal || overBudget ? explainId : undefined}
          onClick={props.onClear}
        >
          Clear
        </button>
      </td>
    </tr>
  );
}

/** Terminal states need new credentials, the slow lane still routes, a budget ends with its period. */
function clearable(status: CooldownRow["status"]): boolean {
  return status !== "terminal" && status !== "slow_lane" && status !== "budget";
}

function ClearOutcome({ outcome }: { outcome: Outcome | null }) {
  if (!outcome) return <div role="status" />;
  if (outcome.kind === "error") {
    return (
      <p role="alert" className="error-banner">
        Clearing {outcome.what} failed: {outcome.message}
      </p>
    );
  }
  const r = outcome.result;
  return (
    <div role="status" className="notice-ok">
      <p>
        Cleared {outcome.what}: <strong>{r.cleared}</strong> cleared · {r.unchanged} unchanged · {r.skippedTerminal} skipped (terminal) · {r.lockoutsCleared} model lockouts cleared
      </p>
    </div>
  );
}
