// First-run help (issue 14): the first screen of a new user offers two paths, add a provider or
// start the built-in simulated demo; the API and config-file ways follow.
import { useState } from "react";
import { ActionMessage, type ActionOutcome } from "../components/ActionMessage.js";
import { errorText } from "../stores/liveResource.js";
import { call } from "../transport.js";

export function EmptyProviders({ origin, onAdd }: { origin: string; onAdd(): void }) {
  const api = `${origin}/api`;
  const [demo, setDemo] = useState<"idle" | "starting">("idle");
  const [outcome, setOutcome] = useState<ActionOutcome | null>(null);

  async function startDemo() {
    setDemo("starting");
    setOutcome({ ok: true, text: "Starting two simulated providers and the combo “demo”…" });
    try {
      const result = await call("startDemo");
      setOutcome({
        ok: true,
        text: `Demo ready: providers ${result.providers.join(" and ")}, model “${result.combo}”. Send a request from Connect your tools and watch it fail over.`,
      });
    } catch (err) {
      setOutcome({ ok: false, text: `Could not start the demo: ${errorText(err)}` });
    }
    setDemo("idle");
  }

  return (
    <section className="empty" aria-labelledby="empty-title">
      <h2 id="empty-title">No providers yet</h2>
      <p>Two ways to begin:</p>
      <div className="form-actions">
        <button type="button" onClick={onAdd}>
          Add your first provider
        </button>
        <button type="button" className="secondary" disabled={demo === "starting"} onClick={() => void startDemo()}>
          Start the simulated demo
        </button>
      </div>
      <p className="muted">
        The demo needs no key: two simulated providers and a combo, with a rate limit on the first call so you see failover live. Then open{" "}
        <a href="#/connect">Connect your tools</a> for the lines that point your tools here.
      </p>
      <ActionMessage outcome={outcome} />
      <p>
        A <strong>provider</strong> is an upstream service (OpenAI, Anthropic, Gemini, a local server, or the built-in simulator). A <strong>connection</strong> is one account or
        API key of it. Add both here, or with the API or a config file; this page updates by itself.
      </p>
      <h3>With the management API</h3>
      <p>
        Use the admin token (the part after <code>#token=</code> of the Dashboard URL, also in the <code>admin-token</code> file of the data directory):
      </p>
      <pre>
        <code>{`curl -X POST ${api}/providers \\
  -H "Authorization: Bearer $SWITCHYARD_ADMIN_TOKEN" -H "Content-Type: application/json" \\
  -d '{"id":"openai","format":"openai","baseUrl":"https://api.openai.com/v1","category":"apikey","models":["gpt-4o-mini"]}'

curl -X POST ${api}/connections \\
  -H "Authorization: Bearer $SWITCHYARD_ADMIN_TOKEN" -H "Content-Type: application/json" \\
  -d '{"provider":"openai","name":"Work key","apiKey":"sk-…"}'`}</code>
      </pre>
      <h3>With a config file</h3>
      <p>
        Start Switchyard with <code>--config switchyard.yaml</code>. Secrets may be written as <code>env:NAME</code> to read them from the environment:
      </p>
      <pre>
        <code>{`providers:
  - id: openai
    format: openai
    baseUrl: https://api.openai.com/v1
    category: apikey
    models: [gpt-4o-mini]
connections:
  - provider: openai
    name: Work key
    apiKey: env:OPENAI_API_KEY`}</code>
      </pre>
      <p className="muted">
        From a terminal, <code>npm start -- --demo</code> starts the same demo.
      </p>
    </section>
  );
}
