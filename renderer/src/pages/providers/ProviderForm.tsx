// Add or edit a provider (API.md "Providers"). The server validates; its message for a field is
// shown under that field. Formats and categories come from the shared schema lists.
import { useState, type SubmitEvent } from "react";
import { FormFooter } from "../../components/FormFooter.js";
import { PROVIDER_CATEGORIES, PROVIDER_FORMATS } from "../../../../shared/catalog.js";
import type { Provider, ProviderCategory, ProviderFormat } from "../../../../shared/types.js";
import { formErrorsFrom, NO_ERRORS, type FormErrors } from "../../apiErrors.js";
import { SelectField, TextField } from "../../components/Field.js";
import { call } from "../../transport.js";

const BASE_URL_HINTS: Record<ProviderFormat, string> = {
  openai: "Includes the version path, e.g. https://api.openai.com/v1 (a bare origin gets /v1 on save)",
  "openai-responses": "Includes the version path, e.g. https://api.openai.com/v1 (Switchyard appends /responses)",
  anthropic: "The origin, e.g. https://api.anthropic.com (a trailing /v1 is removed on save)",
  gemini: "Up to the version, e.g. https://generativelanguage.googleapis.com/v1beta (a bare origin gets /v1beta)",
  simulator: "Optional: the built-in fake upstream",
};

export function ProviderForm({ provider, onDone }: { provider: Provider | null; onDone(saved: Provider | null): void }) {
  const [id, setId] = useState(provider?.id ?? "");
  const [format, setFormat] = useState<ProviderFormat>(provider?.format ?? "openai");
  const [baseUrl, setBaseUrl] = useState(provider?.baseUrl ?? "");
  const [category, setCategory] = useState<ProviderCategory>(provider?.category ?? "apikey");
  const [models, setModels] = useState(provider?.models.join(", ") ?? "");
  const [retrySeconds, setRetrySeconds] = useState(provider?.rateLimitCooldownSeconds?.toString() ?? "");
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [saving, setSaving] = useState(false);

  async function submit(event: SubmitEvent) {
    event.preventDefault();
    const body = {
      format,
      baseUrl: baseUrl.trim(),
      category,
      models: models.split(/[\s,]+/).filter(Boolean),
      rateLimitCooldownSeconds: retrySeconds.trim() === "" ? null : Number(retrySeconds.trim()),
    };
    setSaving(true);
    try {
      const saved = provider ? await call("updateProvider", { id: provider.id, ...body }) : await call("createProvider", { id: id.trim(), ...body });
      setErrors(NO_ERRORS);
      onDone(saved);
    } catch (err) {
      setErrors(formErrorsFrom(err));
    } finally {
      setSaving(false);
    }
  }

  const f = errors.fields;
  const title = provider ? `Edit provider ${provider.id}` : "Add a provider";
  return (
    <form className="subform" noValidate onSubmit={(e) => void submit(e)} aria-label={title}>
      <h3>{title}</h3>
      <div className="form-grid">
        {!provider && <TextField label="Provider ID" value={id} onChange={setId} hint="letters, digits, . _ - (used in provider/model)" error={f.id} required />}
        <SelectField label="Wire format" value={format} onChange={setFormat} options={PROVIDER_FORMATS} error={f.format} />
        <TextField label="Base URL" type="url" value={baseUrl} onChange={setBaseUrl} hint={BASE_URL_HINTS[format]} error={f.baseUrl} />
        <SelectField
          label="Category"
          value={category}
          onChange={setCategory}
          options={PROVIDER_CATEGORIES.map((c) => ({ value: c, label: c === "apikey" ? "API key" : c === "oauth" ? "OAuth account" : "Local server" }))}
          error={f.category}
        />
        <TextField label="Models" value={models} onChange={setModels} hint="comma-separated model names" error={f.models} />
        <TextField
          label="Rate-limit retry delay (s)"
          inputMode="numeric"
          value={retrySeconds}
          onChange={setRetrySeconds}
          hint="1–21,600 s; empty = none"
          error={f.rateLimitCooldownSeconds}
        />
      </div>
      <FormFooter submitLabel={provider ? "Save provider" : "Add provider"} saving={saving} onCancel={() => onDone(null)} error={errors.general} />
    </form>
  );
}
