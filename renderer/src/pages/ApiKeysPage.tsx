// API keys for clients (R1.7): the key is shown once, right after creation, with a copy button;
// the list shows only a recognisable prefix because the server keeps nothing but a hash. Each key
// may carry a budget (R18.4), shown as what is used of it and edited under the list.
import { useEffect, useState, type SubmitEvent } from "react";
import { formErrorsFrom, NO_ERRORS, type FormErrors } from "../apiErrors.js";
import type { ApiKeyInfo } from "../../../shared/types.js";
import { budgetPercent, budgetUseText } from "../budget.js";
import { ConfirmButton } from "../components/ConfirmButton.js";
import { DataTable } from "../components/DataTable.js";
import { TextField } from "../components/Field.js";
import { Meter } from "../components/Meter.js";
import { errorText } from "../stores/liveResource.js";
import { apiKeys, appSettings } from "../stores/resources.js";
import { call, type ContractOutput, type ContractRequest } from "../transport.js";
import { KeyBudgetForm } from "./KeyBudgetForm.js";

export function ApiKeysPage() {
  useEffect(() => apiKeys.watch(), []);
  useEffect(() => appSettings.watch(), []);
  const { data, error, reload } = apiKeys.use();
  const requireKey = appSettings.use((s) => s.data?.requireClientKey);
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState("");
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [created, setCreated] = useState<ContractOutput<"createKey"> | null>(null);
  const [copy, setCopy] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [budgetOf, setBudgetOf] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const list = data ?? [];
  const editing = list.find((k) => k.id === budgetOf) ?? null;

  async function create(event: SubmitEvent) {
    event.preventDefault();
    setCopy(null);
    try {
      const body: ContractRequest<"createKey"> = { name: name.trim() };
      const scopeList = scopes.split(/[\s,]+/).filter(Boolean);
      // Typed text: the server refuses an unknown scope with its field path, shown under the input.
      // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- see above: the server, not the form, checks the scope names
      if (scopeList.length > 0) body.scopes = scopeList as NonNullable<typeof body.scopes>;
      setCreated(await call("createKey", body));
      setErrors(NO_ERRORS);
      setName("");
      setScopes("");
    } catch (err) {
      setErrors(formErrorsFrom(err));
    }
    void reload();
  }

  async function copyKey(key: string) {
    try {
      await navigator.clipboard.writeText(key);
      setCopy("Copied to the clipboard.");
    } catch {
      setCopy("The browser refused clipboard access: select the key and copy it by hand.");
    }
  }

  async function remove(id: string, keyName: string) {
    try {
      await call("deleteKey", { id });
      setFailure(null);
    } catch (err) {
      setFailure(`Could not delete ${keyName}: ${errorText(err)}`);
    }
    void reload();
  }

  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>API keys</h1>
          <p className="muted">
            Keys that clients present as <code>Authorization: Bearer sk-sy-…</code> or <code>x-api-key</code>.{" "}
            {requireKey === false && "Loopback clients need no key right now (requireClientKey is off)."}
            {requireKey === true && "A key is required on every client request."}
          </p>
        </div>
      </header>

      {created && (
        <section className="card" aria-labelledby="new-key-title">
          <h2 id="new-key-title">Key “{created.name}” created</h2>
          <p>
            <strong>Copy it now: it is shown only this once.</strong> Switchyard stores only its hash.
          </p>
          <div className="secret-once">
            <code aria-label="The new API key">{created.key}</code>
            <button type="button" onClick={() => void copyKey(created.key)}>
              Copy key
            </button>
            <button
              type="button"
              className="secondary"
              onClick={() => {
                setCreated(null);
                setCopy(null);
              }}
            >
              I have saved it
            </button>
          </div>
          {copy && <p role="status">{copy}</p>}
        </section>
      )}

      <section className="card" aria-labelledby="create-key-title">
        <h2 id="create-key-title">Create a key</h2>
        <form noValidate onSubmit={(e) => void create(e)} aria-labelledby="create-key-title">
          <div className="form-grid">
            <TextField label="Key name" value={name} onChange={setName} hint="who or what uses it, e.g. laptop aider" error={errors.fields.name} />
            <TextField
              label="Scopes"
              value={scopes}
              onChange={setScopes}
              hint={<>optional, comma-separated; known: &quot;lease:exclusive&quot; (exclusive session leases)</>}
              error={errors.fields.scopes ?? errors.fields["scopes.0"]}
            />
          </div>
          <div className="form-actions">
            <button type="submit">Create key</button>
          </div>
          {errors.general && (
            <p role="alert" className="field-error">
              {errors.general}
            </p>
          )}
        </form>
      </section>

      {error && (
        <p role="alert" className="error-banner">
          Could not load keys: {error}
        </p>
      )}
      {failure && (
        <p role="alert" className="error-banner">
          {failure}
        </p>
      )}
      <section className="card" aria-labelledby="keys-title">
        <h2 id="keys-title">Keys</h2>
        {data && list.length === 0 ? (
          <p className="muted">No keys yet. Create one above for each client, so you can revoke one without touching the others.</p>
        ) : (
          <DataTable caption="Client API keys" columns={["Name", "Starts with", "Scopes", "Created", "Last used", "Budget", "Action"]}>
            {list.map((key) => (
              <KeyRow
                key={key.id}
                apiKey={key}
                onBudget={() => {
                  setSaved(null);
                  setBudgetOf(key.id);
                }}
                onRemove={() => remove(key.id, key.name)}
              />
            ))}
          </DataTable>
        )}
        {saved && (
          <p role="status" className="notice-ok">
            {saved}
          </p>
        )}
        {editing && (
          <KeyBudgetForm
            key={editing.id}
            apiKey={editing}
            onDone={(message) => {
              setBudgetOf(null);
              setSaved(message);
              if (message) void reload();
            }}
          />
        )}
      </section>
    </div>
  );
}

function KeyRow({ apiKey: key, onBudget, onRemove }: { apiKey: ApiKeyInfo; onBudget(): void; onRemove(): Promise<void> }) {
  return (
    <tr>
      <th scope="row">{key.name}</th>
      <td>
        <code>{key.prefix}…</code>
      </td>
      <td>{key.scopes.length > 0 ? key.scopes.join(", ") : <span className="muted">—</span>}</td>
      <td>{new Date(key.createdAt).toLocaleString()}</td>
      <td>{key.lastUsedAt ? new Date(key.lastUsedAt).toLocaleString() : <span className="muted">never</span>}</td>
      <td>
        <KeyBudgetUse apiKey={key} />
        <button type="button" className="link" aria-label={`Set the budget of ${key.name}`} onClick={onBudget}>
          {key.budget ? "Change" : "Set a budget"}
        </button>
      </td>
      <td className="actions">
        <ConfirmButton label={`Delete key ${key.name}`} confirmLabel={`Revoke ${key.name} now`} onConfirm={onRemove} />
      </td>
    </tr>
  );
}

function KeyBudgetUse({ apiKey }: { apiKey: ApiKeyInfo }) {
  if (!apiKey.budget) return null;
  const text = budgetUseText(apiKey.budget, apiKey.budgetUsed);
  return (
    <span className="key-budget">
      <span className="field-hint">{text}</span>
      <Meter label={`Budget of ${apiKey.name}`} percent={budgetPercent(apiKey.budget, apiKey.budgetUsed)} text={text} />
    </span>
  );
}
