// Sessions & leases (R7, issue 9 item 8): the session pins that keep a client session on one
// connection, and the exclusive leases that reserve a connection for one client session. Read
// only, with an operator Unpin and Release; no owner token or hash is ever shown.
import { useEffect, useState } from "react";
import type { SessionLeaseItem, SessionPinItem } from "../../../../shared/apiTypes.js";
import { ActionMessage, type ActionOutcome } from "../../components/ActionMessage.js";
import { DataTable } from "../../components/DataTable.js";
import { errorText } from "../../stores/liveResource.js";
import { sessionLeases, sessionPins } from "../../stores/resources.js";
import { call } from "../../transport.js";

const TIME_FORMAT: Intl.DateTimeFormatOptions = { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" };
const time = (ms: number) => new Date(ms).toLocaleString([], TIME_FORMAT);
/** Hashed keys are 71 characters; the start identifies them, the whole key is in the tooltip. */
const shortKey = (key: string) => (key.length > 24 ? `${key.slice(0, 20)}…` : key);

export function SessionsPage() {
  useEffect(() => sessionPins.watch(), []);
  useEffect(() => sessionLeases.watch(), []);
  const pins = sessionPins.use();
  const leases = sessionLeases.use();
  const [message, setMessage] = useState<ActionOutcome | null>(null);

  async function act(what: string, run: () => Promise<boolean>, done: string, nothing: string) {
    try {
      setMessage({ ok: true, text: (await run()) ? done : nothing });
    } catch (err) {
      setMessage({ ok: false, text: `${what} failed: ${errorText(err)}` });
    } finally {
      void pins.reload();
      void leases.reload();
    }
  }

  const unpin = (pin: SessionPinItem) =>
    act(
      `Unpinning ${shortKey(pin.sessionKey)}`,
      async () => (await call("unpinSession", { key: pin.sessionKey })).removed,
      `Session ${shortKey(pin.sessionKey)} unpinned.`,
      `Session ${shortKey(pin.sessionKey)} was no longer pinned.`,
    );
  const release = (lease: SessionLeaseItem) => {
    const name = lease.connectionName ?? lease.connectionId;
    return act(
      `Releasing the lease on ${name}`,
      async () => (await call("releaseSessionLease", { connectionId: lease.connectionId })).released,
      `Lease on ${name} released.`,
      `${name} was no longer leased.`,
    );
  };

  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Sessions &amp; leases</h1>
          <p className="muted">
            Session pins keep a client session on the connection that served it (setting sessionAffinityTtlMs). Exclusive leases reserve a connection for one client session; other
            requests route around it.
          </p>
        </div>
        <button type="button" className="secondary" onClick={() => void Promise.all([pins.reload(), leases.reload()])}>
          Refresh
        </button>
      </header>
      <ActionMessage outcome={message} />
      {(pins.error || leases.error) && (
        <p role="alert" className="error-banner">
          Could not load sessions: {pins.error ?? leases.error}
        </p>
      )}
      <section className="card" aria-labelledby="pins-title">
        <h2 id="pins-title">Session pins</h2>
        {pins.data && pins.data.length === 0 && <p className="muted">No session is pinned.</p>}
        {pins.data && pins.data.length > 0 && (
          <DataTable caption="Pinned sessions, most recently used first" columns={["Session", "Provider", "Connection", "Last used", "Expires", "Action"]}>
            {pins.data.map((pin) => (
              <tr key={pin.sessionKey}>
                <th scope="row" title={pin.sessionKey}>
                  {shortKey(pin.sessionKey)}
                </th>
                <td>{pin.provider}</td>
                <td>{pin.connectionName ?? pin.connectionId}</td>
                <td className="nowrap">{time(pin.lastUsedAt)}</td>
                <td className="nowrap">{time(pin.expiresAt)}</td>
                <td className="actions">
                  {/* The visible word starts the accessible name; the key, often long, is already in the row. */}
                  <button type="button" className="small" aria-label={`Unpin ${shortKey(pin.sessionKey)}`} onClick={() => void unpin(pin)}>
                    Unpin
                  </button>
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </section>
      <section className="card" aria-labelledby="leases-title">
        <h2 id="leases-title">Exclusive leases</h2>
        {leases.data && leases.data.length === 0 && <p className="muted">No connection is leased.</p>}
        {leases.data && leases.data.length > 0 && (
          <DataTable
            caption="Active exclusive leases, soonest expiry first"
            columns={["Connection", "Provider", "Key", { label: "Generation", numeric: true }, "Expires", "Action"]}
          >
            {leases.data.map((lease) => (
              <tr key={lease.connectionId}>
                <th scope="row">{lease.connectionName ?? lease.connectionId}</th>
                <td>{lease.provider ?? "—"}</td>
                <td>{lease.keyName ?? "—"}</td>
                <td className="num">{lease.generation}</td>
                <td className="nowrap">{time(lease.expiresAt)}</td>
                <td className="actions">
                  <button type="button" className="small" aria-label={`Release lease on ${lease.connectionName ?? lease.connectionId}`} onClick={() => void release(lease)}>
                    Release
                  </button>
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </section>
    </div>
  );
}
