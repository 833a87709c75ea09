// Emergency fallback (R11.6) on the Resilience settings page: the runtime toggle and the model it
// tries once when a request would otherwise fail. Saved with PATCH /api/settings; the next request
// follows it. A saved value wins over OMNIROUTE_EMERGENCY_FALLBACK, which only seeds it.
import { useEffect, useMemo, useState, type SubmitEvent } from "react";
import { formErrorsFrom, NO_ERRORS, type FormErrors } from "../../apiErrors.js";
import { CheckboxField, TextField } from "../../components/Field.js";
import { providerLists, useProviderLists } from "../../stores/providers.js";
import { appSettings } from "../../stores/resources.js";
import { call } from "../../transport.js";

export function EmergencyFallbackCard() {
  useEffect(() => appSettings.watch(), []);
  useEffect(() => providerLists.watch(), []);
  const saved = appSettings.use((s) => s.data?.emergencyFallback);
  const loadError = appSettings.use((s) => s.error);
  const { providers } = useProviderLists();
  const models = useMemo(() => providers.flatMap((p) => p.models.map((m) => `${p.id}/${m}`)), [providers]);
  const [enabled, setEnabled] = useState<boolean | null>(null);
  const [model, setModel] = useState<string | null>(null);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [notice, setNotice] = useState<string | null>(null);
  const shownEnabled = enabled ?? saved?.enabled ?? false;
  const shownModel = model ?? saved?.model ?? "";

  async function save(event: SubmitEvent) {
    event.preventDefault();
    setNotice(null);
    try {
      const next = await call("patchSettings", { emergencyFallback: { enabled: shownEnabled, model: shownModel.trim() || null } });
      appSettings.use.setState({ data: next, loadedAt: Date.now() });
      setEnabled(null);
      setModel(null);
      setErrors(NO_ERRORS);
      setNotice(
        next.emergencyFallback.enabled && next.emergencyFallback.model
          ? `Saved: failing requests try ${next.emergencyFallback.model} once.`
          : "Saved: the emergency fallback is off.",
      );
    } catch (err) {
      setErrors(formErrorsFrom(err));
    }
  }

  return (
    <section className="card" aria-labelledby="settings-emergency-fallback">
      <h2 id="settings-emergency-fallback">Emergency fallback</h2>
      <p className="muted">
        When every target of a request has failed or is unavailable, try this model once more (never for a request the upstream refused as malformed). Its answer carries{" "}
        <code>X-Switchyard-Emergency-Fallback: 1</code>. Until saved here, <code>OMNIROUTE_EMERGENCY_FALLBACK</code> decides (R11.6).
      </p>
      {loadError && (
        <p role="alert" className="error-banner">
          Could not load the settings: {loadError}
        </p>
      )}
      <form noValidate onSubmit={(e) => void save(e)} aria-label="Emergency fallback">
        <div className="form-grid">
          <CheckboxField label="Use the emergency fallback" checked={shownEnabled} onChange={setEnabled} error={errors.fields["emergencyFallback.enabled"]} />
          <TextField
            label="Fallback model"
            list="fallback-models"
            value={shownModel}
            onChange={setModel}
            hint="provider/model, a combo or an alias"
            error={errors.fields["emergencyFallback.model"]}
          />
        </div>
        <datalist id="fallback-models">
          {models.map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
        <div className="form-actions">
          <button type="submit">Save emergency fallback</button>
        </div>
        {errors.general && (
          <p role="alert" className="field-error">
            {errors.general}
          </p>
        )}
        {notice && <p role="status">{notice}</p>}
      </form>
    </section>
  );
}
