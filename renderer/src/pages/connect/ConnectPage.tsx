// Connect your tools (issues 14, 22, 35; R21.8): for each coding agent first the `switchyard run` line that
// starts it pointed here, "use your subscription" for Claude Code and Codex logged in with a plan, then the exact lines for Claude Code, Codex CLI, Gemini CLI, opencode, Qwen
// Code, pi, aider, other OpenAI-compatible tools and the SDKs, filled with this instance's address, each
// with a copy button; a key minted right here when the instance requires one; and, live, the last request
// seen from each kind of client, so the user sees the moment their tool is connected.
import { useEffect, useMemo, useState } from "react";
import type { ClientActivity } from "../../../../shared/apiTypes.js";
import { keysOf } from "../../../../shared/records.js";
import { ActionMessage, type ActionOutcome } from "../../components/ActionMessage.js";
import { Badge } from "../../components/Badge.js";
import { CopyBlock } from "../../components/CopyBlock.js";
import { DataTable } from "../../components/DataTable.js";
import { SelectField } from "../../components/Field.js";
import { errorText } from "../../stores/liveResource.js";
import { providerLists, useProviderLists } from "../../stores/providers.js";
import { appSettings, combos } from "../../stores/resources.js";
import { call } from "../../transport.js";
import { useNow } from "../../useNow.js";
import { useClientActivity, watchClientActivity } from "./clientActivity.js";
import { ProviderCheckPanel } from "./ProviderCheckPanel.js";
import { buildSnippets, CLIENT_LABELS } from "./snippets.js";
import { SubscriptionSection } from "./SubscriptionSection.js";

const KINDS = keysOf(CLIENT_LABELS);

