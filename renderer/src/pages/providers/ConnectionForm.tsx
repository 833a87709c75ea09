// Add or edit a connection (one account or key). The secret is write-only: the field always
// starts empty, is sent only when typed, and the API answers with `hasSecret`, never the key.
// Its budget (R18.4) and whether it is a flat-rate subscription (R18.1) are edited here too.
import { useState, type SubmitEvent } from "react";
import { FormFooter } from "../../components/FormFooter.js";
import type { Connection } from "../../../../shared/types.js";
import { formErrorsFrom, NO_ERRORS, type FormErrors } from "../../apiErrors.js";
import { budgetFromDraft, budgetUseText, draftFromBudget } from "../../budget.js";
import { BudgetFields } from "../../components/BudgetFields.js";
import { CheckboxField, TextField } from "../../components/Field.js";
import { useProviderLists } from "../../stores/providers.js";
import { call } from "../../transport.js";

export function ConnectionForm({ provider, connection, onDone }: { provider: string; connection: Connection | null; onDone(saved: boolean): void }) {
  const [name, setName] = useState(connection?.name ?? "");
  const [secret, setSecret] = useState("");
  const [removeSecret, setRemoveSecret] = useState(false);
  const [priority, setPriority] = useState(String(connection?.priority ?? 0));
  const [weight, setWeight] = useState(String(connection?.weight ?? 1));
  const [active, setActive] = useState(connection?.active ?? true);
  const [subscription, setSubscription] = useState(connection?.subscription ?? false);
  const [budget, setBudget] = useState(() => draftFromBudget(connection?.budget));
  const data = connection?.providerSpecificData ?? {};
  const [lowPriorityMode, setLowPriorityMode] = useState(data.lowPriorityMode === true);
  const [autoLimitReset, setAutoLimitReset] = useState(data.autoLimitReset === true);
  const [organizationUUID, setOrganizationUUID] = useState(typeof data.organizationUUID === "string" ? data.organizationUUID : "");
  const isClaude = useProviderLists().providers.find((p) => p.id === provider)?.format === "anthropic";
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [saving, setSaving] = useState(false);

  async function submit(event: SubmitEvent) {
    event.preventDefault();
    // R24.5: a login's account takes only its own settings; its name and the rest are its connection's.
    const account = connection !== null && connection.accountOf !== null;
    const body: Record<string, unknown> = { active, budget: budgetFromDraft(budget) };
    if (!account) body.subscription = subscription;
    if (!account && name.trim() !== "") body.name = name.trim();
    // Numbers go as typed: a non-number reaches the server's validation, which names the field.
    body.priority = priority.trim() === "" ? 0 : Number(priority);
    body.weight = weight.trim() === "" ? 1 : Number(weight);
    if (isClaude) {
      // R12.6: the opt-ins live next to whatever else the connection keeps in providerSpecificData.
      const org = organizationUUID.trim();
      const next: Record<string, unknown> = { ...(account ? {} : data), lowPriorityMode, autoLimitReset };
      if (org === "") delete next.organizationUUID;
      else next.organizationUUID = org;
      body.providerSpecificData = next;
    }
    if (removeSecret) body.apiKey = null;
    else if (secret !== "") body.apiKey = secret;
    if (account) delete body.apiKey;
    setSaving(true);
    try {
      if (connection) await call("updateConnection", { id: connection.id, ...body });
      else await call("createConnection", { provider, ...body });
      setSecret("");
      setErrors(NO_ERRORS);
      onDone(true);
    } catch (err) {
      setErrors(formErrorsFrom(err));
    } finally {
      setSaving(false);
    }
  }

  const f = errors.fields;
  const title = connection ? `Edit connection ${connection.name}` : `Add a connection to ${provider}`;
  return (
    <form className="subform" noValidate onSubmit={(e) => void submit(e)} aria-label={title}>
      <h3>{title}</h3>
      <div className="form-grid">
        <TextField label="Connection name" value={name} onChange={setName} hint="e.g. Work key" error={f.name} />
        <TextField
          label="API key"
          type="password"
          autoComplete="off"
          value={secret}
          onChange={setSecret}
          disabled={removeSecret}
          hint={connection?.hasSecret ? "A key is stored and never shown; type a new one to replace it" : "Stored encrypted; never shown again"}
          error={f.apiKey}
        />
        <TextField label="Priority" inputMode="numeric" value={priority} onChange={setPriority} hint="lower is tried first" error={f.priority} />
        <TextField
          label="Weight"
          inputMode="decimal"
          value={weight}
          onChange={setWeight}
          hint="share among same-priority connections; 0 = only when no other is free"
          error={f.weight}
        />
        <CheckboxField label="Active" checked={active} onChange={setActive} error={f.active} />
        {connection?.hasSecret && <CheckboxField label="Remove the stored key" checked={removeSecret} onChange={setRemoveSecret} />}
        <CheckboxField
          label="Flat-rate subscription"
          checked={subscription}
          onChange={setSubscription}
          hint="its cost is shown as notional: what the tokens would cost"
          error={f.subscription}
        />
      </div>
      <BudgetFields
        legend="Budget"
        draft={budget}
        onChange={setBudget}
        errors={f}
        hint={connection?.budget ? `Now: ${budgetUseText(connection.budget, connection.budgetUsed)}` : "over it the connection is skipped until the period ends"}
      />
      {isClaude && (
        <fieldset className="form-grid">
          <legend>Claude subscription usage wall</legend>
          <CheckboxField
            label="Low-priority lane at the usage wall"
            checked={lowPriorityMode}
            onChange={setLowPriorityMode}
            hint="At the 5-hour wall, keep using this account in the slow lane until the announced reset"
            error={f["providerSpecificData.lowPriorityMode"]}
          />
          <CheckboxField
            label="Reset the session limit at the wall"
            checked={autoLimitReset}
            onChange={setAutoLimitReset}
            hint="Claim the weekly session-limit reset when the account offers one"
            error={f["providerSpecificData.autoLimitReset"]}
          />
          <TextField
            label="Organization UUID"
            value={organizationUUID}
            onChange={setOrganizationUUID}
            hint="needed for the reset claim"
            error={f["providerSpecificData.organizationUUID"]}
          />
        </fieldset>
      )}
      <FormFooter submitLabel={connection ? "Save connection" : "Add connection"} saving={saving} onCancel={() => onDone(false)} error={errors.general} />
    </form>
  );
}
