// Error cooldown rules (R12.4, R6.3): operator rules matched on status and/or body text, and a
// per-provider catch-all cooldown. Both live in the general settings (PATCH /api/settings); a
// list is always sent whole, and the server's validation message lands next to its field.
import { useEffect, useState, type SubmitEvent } from "react";
import { ERROR_RULE_SCOPES } from "../../../../shared/appSettings.js";
import type { AppSettings, ProviderErrorRule } from "../../../../shared/types.js";
import { formErrorsFrom, NO_ERRORS, scopeErrors, type FormErrors } from "../../apiErrors.js";
import { DataTable } from "../../components/DataTable.js";
import { DurationChoice } from "../../components/DurationChoice.js";
import { DEFAULT_DURATION, describeDuration, durationMs } from "../../durations.js";
import { SelectField, TextField } from "../../components/Field.js";
import { providerLists } from "../../stores/providers.js";
import { appSettings } from "../../stores/resources.js";
import { call } from "../../transport.js";

type Scope = ProviderErrorRule["scope"];
const SCOPE_OPTIONS = ERROR_RULE_SCOPES.map((s) => ({ value: s, label: s === "connection" ? "connection (default)" : s }));

export function ErrorRulesCard() {
  useEffect(() => appSettings.watch(), []);
  useEffect(() => providerLists.watch(), []);
  const settings = appSettings.use((s) => s.data);
  const loadError = appSettings.use((s) => s.error);
  const providerIds = providerLists.use((s) => (s.data?.providers ?? []).map((p) => p.id).join("\n"));

  return (
    <section className="card" aria-labelledby="error-rules-title">
      <h2 id="error-rules-title">Error cooldown rules</h2>
      <p className="muted">
        Decide how long a provider's error keeps a model, connection or the whole provider out of routing. Rules never shorten a longer active cooldown and never replace a banned,
        expired or out-of-credit state.
      </p>
      <datalist id="provider-ids">
        {providerIds
          .split("\n")
          .filter(Boolean)
          .map((id) => (
            <option key={id} value={id} />
          ))}
      </datalist>
      {loadError && (
        <p role="alert" className="error-banner">
          Could not load settings: {loadError}
        </p>
      )}
      {settings && (
        <>
          <RulesSection settings={settings} />
          <DefaultsSection settings={settings} />
        </>
      )}
    </section>
  );
}

async function patchSettings(patch: Partial<AppSettings>): Promise<void> {
  const saved = await call("patchSettings", patch);
  appSettings.use.setState({ data: saved, loadedAt: Date.now() });
}

/**
 * Both sections save the same way: patch, then show the notice, or the server's errors placed on
 * this section's fields by `place` (each section names its fields differently).
 */
function useSettingsSave() {
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [notice, setNotice] = useState<string | null>(null);

  async function saveSettings(patch: Partial<AppSettings>, message: string, place: (all: FormErrors) => FormErrors): Promise<boolean> {
    setNotice(null);
    try {
      await patchSettings(patch);
      setErrors(NO_ERRORS);
      setNotice(message);
      return true;
    } catch (err) {
      setErrors(place(formErrorsFrom(err)));
      return false;
    }
  }

  return { errors, setErrors, notice, saveSettings };
}

const EMPTY_RULE = { provider: "", status: "", match: "", scope: "connection" as Scope, reason: "", duration: DEFAULT_DURATION };

