// Create or edit a combo (R11.1): name, strategy (the 20 of the shared list, the chosen one
// explained in one line under the select), ordered targets and whether it waits for a cooling
// target. Server validation errors land next to their field.
import { useState, type SubmitEvent } from "react";
import { FormFooter } from "../../components/FormFooter.js";
import { COMBO_STRATEGIES, comboStrategyOf, STRATEGY_SUMMARIES, type ComboStrategy } from "../../../../shared/catalog.js";
import type { Combo, Connection } from "../../../../shared/types.js";
import { formErrorsFrom, NO_ERRORS, scopeErrors, type FormErrors } from "../../apiErrors.js";
import { CheckboxField, SelectField, TextField } from "../../components/Field.js";
import { NotActiveYet, NotActiveYetFor } from "../../components/NotActiveYet.js";
import { strategyInactiveReason } from "../../inactiveSettings.js";
import { call } from "../../transport.js";
import { newTargetDraft, toTargets, type TargetDraft } from "./targets.js";
import { TargetList } from "./TargetList.js";

export function ComboForm({ combo, connections, onDone }: { combo: Combo | null; connections: Connection[]; onDone(saved: Combo | null): void }) {
  const [name, setName] = useState(combo?.name ?? "");
  const [strategy, setStrategy] = useState(comboStrategyOf(combo?.strategy));
  const [targets, setTargets] = useState<TargetDraft[]>(() => (combo ? combo.targets.map(newTargetDraft) : [newTargetDraft()]));
  const [waitForCooling, setWaitForCooling] = useState(combo?.config.comboCooldownWaitEnabled !== false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [saving, setSaving] = useState(false);

  async function submit(event: SubmitEvent) {
    event.preventDefault();
    const body = { strategy, targets: toTargets(targets), config: { ...(combo?.config ?? {}), comboCooldownWaitEnabled: waitForCooling } };
    setSaving(true);
    try {
      const saved = combo ? await call("updateCombo", { name: combo.name, ...body }) : await call("createCombo", { name: name.trim(), ...body });
      setErrors(NO_ERRORS);
      onDone(saved);
    } catch (err) {
      setErrors(formErrorsFrom(err));
    } finally {
      setSaving(false);
    }
  }

  const targetErrors = scopeErrors({ fields: errors.fields, general: null }, "targets").fields;
  const title = combo ? `Edit combo ${combo.name}` : "New combo";
  return (
    <form className="subform" noValidate onSubmit={(e) => void submit(e)} aria-label={title}>
      <h3>{title}</h3>
      <div className="form-grid">
        {!combo && <TextField label="Combo name" value={name} onChange={setName} hint="clients request it as the model name" error={errors.fields.name} />}
        <SelectField
          label="Strategy"
          value={strategy}
          onChange={setStrategy}
          options={STRATEGY_OPTIONS}
          hint={<StrategyHint strategy={strategy} />}
          error={errors.fields.strategy}
        />
        <CheckboxField
          label="Wait for a cooling target"
          checked={waitForCooling}
          onChange={setWaitForCooling}
          hint={
            <>
              <NotActiveYetFor setting="combo.config.comboCooldownWaitEnabled" /> instead of failing at once (R11.4)
            </>
          }
        />
      </div>
      <TargetList
        targets={targets}
        onChange={(t) => {
          setTargets(t);
          setErrors(NO_ERRORS);
        }}
        connections={connections}
        errors={targetErrors}
      />
      {targetErrors._ && <p className="field-error">{targetErrors._}</p>}
      <FormFooter submitLabel={combo ? "Save combo" : "Create combo"} saving={saving} onCancel={() => onDone(null)} error={errors.general} />
    </form>
  );
}

const STRATEGY_OPTIONS = COMBO_STRATEGIES.map((value) => ({ value, label: strategyInactiveReason(value) === null ? value : `${value} (not active yet)` }));

function StrategyHint({ strategy }: { strategy: ComboStrategy }) {
  const summary = STRATEGY_SUMMARIES[strategy];
  const reason = strategyInactiveReason(strategy);
  if (reason === null) return <>{summary}</>;
  return (
    <>
      {summary} <NotActiveYet reason={reason} /> saved as {strategy}; requests try the targets in order, as with priority
    </>
  );
}
