// Move your setup (R0.4, issue 14): export the config as JSON or YAML with secrets redacted or as
// env:NAME references; import one after a preview of what it changes. The import is all or
// nothing (one transaction on the server); its steps show as progress while it runs.
import { useState } from "react";
import type { ConfigImportPreview, ConfigImportResponse } from "../../../../shared/apiTypes.js";
import { CopyBlock } from "../../components/CopyBlock.js";
import { DataTable } from "../../components/DataTable.js";
import { SelectField } from "../../components/Field.js";
import { errorText } from "../../stores/liveResource.js";
import { call, ContractCallError } from "../../transport.js";
import { formatOf, type ConfigFormat } from "./importFormat.js";
import { ImportProgress, type ImportStage } from "./ImportProgress.js";

type Format = ConfigFormat;

/** The server's message, with the field it names when the message does not already. */
function importError(err: unknown): string {
  const text = errorText(err);
  return err instanceof ContractCallError && err.path && !text.includes(err.path) ? `${text} (at ${err.path})` : text;
}

export function ConfigPage() {
  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Import & export</h1>
          <p className="muted">Move your setup between machines: providers, connections, combos, settings and resilience in one file.</p>
        </div>
      </header>
      <ExportCard />
      <ImportCard />
    </div>
  );
}

function ExportCard() {
  const [format, setFormat] = useState<Format>("yaml");
  const [secrets, setSecrets] = useState<"redacted" | "env">("env");
  const [text, setText] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function exportNow() {
    try {
      const out = await call("exportConfig", { format, secrets });
      const body = "kind" in out && out.kind === "raw" ? out.body : JSON.stringify(out, null, 2) + "\n";
      setText(body);
      setError(null);
      const link = document.createElement("a");
      link.href = URL.createObjectURL(new Blob([body], { type: format === "yaml" ? "text/yaml" : "application/json" }));
      link.download = `switchyard-config.${format}`;
      link.click();
      URL.revokeObjectURL(link.href);
    } catch (err) {
      setError(errorText(err));
    }
  }

  return (
    <section className="card" aria-labelledby="export-title">
      <h2 id="export-title">Export</h2>
      <div className="form-grid">
        <SelectField
          label="Format"
          value={format}
          onChange={setFormat}
          options={[
            { value: "yaml", label: "YAML" },
            { value: "json", label: "JSON" },
          ]}
        />
        <SelectField
          label="Secrets"
          value={secrets}
          onChange={setSecrets}
          options={[
            { value: "env", label: "as env:NAME references" },
            { value: "redacted", label: "redacted" },
          ]}
          hint="never the keys themselves"
        />
      </div>
      <div className="form-actions">
        <button type="button" onClick={() => void exportNow()}>
          Export the config
        </button>
      </div>
      {error && (
        <p role="alert" className="error-banner">
          Could not export: {error}
        </p>
      )}
      {text && (
        <>
          <p className="muted">
            Downloaded as switchyard-config.{format}.{" "}
            {secrets === "env" ? "Set each env:NAME variable on the other machine before importing." : "A redacted key keeps the key already there on import."}
          </p>
          <CopyBlock label="exported config" text={text} />
        </>
      )}
    </section>
  );
}

function ImportCard() {
  const [source, setSource] = useState<{ name: string; text: string } | null>(null);
  const [preview, setPreview] = useState<ConfigImportPreview | null>(null);
  const [stage, setStage] = useState<ImportStage>("idle");
  const [result, setResult] = useState<ConfigImportResponse | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function choose(file: File | undefined) {
    setPreview(null);
    setResult(null);
    setError(null);
    if (!file) return setSource(null);
    setStage("reading");
    const text = await file.text();
    setSource({ name: file.name, text });
    await check({ name: file.name, text });
  }

  /** One step of the import: `busy` while it runs, `done` after it, "failed" with its error. */
  async function step(busy: ImportStage, done: ImportStage, work: () => Promise<void>) {
    setStage(busy);
    try {
      await work();
      setStage(done);
    } catch (err) {
      setError(importError(err));
      setStage("failed");
    }
  }

  async function check(src: { name: string; text: string }) {
    await step("checking", "previewed", async () => setPreview(await call("previewConfigImport", { format: formatOf(src.name, src.text), text: src.text })));
  }

  async function apply() {
    if (!source) return;
    const src = source;
    await step("applying", "done", async () => setResult(await call("importConfig", { format: formatOf(src.name, src.text), text: src.text })));
  }

  return (
    <section className="card" aria-labelledby="import-title">
      <h2 id="import-title">Import</h2>
      <p className="muted">Nothing changes until you apply; then everything in the file is applied, or nothing is.</p>
      <div className="field">
        <label htmlFor="import-file">Config file (JSON or YAML)</label>
        <input id="import-file" type="file" accept=".json,.yaml,.yml,application/json,text/yaml" onChange={(e) => void choose(e.target.files?.[0])} />
      </div>
      <ImportProgress stage={stage} />
      {error && (
        <p role="alert" className="error-banner">
          {stage === "failed" && result === null ? "Nothing was imported: " : ""}
          {error}
        </p>
      )}
      {preview && stage !== "done" && <PreviewTable preview={preview} />}
      {preview && stage === "previewed" && (
        <div className="form-actions">
          <button type="button" onClick={() => void apply()} disabled={preview.total === 0 && preview.settings.length === 0 && preview.resilience.length === 0}>
            Apply the import
          </button>
        </div>
      )}
      {result && <ImportResult result={result} />}
    </section>
  );
}

function PreviewTable({ preview }: { preview: ConfigImportPreview }) {
  const changes = preview.changes.filter((c) => c.action !== "unchanged");
  const unchanged = preview.changes.length - changes.length;
  return (
    <>
      <h3>What this import changes</h3>
      <p>
        {changes.length} change{changes.length === 1 ? "" : "s"}
        {unchanged > 0 && `, ${unchanged} unchanged`}
        {preview.settings.length > 0 && `; settings: ${preview.settings.join(", ")}`}
        {preview.resilience.length > 0 && `; resilience: ${preview.resilience.join(", ")}`}
      </p>
      {changes.length > 0 && (
        <DataTable className="card" caption="Changes the import would apply" columns={["Entity", "Id", "Change", "Fields"]}>
          {changes.map((c) => (
            <tr key={`${c.entity}:${c.id}`}>
              <td>{c.entity}</td>
              <th scope="row">{c.id}</th>
              <td>{c.action}</td>
              <td>{c.fields.join(", ") || "—"}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </>
  );
}

function ImportResult({ result }: { result: ConfigImportResponse }) {
  const { providers, connections, combos, keys } = result.imported;
  return (
    <>
      <p role="status" className="notice-ok">
        Imported {providers} provider(s), {connections} connection(s), {combos} combo(s) and {keys} key(s).
      </p>
      {result.createdKeys?.map((k) => (
        <p key={k.id} className="secret-once">
          New key {k.name}: <code>{k.key}</code> (shown once: copy it now)
        </p>
      ))}
    </>
  );
}
