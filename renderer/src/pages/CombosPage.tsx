// Combos (R11.1): named models that spread over ordered targets with a strategy, each explained
// in one line. Create, edit, reorder and delete; the list follows config events, and each card
// shows which targets served the combo's last requests.
import { useEffect, useMemo, useState } from "react";
import { comboStrategyOf, STRATEGY_SUMMARIES } from "../../../shared/catalog.js";
import type { Combo } from "../../../shared/types.js";
import { ActionMessage, type ActionOutcome } from "../components/ActionMessage.js";
import { Badge } from "../components/Badge.js";
import { ConfirmButton } from "../components/ConfirmButton.js";
import { StrategyNotActiveYet } from "../components/NotActiveYet.js";
import { errorText } from "../stores/liveResource.js";
import { providerLists, useProviderLists } from "../stores/providers.js";
import { combos } from "../stores/resources.js";
import { call } from "../transport.js";
import { ComboForm } from "./combos/ComboForm.js";
import { ComboTraffic } from "./combos/ComboTraffic.js";

export function CombosPage() {
  useEffect(() => combos.watch(), []);
  useEffect(() => providerLists.watch(), []);
  const { data, error, reload } = combos.use();
  const { providers, connections } = useProviderLists();
  const [editing, setEditing] = useState<Combo | "new" | null>(null);
  const [notice, setNotice] = useState<ActionOutcome | null>(null);
  const models = useMemo(() => providers.flatMap((p) => p.models.map((m) => `${p.id}/${m}`)), [providers]);
  const list = data ?? [];

  const done = (what: string) => (saved: Combo | null) => {
    setEditing(null);
    if (saved) setNotice({ ok: true, text: `Combo ${saved.name} ${what}. Clients can now request the model "${saved.name}".` });
    void reload();
  };

  async function remove(name: string) {
    try {
      await call("deleteCombo", { name });
      setNotice({ ok: true, text: `Combo ${name} deleted.` });
    } catch (err) {
      setNotice({ ok: false, text: `Could not delete ${name}: ${errorText(err)}` });
    }
    void reload();
  }

  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Combos</h1>
          <p className="muted">A combo is a model name that clients request; Switchyard routes it to its targets, failing over from one to the next.</p>
        </div>
        <button type="button" disabled={editing === "new"} onClick={() => setEditing("new")}>
          New combo
        </button>
      </header>
      <datalist id="combo-models">
        {models.map((m) => (
          <option key={m} value={m} />
        ))}
      </datalist>
      <ActionMessage outcome={notice} />
      {error && (
        <p role="alert" className="error-banner">
          Could not load combos: {error}
        </p>
      )}
      {editing === "new" && <ComboForm combo={null} connections={connections} onDone={done("created")} />}
      {data && list.length === 0 && editing !== "new" && (
        <section className="empty" aria-labelledby="no-combos">
          <h2 id="no-combos">No combos yet</h2>
          <p>
            Create one to give clients a single model name — say <code>fast</code> — that fails over between providers: list its targets (<code>provider/model</code>) in the order
            to try them.
          </p>
          <button type="button" onClick={() => setEditing("new")}>
            Create your first combo
          </button>
        </section>
      )}
      {list.map((combo) => (
        <section className="card" key={combo.name} aria-labelledby={`combo-${combo.name}`}>
          <header className="card-header">
            <h2 id={`combo-${combo.name}`}>{combo.name}</h2>
            <Badge tone="muted">{combo.strategy}</Badge>
            <StrategyNotActiveYet strategy={combo.strategy} />
            {combo.config.comboCooldownWaitEnabled === false && <Badge tone="muted">no cooldown wait</Badge>}
            <span className="spacer" />
            <button type="button" className="secondary small" onClick={() => setEditing(combo)}>
              Edit combo {combo.name}
            </button>
            <ConfirmButton label={`Delete combo ${combo.name}`} confirmLabel={`Delete ${combo.name} now`} onConfirm={() => remove(combo.name)} />
          </header>
          {editing !== null && editing !== "new" && editing.name === combo.name ? (
            <ComboForm combo={combo} connections={connections} onDone={done("saved")} />
          ) : (
            <>
              <p className="muted">{STRATEGY_SUMMARIES[comboStrategyOf(combo.strategy)]}</p>
              <ol aria-label={`Targets of ${combo.name}`}>
                {combo.targets.map((t, i) => (
                  <li key={`${i}-${t.model}`}>
                    <code>{t.model}</code>
                    {t.connectionId && <span className="muted"> · pinned to {connections.find((c) => c.id === t.connectionId)?.name ?? t.connectionId}</span>}
                    {t.weight !== undefined && <span className="muted"> · weight {t.weight}</span>}
                  </li>
                ))}
              </ol>
              <ComboTraffic combo={combo.name} />
            </>
          )}
        </section>
      ))}
    </div>
  );
}
