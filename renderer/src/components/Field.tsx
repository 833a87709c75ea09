// Labelled form controls: every input has a visible label, an optional hint (range, unit) and the
// error for that field right under it, wired with aria-describedby / aria-invalid so a screen
// reader announces the same text a sighted user sees.
import { useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes } from "react";

export interface ControlA11y {
  id: string;
  "aria-describedby"?: string;
  "aria-invalid"?: true;
}

interface FieldProps {
  label: ReactNode;
  hint?: ReactNode;
  error?: string | null;
  /** Checkbox layout: the control before its label, on one line. */
  check?: boolean;
  children: (a11y: ControlA11y) => ReactNode;
}

export function Field({ label, hint, error, check, children }: FieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(" ") || undefined;
  const a11y: ControlA11y = { id, "aria-describedby": describedBy, ...(error ? { "aria-invalid": true as const } : {}) };
  return (
    <div className="field">
      {check ? (
        <span className="field field-check">
          {children(a11y)}
          <label htmlFor={id}>{label}</label>
        </span>
      ) : (
        <>
          <label htmlFor={id}>{label}</label>
          {children(a11y)}
        </>
      )}
      {hint && (
        <p id={hintId} className="field-hint">
          {hint}
        </p>
      )}
      {error && (
        <p id={errorId} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}

type InputRest = Omit<InputHTMLAttributes<HTMLInputElement>, "id" | "value" | "onChange" | "type">;

export function TextField(props: { label: ReactNode; value: string; onChange(value: string): void; hint?: ReactNode; error?: string | null; type?: string } & InputRest) {
  const { label, value, onChange, hint, error, type = "text", ...rest } = props;
  return (
    <Field label={label} hint={hint} error={error}>
      {(a11y) => <input {...rest} {...a11y} type={type} value={value} onChange={(e) => onChange(e.target.value)} />}
    </Field>
  );
}

export function CheckboxField(props: { label: ReactNode; checked: boolean; onChange(checked: boolean): void; hint?: ReactNode; error?: string | null; disabled?: boolean }) {
  const { label, checked, onChange, hint, error, disabled } = props;
  return (
    <Field label={label} hint={hint} error={error} check>
      {(a11y) => <input {...a11y} type="checkbox" checked={checked} disabled={disabled} onChange={(e) => onChange(e.target.checked)} />}
    </Field>
  );
}

type SelectRest = Omit<SelectHTMLAttributes<HTMLSelectElement>, "id" | "value" | "onChange">;

/** Generic in the option values, so a form's state keeps the closed type its contract input needs. */
export function SelectField<V extends string>(
  props: {
    label: ReactNode;
    value: V;
    onChange(value: NoInfer<V>): void;
    options: ReadonlyArray<NoInfer<V> | { value: NoInfer<V>; label: string }>;
    hint?: ReactNode;
    error?: string | null;
  } & SelectRest,
) {
  const { label, value, onChange, options, hint, error, ...rest } = props;
  const items = options.map((option) => (typeof option === "string" ? { value: option, label: option } : option));
  // The DOM hands back a string: map it to the option it came from, so V stays true without a cast.
  const pick = (chosen: string) => {
    const item = items.find((o) => o.value === chosen);
    if (item) onChange(item.value);
  };
  return (
    <Field label={label} hint={hint} error={error}>
      {(a11y) => (
        <select {...rest} {...a11y} value={value} onChange={(e) => pick(e.target.value)}>
          {items.map((o) => {
            return (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            );
          })}
        </select>
      )}
    </Field>
  );
}
