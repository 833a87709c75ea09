// A client key's budget (R18.4): per UTC day or month, in cost, tokens or both, or none. Saved with
// PATCH /api/keys/:id; over it the key's requests get 429 budget_exceeded until the period ends.
import { useState, type SubmitEvent } from "react";
import type { ApiKeyInfo } from "../../../shared/types.js";
import { formErrorsFrom, NO_ERRORS, type FormErrors } from "../apiErrors.js";
import { budgetFromDraft, budgetUseText, draftFromBudget } from "../budget.js";
import { BudgetFields } from "../components/BudgetFields.js";
import { FormFooter } from "../components/FormFooter.js";
import { call } from "../transport.js";

export function KeyBudgetForm({ apiKey, onDone }: { apiKey: ApiKeyInfo; onDone(saved: string | null): void }) {
  const [draft, setDraft] = useState(() => draftFromBudget(apiKey.budget));
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [saving, setSaving] = useState(false);

  async function submit(event: SubmitEvent) {
    event.preventDefault();
    setSaving(true);
    try {
      await call("updateKey", { id: apiKey.id, budget: budgetFromDraft(draft) });
      setErrors(NO_ERRORS);
      onDone(`Budget of ${apiKey.name} saved.`);
    } catch (err) {
      setErrors(formErrorsFrom(err));
    } finally {
      setSaving(false);
    }
  }

  const title = `Budget of key ${apiKey.name}`;
  return (
    <form className="subform" noValidate onSubmit={(e) => void submit(e)} aria-label={title}>
      <h3>{title}</h3>
      <p className="muted">
        {apiKey.budget ? `Now: ${budgetUseText(apiKey.budget, apiKey.budgetUsed)}.` : "No budget now."} Over the budget, this key&apos;s requests are refused with 429
        budget_exceeded until the period ends; nothing goes upstream.
      </p>
      <BudgetFields legend="Budget" draft={draft} onChange={setDraft} errors={errors.fields} />
      <FormFooter submitLabel="Save budget" saving={saving} onCancel={() => onDone(null)} error={errors.general} />
    </form>
  );
}
