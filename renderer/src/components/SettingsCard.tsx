// A card of resilience settings (R10): each field shows its range, whether it still has the
// built-in default, a reset, and its own validation error; Save sends only what the user changed
// and then reports, field by field, what the server's normaliser clamped (sent vs returned).
import { useState, type SubmitEvent } from "react";
import { formErrorsFrom, NO_ERRORS, type FormErrors } from "../apiErrors.js";
import { inactiveReason } from "../inactiveSettings.js";
import {
  adjustments,
  buildPatch,
  choicesFor,
  describeValue,
  getAt,
  parseDraft,
  rangeHint,
  toDraft,
  valueSource,
  type Adjustment,
  type DraftValue,
  type SettingField,
} from "../settingsForm.js";
import { resilienceSettings, resilienceSources } from "../stores/resources.js";
import { call } from "../transport.js";
import { Badge } from "./Badge.js";
import { Field } from "./Field.js";
import { NotActiveYet } from "./NotActiveYet.js";

const SOURCE_TITLES = {
  default: "The built-in default",
  env: "Seeded by an environment variable; saving a value here overrides it",
  saved: "Saved in the dashboard; it wins over environment variables (Reset returns to the env or built-in default)",
} as const;

const SOURCE_TONES = { default: "muted", env: "ok", saved: "warn" } as const;

interface Props {
  title: string;
  description?: string;
  fields: readonly SettingField[];
  /** Heading level of the card title (2 on a page of cards, 3 inside a card). */
  level?: 2 | 3;
}

