// The duration picker of the error cooldown rules (R6.3): a select of the presets, and a minutes
// field that appears for "Custom…".
import { CUSTOM_MINUTES, DURATION_PRESETS, type DurationDraft } from "../durations.js";
import { Field } from "./Field.js";

export function DurationChoice(props: {
  label: string;
  value: DurationDraft;
  onChange(value: DurationDraft): void;
  error?: string | null;
  allowDefault: boolean;
  defaultHint?: string;
}) {
  const { value, onChange } = props;
  const options = [...(props.allowDefault ? [{ value: "default", label: "Default" }] : []), ...DURATION_PRESETS, { value: "custom", label: "Custom…" }];
  return (
    <>
      <Field label={props.label} hint={props.allowDefault ? props.defaultHint : undefined} error={value.choice === "custom" ? null : props.error}>
        {(a11y) => (
          <select {...a11y} value={value.choice} onChange={(e) => onChange({ ...value, choice: e.target.value })}>
            {options.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        )}
      </Field>
      {value.choice === "custom" && (
        <Field label={`${props.label}: minutes`} hint={`${CUSTOM_MINUTES.min}–${CUSTOM_MINUTES.max.toLocaleString("en-US")} minutes`} error={props.error}>
          {(a11y) => <input {...a11y} type="number" inputMode="numeric" value={value.customMinutes} onChange={(e) => onChange({ ...value, customMinutes: e.target.value })} />}
        </Field>
      )}
    </>
  );
}