function RulesSection({ settings }: { settings: AppSettings }) {
  const rules = settings.providerErrorRules;
  const [draft, setDraft] = useState(EMPTY_RULE);
  const { errors, setErrors, notice, saveSettings } = useSettingsSave();
  const set = (change: Partial<typeof EMPTY_RULE>) => setDraft((d) => ({ ...d, ...change }));

  const save = (next: ProviderErrorRule[], message: string, scopeIndex: number | null) =>
    saveSettings({ providerErrorRules: next }, message, (all) => (scopeIndex === null ? all : scopeErrors(all, `providerErrorRules.${scopeIndex}`)));

  async function add(event: SubmitEvent) {
    event.preventDefault();
    const duration = durationMs(draft.duration);
    if (!duration.ok) {
      setErrors({ fields: { cooldownMs: duration.error }, general: null });
      return;
    }
    const rule: ProviderErrorRule = { provider: draft.provider.trim(), scope: draft.scope };
    // Typed text is sent as is (a non-number status included) so the server's rule check speaks.
    if (draft.status.trim() !== "") rule.status = Number(draft.status.trim());
    if (draft.match !== "") rule.match = draft.match;
    if (draft.reason.trim() !== "") rule.reason = draft.reason.trim();
    if (duration.ms !== undefined) rule.cooldownMs = duration.ms;
    if (await save([...rules, rule], `Rule for ${rule.provider} added.`, rules.length)) setDraft(EMPTY_RULE);
  }

  const f = errors.fields;
  return (
    <>
      <h3>Operator rules</h3>
      {rules.length === 0 ? (
        <p className="muted">No operator rules: built-in rules and the per-provider defaults below decide. Add one to override them for a provider.</p>
      ) : (
        <DataTable caption="Operator error rules, first match wins" columns={["#", "Provider", "Status", "Body contains", "Scope", "Reason", "Cooldown", "Action"]}>
          {rules.map((rule, index) => (
            <tr key={`${index}-${rule.provider}-${rule.status ?? ""}-${rule.match ?? ""}`}>
              <td>{index + 1}</td>
              <th scope="row">{rule.provider}</th>
              <td>{rule.status ?? <span className="muted">any</span>}</td>
              <td>{rule.match ? <code>{rule.match}</code> : <span className="muted">any</span>}</td>
              <td>{rule.scope}</td>
              <td>{rule.reason ?? <span className="muted">—</span>}</td>
              <td>{describeDuration(rule.cooldownMs)}</td>
              <td className="actions">
                <button
                  type="button"
                  className="secondary small"
                  onClick={() =>
                    void save(
                      rules.filter((_, i) => i !== index),
                      `Rule ${index + 1} removed.`,
                      null,
                    )
                  }
                >
                  Remove rule {index + 1}
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <form className="subform" noValidate onSubmit={(e) => void add(e)} aria-label="Add an error rule">
        <p className="muted">A rule needs a status, a body text, or both (both must match). Matching is a plain, case-insensitive substring.</p>
        <div className="form-grid">
          <TextField label="Rule provider" list="provider-ids" value={draft.provider} onChange={(v) => set({ provider: v })} error={f.provider} />
          <TextField label="HTTP status" inputMode="numeric" value={draft.status} onChange={(v) => set({ status: v })} hint="e.g. 429; empty = any" error={f.status} />
          <TextField label="Body contains" value={draft.match} onChange={(v) => set({ match: v })} hint="empty = any" error={f.match} />
          <SelectField label="Scope" value={draft.scope} onChange={(v) => set({ scope: v })} options={SCOPE_OPTIONS} error={f.scope} />
          <TextField label="Reason" value={draft.reason} onChange={(v) => set({ reason: v })} hint="optional, shown as the error type" error={f.reason} />
          <DurationChoice
            label="Rule cooldown"
            value={draft.duration}
            onChange={(duration) => set({ duration })}
            allowDefault
            defaultHint="Default: the engine's own cooldown"
            error={f.cooldownMs}
          />
        </div>
        <div className="form-actions">
          <button type="submit">Add rule</button>
        </div>
        {errors.general && (
          <p role="alert" className="field-error">
            {errors.general}
          </p>
        )}
        {notice && (
          <p role="status" className="notice-ok">
            {notice}
          </p>
        )}
      </form>
    </>
  );
}

const EMPTY_DEFAULT = { provider: "", scope: "connection" as Scope, reason: "", duration: { choice: "1h", customMinutes: "" } };

function DefaultsSection({ settings }: { settings: AppSettings }) {
  const defaults = settings.providerErrorDefaults;
  const [draft, setDraft] = useState(EMPTY_DEFAULT);
  const { errors, setErrors, notice, saveSettings } = useSettingsSave();
  const set = (change: Partial<typeof EMPTY_DEFAULT>) => setDraft((d) => ({ ...d, ...change }));

  const save = (next: AppSettings["providerErrorDefaults"], message: string, provider: string | null) =>
    saveSettings({ providerErrorDefaults: next }, message, (all) => {
      const scoped = provider === null ? all : scopeErrors(all, `providerErrorDefaults.${provider}`);
      // A bad provider name is reported on the map key itself.
      return scoped.fields._ ? { fields: { ...scoped.fields, provider: scoped.fields._ }, general: scoped.general } : scoped;
    });

  async function add(event: SubmitEvent) {
    event.preventDefault();
    const provider = draft.provider.trim();
    const duration = durationMs(draft.duration);
    if (!duration.ok || duration.ms === undefined) {
      setErrors({ fields: { cooldownMs: duration.ok ? "choose a duration" : duration.error }, general: null });
      return;
    }
    const entry: AppSettings["providerErrorDefaults"][string] = { cooldownMs: duration.ms, scope: draft.scope };
    if (draft.reason.trim() !== "") entry.reason = draft.reason.trim();
    if (await save({ ...defaults, [provider]: entry }, `Default for ${provider} saved.`, provider)) setDraft(EMPTY_DEFAULT);
  }

  const entries = Object.entries(defaults);
  const f = errors.fields;
  return (
    <>
      <h3>Per-provider defaults</h3>
      <p className="muted">Applied only when no rule matched, and only to 402, 403, 408, 429 and 5xx; the longer of this and the upstream's hint wins.</p>
      {entries.length === 0 ? (
        <p className="muted">No per-provider defaults.</p>
      ) : (
        <DataTable caption="Per-provider default cooldowns" columns={["Provider", "Cooldown", "Scope", "Reason", "Action"]}>
          {entries.map(([provider, entry]) => (
            <tr key={provider}>
              <th scope="row">{provider}</th>
              <td>{describeDuration(entry.cooldownMs)}</td>
              <td>{entry.scope ?? "connection"}</td>
              <td>{entry.reason ?? <span className="muted">—</span>}</td>
              <td className="actions">
                <button
                  type="button"
                  className="secondary small"
                  onClick={() => void save(Object.fromEntries(entries.filter(([p]) => p !== provider)), `Default for ${provider} removed.`, null)}
                >
                  Remove default for {provider}
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <form className="subform" noValidate onSubmit={(e) => void add(e)} aria-label="Set a per-provider default">
        <div className="form-grid">
          <TextField label="Default provider" list="provider-ids" value={draft.provider} onChange={(v) => set({ provider: v })} error={f.provider} />
          <DurationChoice label="Default cooldown" value={draft.duration} onChange={(duration) => set({ duration })} allowDefault={false} error={f.cooldownMs} />
          <SelectField label="Default scope" value={draft.scope} onChange={(v) => set({ scope: v })} options={SCOPE_OPTIONS} error={f.scope} />
          <TextField label="Default reason" value={draft.reason} onChange={(v) => set({ reason: v })} hint="optional" error={f.reason} />
        </div>
        <div className="form-actions">
          <button type="submit">Save default</button>
        </div>
        {errors.general && (
          <p role="alert" className="field-error">
            {errors.general}
          </p>
        )}
        {notice && (
          <p role="status" className="notice-ok">
            {notice}
          </p>
        )}
      </form>
    </>
  );
}
