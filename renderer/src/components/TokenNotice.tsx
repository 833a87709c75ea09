// Shown in a browser when there is no usable admin token: the only way in is the Dashboard URL
// that `switchyard serve` prints, which carries the token in its fragment.
export function TokenNotice({ reason }: { reason: "missing-token" | "unauthorized" }) {
  return (
    <main className="notice" aria-labelledby="notice-title">
      <h1 id="notice-title">{reason === "missing-token" ? "Open the Dashboard URL to sign in" : "This dashboard link is no longer valid"}</h1>
      {reason === "unauthorized" ? (
        <p>The server did not accept the admin token of this tab. It may have been restarted with a new token.</p>
      ) : (
        <p>This page needs the Switchyard admin token, and none was given.</p>
      )}
      <p>
        Open the <strong>Dashboard</strong> URL printed by <code>switchyard serve</code> (or <code>npm start</code>) in the terminal. It looks like:
      </p>
      <pre>
        <code>Dashboard: http://127.0.0.1:8642/#token=…</code>
      </pre>
      <p className="muted">
        The token stays in this browser tab only. It is also stored in the <code>admin-token</code> file of the Switchyard data directory.
      </p>
    </main>
  );
}
