// "Use your subscription" (R21.8): for Claude Code on a Pro/Max plan and Codex on a ChatGPT plan, the
// run line and the lines that keep the agent's own login, and which provider and client-login
// connection (R21.1) will carry that login upstream, or a button that adds one.
import { useState } from "react";
import type { Connection, Provider } from "../../../../shared/types.js";
import { ActionMessage, type ActionOutcome } from "../../components/ActionMessage.js";
import { Badge } from "../../components/Badge.js";
import { CopyBlock } from "../../components/CopyBlock.js";
import { errorText } from "../../stores/liveResource.js";
import { providerLists, useProviderLists } from "../../stores/providers.js";
import { call } from "../../transport.js";
import { buildSubscriptionSnippets, loginCarriers, providerForLogin, type SubscriptionSnippet } from "./subscription.js";

/** `clientKey`: the Switchyard key the lines carry, or null when the instance requires none (`key` is React's). */
export function SubscriptionSection({ url, clientKey }: { url: string; clientKey: string | null }) {
  const { providers, connections } = useProviderLists();
  const snippets = buildSubscriptionSnippets({ url, key: clientKey });
  return (
    <section aria-labelledby="subscription-title">
      <h2 id="subscription-title">Use your subscription</h2>
      <p className="muted">
        Logged in to Claude Code or Codex with a plan rather than an API key? Keep that login: the agent sends it to Switchyard, which passes it on unchanged to its vendor through
        a client-login connection (it is never stored, logged or shown), with failover, windows and the billing boundary around it.
      </p>
      {snippets.map((s) => (
        <SubscriptionCard key={s.kind} snippet={s} providers={providers} connections={connections} />
      ))}
    </section>
  );
}

function SubscriptionCard({ snippet: s, providers, connections }: { snippet: SubscriptionSnippet; providers: Provider[]; connections: Connection[] }) {
  const carriers = loginCarriers(s.kind, providers, connections);
  const id = `subscription-${s.kind}`;
  return (
    <section className="card" aria-labelledby={id}>
      <div className="card-header">
        <h3 id={id}>{s.title}</h3>
        {carriers.some((c) => c.connection.active) ? <Badge tone="ok">login carried</Badge> : <Badge tone="warn">no client-login connection</Badge>}
      </div>
      <Carriers snippet={s} carriers={carriers} providers={providers} />
      <p className="muted">Start it pointed here, for this run only, with its login:</p>
      <CopyBlock label={`${s.title} run line`} text={s.run} />
      <p className="muted">Or set it up by hand. {s.where}</p>
      <CopyBlock label={`${s.title} lines`} text={s.text} />
    </section>
  );
}

function Carriers({ snippet: s, carriers, providers }: { snippet: SubscriptionSnippet; carriers: ReturnType<typeof loginCarriers>; providers: Provider[] }) {
  const [outcome, setOutcome] = useState<ActionOutcome | null>(null);
  const [busy, setBusy] = useState(false);
  const target = providerForLogin(s.kind, providers);

  async function add() {
    setBusy(true);
    try {
      let provider = target;
      if (!provider) {
        provider = await call("createProvider", {
          id: s.upstream.suggestedId,
          format: s.upstream.format,
          baseUrl: s.upstream.baseUrl,
          category: "oauth",
          models: [],
          // The vendor decides which models a login may use (R21.10).
          passthroughModels: true,
        });
      }
      const created = await call("createConnection", { provider: provider.id, name: s.title, credential: "client" });
      setOutcome({ ok: true, text: `Added the client-login connection "${created.name}" to provider ${provider.id}: ${s.upstream.login} now goes to ${provider.baseUrl}.` });
      await providerLists.use.getState().reload();
    } catch (err) {
      setOutcome({ ok: false, text: `Could not add the connection: ${errorText(err)}` });
    } finally {
      setBusy(false);
    }
  }

  if (carriers.length > 0) {
    return (
      <div>
        <p>
          {capitalised(s.upstream.login)} is carried by{" "}
          {carriers.map((c, i) => (
            <span key={c.connection.id}>
              {i > 0 && (i === carriers.length - 1 ? " and " : ", ")}
              provider <strong>{c.provider.id}</strong>, connection <strong>{c.connection.name}</strong> (client login
              {c.connection.active ? "" : ", switched off"}) to <code>{c.provider.baseUrl}</code>
            </span>
          ))}
          . Each distinct login becomes an account of its own there.
        </p>
        <ActionMessage outcome={outcome} />
      </div>
    );
  }
  return (
    <div>
      <p>
        No provider has a client-login connection for {s.upstream.login} yet, so these requests would be served by other providers, without it.{" "}
        {target ? (
          <>
            The button adds one to provider <strong>{target.id}</strong> (<code>{target.baseUrl}</code>).
          </>
        ) : (
          <>
            The button adds provider <strong>{s.upstream.suggestedId}</strong> (<code>{s.upstream.baseUrl}</code>) with one.
          </>
        )}
      </p>
      <button type="button" disabled={busy} onClick={() => void add()}>
        Add a client-login connection for {s.title}
      </button>
      <ActionMessage outcome={outcome} />
    </div>
  );
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
