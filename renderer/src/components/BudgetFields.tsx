// The budget editor of a key or a connection (R18.4): none, or a cap per UTC day or month in
// cost, tokens or both. Errors arrive under the API's paths (budget.maxCostUsd, …).
import type { BudgetDraft, BudgetPeriodChoice } from "../budget.js";
import { SelectField, TextField } from "./Field.js";

const PERIODS: ReadonlyArray<{ value: BudgetPeriodChoice; label: string }> = [
  { value: "none", label: "No budget" },
  { value: "day", label: "Per day (UTC)" },
  { value: "month", label: "Per month (UTC)" },
];

export function BudgetFields(props: { legend: string; draft: BudgetDraft; onChange(draft: BudgetDraft): void; errors: Record<string, string>; hint?: string }) {
  const { draft, onChange, errors } = props;
  const off = draft.period === "none";
  return (
    <fieldset className="form-grid">
      <legend>{props.legend}</legend>
      <SelectField
        label="Budget period"
        value={draft.period}
        onChange={(period) => onChange({ ...draft, period })}
        options={PERIODS}
        hint={props.hint}
        error={errors["budget.period"] ?? errors.budget}
      />
      <TextField
        label="Max cost (USD)"
        inputMode="decimal"
        value={draft.maxCostUsd}
        disabled={off}
        onChange={(maxCostUsd) => onChange({ ...draft, maxCostUsd })}
        hint="empty: no cost cap"
        error={errors["budget.maxCostUsd"]}
      />
      <TextField
        label="Max tokens"
        inputMode="numeric"
        value={draft.maxTokens}
        disabled={off}
        onChange={(maxTokens) => onChange({ ...draft, maxTokens })}
        hint="prompt + output; empty: no token cap"
        error={errors["budget.maxTokens"]}
      />
    </fieldset>
  );
}
