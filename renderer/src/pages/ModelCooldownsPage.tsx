// Model Cooldowns (R5.5, D5): active model lockouts with reason, live remaining time and failure
// count; re-enable one or all. Below, the Model Lockout settings card (R5.1) with its ranges and
// an inline report of what the normaliser clamped.
import { useEffect, useState } from "react";
import type { ModelLockoutItem } from "../../../shared/apiTypes.js";
import { ActionMessage, type ActionOutcome } from "../components/ActionMessage.js";
import { DataTable } from "../components/DataTable.js";
import { SettingsCard } from "../components/SettingsCard.js";
import { remainingAt, useCountdowns } from "../countdown.js";
import { formatRemaining } from "../format.js";
import type { SettingField } from "../settingsForm.js";
import { errorText } from "../stores/liveResource.js";
import { providerLists, useProviderLists } from "../stores/providers.js";
import { modelCooldowns, resilienceSettings } from "../stores/resources.js";
import { call, type ContractRequest } from "../transport.js";

const LOCKOUT_FIELDS: readonly SettingField[] = [
  { path: "modelLockout.enabled", label: "Model lockout enabled", kind: "bool" },
  { path: "modelLockout.errorCodes", label: "Error codes", kind: "codes" },
  { path: "modelLockout.baseCooldownMs", label: "Base cooldown", kind: "ms" },
  { path: "modelLockout.maxCooldownMs", label: "Max cooldown", kind: "ms", help: "at least the base" },
  { path: "modelLockout.maxBackoffSteps", label: "Max backoff steps", kind: "int" },
  { path: "modelLockout.useExponentialBackoff", label: "Exponential backoff", kind: "bool" },
];

export function ModelCooldownsPage() {
  useEffect(() => modelCooldowns.watch(), []);
  useEffect(() => resilienceSettings.watch(), []);
  useEffect(() => providerLists.watch(), []);
  const { data, error, loadedAt, reload } = modelCooldowns.use();
  const enabled = resilienceSettings.use((s) => s.data?.modelLockout.enabled);
  const connectionNames = useProviderLists().connections;
  const rows = data ?? [];
  const now = useCountdowns(
    rows.map((r) => r.remainingMs),
    loadedAt,
    reload,
  );
  const [message, setMessage] = useState<ActionOutcome | null>(null);
  const nameOf = (id: string) => connectionNames.find((c) => c.id === id)?.name ?? id;

  async function reenable(body: ContractRequest<"clearModelCooldowns">, what: string) {
    try {
      const result = await call("clearModelCooldowns", body);
      setMessage({
        ok: true,
        text: "clearedAll" in result ? "Every model is back in routing." : `${what} re-enabled (${result.removed} lockout${result.removed === 1 ? "" : "s"} removed).`,
      });
    } catch (err) {
      setMessage({ ok: false, text: `Re-enabling ${what} failed: ${errorText(err)}` });
    } finally {
      void reload();
    }
  }

  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Model Cooldowns</h1>
          <p className="muted">Models taken out of routing on one connection after repeated errors. They come back by themselves when the time runs out.</p>
        </div>
        <button type="button" className="secondary" disabled={rows.length === 0} onClick={() => void reenable({ all: true }, "all models")}>
          Re-enable all
        </button>
      </header>
      <ActionMessage outcome={message} />
      {error && (
        <p role="alert" className="error-banner">
          Could not load model cooldowns: {error}
        </p>
      )}
      {data && rows.length === 0 && (
        <section className="empty" aria-labelledby="no-lockouts">
          <h2 id="no-lockouts">No model is locked out</h2>
          {enabled === false ? (
            <p>
              Model lockout is <strong>off</strong>: a failing model is retried on every request. Turn it on in the settings below to rest a model that keeps answering 404, 429 or
              5xx on one connection while the others keep serving.
            </p>
          ) : (
            <p>Model lockout is on. When a model keeps failing on a connection, it rests here for a while; nothing is failing right now.</p>
          )}
        </section>
      )}
      {rows.length > 0 && (
        <section className="card" aria-labelledby="lockouts-title">
          <h2 id="lockouts-title">Active lockouts</h2>
          <DataTable
            caption="Active model lockouts, longest first"
            columns={["Model", "Provider", "Connection", "Reason", "Time left", { label: "Failures", numeric: true }, "Action"]}
          >
            {rows.map((row) => (
              <LockoutRow
                key={`${row.provider}/${row.connectionId}/${row.model}`}
                row={row}
                connection={nameOf(row.connectionId)}
                left={remainingAt(row.remainingMs, loadedAt, now)}
                onReenable={() => void reenable({ provider: row.provider, model: row.model, connection: row.connectionId }, `${row.model} on ${nameOf(row.connectionId)}`)}
              />
            ))}
          </DataTable>
        </section>
      )}
      <SettingsCard
        title="Model lockout settings"
        description="Which upstream errors lock a model, and for how long: base × 2^(failures − 1), capped at the max (R5.1, D5)."
        fields={LOCKOUT_FIELDS}
      />
    </div>
  );
}

function LockoutRow({ row, connection, left, onReenable }: { row: ModelLockoutItem; connection: string; left: number; onReenable(): void }) {
  return (
    <tr>
      <th scope="row">{row.model}</th>
      <td>{row.provider}</td>
      <td>{connection}</td>
      <td>{row.reason}</td>
      <td className="nowrap">{formatRemaining(left)}</td>
      <td className="num">{row.failureCount}</td>
      <td className="actions">
        <button type="button" className="small" onClick={onReenable}>
          Re-enable {row.model} on {connection}
        </button>
      </td>
    </tr>
  );
}