export function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s ago`;
  const m = Math.round(s / 60);
  return m < 60 ? `${m} min ago` : `${Math.round(m / 60)} h ago`;
}

function useGatewayUrl(): string {
  const [url, setUrl] = useState(window.location.protocol.startsWith("http") ? window.location.origin : "http://127.0.0.1:8642");
  useEffect(() => {
    call("getInstance").then(
      (i) => setUrl(i.url),
      () => undefined,
    );
  }, []);
  return url;
}

function useModelChoices(): string[] {
  useEffect(() => providerLists.watch(), []);
  useEffect(() => combos.watch(), []);
  const { providers } = useProviderLists();
  const comboList = combos.use((s) => s.data);
  return useMemo(() => [...(comboList ?? []).map((c) => c.name), ...providers.flatMap((p) => p.models.map((m) => `${p.id}/${m}`))], [comboList, providers]);
}

export function ConnectPage() {
  useEffect(() => watchClientActivity(), []);
  useEffect(() => appSettings.watch(), []);
  const url = useGatewayUrl();
  const models = useModelChoices();
  const requireKey = appSettings.use((s) => s.data?.requireClientKey) ?? false;
  const [model, setModel] = useState("");
  const [smallModel, setSmallModel] = useState("");
  const [key, setKey] = useState<string | null>(null);
  const chosen = model || models[0] || "provider/model";
  const small = smallModel || chosen;
  const clientKey = requireKey ? (key ?? "<your Switchyard key>") : null;
  const snippets = buildSnippets({ url, model: chosen, smallModel: small, key: clientKey });
  const { items, error } = useClientActivity();
  const seen = new Map(items.map((i) => [i.kind, i]));
  const modelOptions = (models.length ? models : [chosen]).map((m) => ({ value: m, label: m }));

  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Connect your tools</h1>
          <p className="muted">
            Switchyard listens on <code>{url}</code>. Paste the lines for your tool; its first request shows up below the moment it arrives.
          </p>
        </div>
      </header>
      <section className="card" aria-labelledby="connect-choices">
        <h2 id="connect-choices">Model and key</h2>
        <div className="form-grid">
          <SelectField label="Model" value={chosen} onChange={setModel} options={modelOptions} hint="a combo, or provider/model" />
          <SelectField label="Small/fast model (Claude Code)" value={small} onChange={setSmallModel} options={modelOptions} hint="for Claude Code's background calls" />
        </div>
        <KeyPanel requireKey={requireKey} keyValue={key} onKey={setKey} />
      </section>
      <ProviderCheckPanel model={chosen} />
      <ActivityTable items={items} error={error} />
      <SubscriptionSection url={url} clientKey={clientKey} />
      {snippets.map((s) => (
        <section key={s.title} className="card" aria-labelledby={`snippet-${s.kind}`}>
          <div className="card-header">
            <h2 id={`snippet-${s.kind}`}>{s.title}</h2>
            {s.kind !== "pi" && <SeenBadge activity={seen.get(s.kind)} />}
          </div>
          {s.run && (
            <>
              <p className="muted">
                Start it pointed here, for this run only (its login and config stay as they are; <code>switchyard connect</code> sets it up for good):
              </p>
              <CopyBlock label={`${s.title} run line`} text={s.run} />
              <p className="muted">Or set it up by hand. {s.where}</p>
            </>
          )}
          {!s.run && <p className="muted">{s.where}</p>}
          <CopyBlock label={`${s.title} lines`} text={s.text} />
        </section>
      ))}
    </div>
  );
}

function KeyPanel({ requireKey, keyValue, onKey }: { requireKey: boolean; keyValue: string | null; onKey(key: string): void }) {
  const [outcome, setOutcome] = useState<ActionOutcome | null>(null);
  if (!requireKey) {
    return <p className="muted">Loopback clients need no key here (requireClientKey is off): any value works where a tool insists on one.</p>;
  }
  async function mint() {
    try {
      const created = await call("createKey", { name: `Connect page ${new Date().toISOString().slice(0, 16).replace("T", " ")}` });
      onKey(created.key);
      setOutcome({ ok: true, text: `Key "${created.name}" created and filled into the lines below. It is shown only here, once: copy it now.` });
    } catch (err) {
      setOutcome({ ok: false, text: `Could not create a key: ${errorText(err)}` });
    }
  }
  return (
    <div>
      <p>This instance requires a Switchyard key from every client (requireClientKey is on).</p>
      {keyValue ? (
        <p className="secret-once">
          Key: <code>{keyValue}</code>
        </p>
      ) : (
        <button type="button" onClick={() => void mint()}>
          Create a key for these tools
        </button>
      )}
      <ActionMessage outcome={outcome} />
    </div>
  );
}

function SeenBadge({ activity }: { activity: ClientActivity | undefined }) {
  const now = useNow(1_000);
  if (!activity) return <Badge tone="muted">not seen yet</Badge>;
  return <Badge tone={activity.status < 400 ? "ok" : "warn"}>connected · last request {ago(now - activity.lastSeenAt)}</Badge>;
}

function ActivityTable({ items, error }: { items: ClientActivity[]; error: string | null }) {
  const now = useNow(1_000);
  const byKind = new Map(items.map((i) => [i.kind, i]));
  return (
    <section aria-labelledby="activity-title">
      <h2 id="activity-title">Last request seen from each client</h2>
      {error && (
        <p role="alert" className="error-banner">
          Could not load client activity: {error}
        </p>
      )}
      <DataTable className="card" caption="Clients, by user-agent, updated live" columns={["Client", "Last request", "Model", "Status"]}>
        {KINDS.map((kind) => {
          const a = byKind.get(kind);
          return (
            <tr key={kind}>
              <th scope="row">{CLIENT_LABELS[kind]}</th>
              <td>{a ? ago(now - a.lastSeenAt) : <span className="muted">not seen yet</span>}</td>
              <td>{a ? <code>{a.model}</code> : "—"}</td>
              <td>{a ? <Badge tone={a.status < 400 ? "ok" : "warn"}>{a.status}</Badge> : "—"}</td>
            </tr>
          );
        })}
      </DataTable>
    </section>
  );
}