export function SettingsCard({ title, description, fields, level = 2 }: Props) {
  const settings = resilienceSettings.use((s) => s.data);
  const sources = resilienceSources.use((s) => s.data);
  const loadError = resilienceSettings.use((s) => s.error);
  const [edits, setEdits] = useState<Record<string, DraftValue>>({});
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [result, setResult] = useState<{ adjusted: Adjustment[] } | null>(null);
  const [saving, setSaving] = useState(false);
  const Heading = level === 2 ? "h2" : "h3";
  const headingId = `settings-${title.replace(/\W+/g, "-").toLowerCase()}`;

  async function save(patchValues: Record<string, unknown>) {
    const before = resilienceSettings.use.getState().data;
    setSaving(true);
    setResult(null);
    try {
      const after = await call("patchResilience", buildPatch(patchValues));
      resilienceSettings.use.setState({ data: after, loadedAt: Date.now() });
      setEdits({});
      setErrors(NO_ERRORS);
      setResult({
        adjusted: adjustments(
          patchValues,
          before,
          after,
          fields.map((f) => f.path),
        ),
      });
    } catch (err) {
      setErrors(formErrorsFrom(err));
    } finally {
      setSaving(false);
    }
  }

  function submit(event: SubmitEvent) {
    event.preventDefault();
    const values: Record<string, unknown> = {};
    const fieldErrors: Record<string, string> = {};
    for (const field of fields) {
      const draft = edits[field.path];
      if (draft === undefined) continue;
      const parsed = parseDraft(draft, field.kind);
      if (parsed.ok) values[field.path] = parsed.value;
      else fieldErrors[field.path] = parsed.error;
    }
    if (Object.keys(fieldErrors).length > 0) {
      setErrors({ fields: fieldErrors, general: null });
      return;
    }
    if (Object.keys(values).length === 0) {
      setErrors({ fields: {}, general: "Nothing changed." });
      return;
    }
    void save(values);
  }

  if (!settings) {
    return (
      <section className="card" aria-labelledby={headingId}>
        <Heading id={headingId}>{title}</Heading>
        {loadError ? (
          <p role="alert" className="error-banner">
            Could not load settings: {loadError}
          </p>
        ) : (
          <p aria-live="polite">Loading…</p>
        )}
      </section>
    );
  }

  const labelOf = (path: string) => fields.find((f) => f.path === path)?.label ?? path;
  const kindOf = (path: string) => fields.find((f) => f.path === path)?.kind ?? "int";
  const inactive = fields.map((f) => inactiveReason(`resilience.${f.path}`));
  // A card whose every field waits for the same feature says so once, at its title.
  const first = inactive[0] ?? null;
  const cardInactive = first !== null && inactive.every((r) => r === first) ? first : null;
  return (
    <section className="card" aria-labelledby={headingId}>
      <div className="card-header">
        <Heading id={headingId}>{title}</Heading>
        {cardInactive && <NotActiveYet reason={cardInactive} />}
      </div>
      {description && <p className="muted">{description}</p>}
      <form noValidate onSubmit={submit} aria-labelledby={headingId}>
        <div className="form-grid">
          {fields.map((field, index) => {
            const stored = getAt(settings, field.path);
            const fieldInactive = cardInactive === null ? inactive[index] : null;
            const draft = edits[field.path] ?? toDraft(stored, field.kind);
            const source = valueSource(field.path, sources, stored);
            const text = [rangeHint(field), field.help].filter(Boolean).join(" · ");
            const hint = (
              <>
                {fieldInactive && (
                  <>
                    <NotActiveYet reason={fieldInactive} />{" "}
                  </>
                )}
                {text && `${text} · `}
                <span title={SOURCE_TITLES[source]}>
                  <Badge tone={SOURCE_TONES[source]}>{source}</Badge>
                </span>
                {source === "saved" && (
                  <>
                    {" "}
                    <button
                      type="button"
                      className="secondary small"
                      aria-label={`Reset ${field.label} to default`}
                      disabled={saving}
                      onClick={() => void save({ [field.path]: null })}
                    >
                      Reset
                    </button>
                  </>
                )}
              </>
            );
            const setDraft = (value: DraftValue) => setEdits((e) => ({ ...e, [field.path]: value }));
            const error = errors.fields[field.path] ?? null;
            if (field.kind === "bool") {
              return (
                <Field key={field.path} label={field.label} hint={hint} error={error} check>
                  {(a11y) => <input {...a11y} type="checkbox" checked={draft === true} onChange={(e) => setDraft(e.target.checked)} />}
                </Field>
              );
            }
            if (field.kind === "choice") {
              return (
                <Field key={field.path} label={field.label} hint={hint} error={error}>
                  {(a11y) => (
                    <select {...a11y} value={String(draft)} onChange={(e) => setDraft(e.target.value)}>
                      {choicesFor(field.path).map((choice) => (
                        <option key={choice} value={choice}>
                          {choice}
                        </option>
                      ))}
                    </select>
                  )}
                </Field>
              );
            }
            return (
              <Field key={field.path} label={field.label} hint={hint} error={error}>
                {(a11y) => (
                  <input
                    {...a11y}
                    type={field.kind === "codes" ? "text" : "number"}
                    inputMode={field.kind === "codes" ? "text" : "numeric"}
                    value={String(draft)}
                    onChange={(e) => setDraft(e.target.value)}
                  />
                )}
              </Field>
            );
          })}
        </div>
        <div className="form-actions">
          <button type="submit" disabled={saving}>
            {saving ? "Saving…" : `Save ${title.toLowerCase()}`}
          </button>
          {Object.keys(edits).length > 0 && (
            <button
              type="button"
              className="secondary"
              onClick={() => {
                setEdits({});
                setErrors(NO_ERRORS);
              }}
            >
              Discard changes
            </button>
          )}
        </div>
        {errors.general && (
          <p role="alert" className="field-error">
            {errors.general}
          </p>
        )}
        {result && (
          <div role="status" className={result.adjusted.length > 0 ? "notice-warn" : "notice-ok"}>
            <p>{result.adjusted.length > 0 ? "Saved, with adjustments by the server:" : "Saved."}</p>
            {result.adjusted.length > 0 && (
              <ul>
                {result.adjusted.map((a) => (
                  <li key={a.path}>
                    <strong>{labelOf(a.path)}</strong>:{" "}
                    {a.sent === undefined
                      ? `changed to ${describeValue(a.saved, kindOf(a.path))} to stay consistent`
                      : `you entered ${describeValue(a.sent, kindOf(a.path))}, saved ${describeValue(a.saved, kindOf(a.path))}`}
                  </li>
                ))}
              </ul>
            )}
          </div>
        )}
      </form>
    </section>
  );
}
