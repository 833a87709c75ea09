// First-run help: add a provider and a connection here, or through the API or a config file.
export function EmptyProviders({ origin, onAdd }: { origin: string; onAdd(): void }) {
  const api = `${origin}/api`;
  return (
    <section className="empty" aria-labelledby="empty-title">
      <h2 id="empty-title">No providers yet</h2>
      <p>
        A <strong>provider</strong> is an upstream service (OpenAI, Anthropic, Gemini, a local server, or the built-in simulator). A{" "}
        <strong>connection</strong> is one account or API key of it. Add both here, or with the API or a config file; this page updates
        by itself.
      </p>
      <p>
        <button type="button" onClick={onAdd}>
          Add your first provider
        </button>
      </p>
      <h3>With the management API</h3>
      <p>
        Use the admin token (the part after <code>#token=</code> of the Dashboard URL, also in the <code>admin-token</code> file of the
        data directory):
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
        Start Switchyard with <code>--config switchyard.yaml</code>. Secrets may be written as <code>env:NAME</code> to read them from the
        environment:
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
        To try failover without any key, start with <code>npm start -- --demo</code>: two simulated providers and a combo.
      </p>
    </section>
  );
}
