// Admission state on the Health page (R8, R9, issue 10): per connection the requests in flight,
// the requests waiting in the local queue and a learned pause, updated live from `queues` events,
// and where the limits are kept (this process, or shared with other Switchyards through Redis).
// A configured global or provider gate (R8.1) has a row of its own above the connections it holds.
import type { MonitoringHealth, QueueRow, SharedLimitsState } from "../../../../shared/apiTypes.js";
import { Badge } from "../../components/Badge.js";
import { DataTable } from "../../components/DataTable.js";
import { remainingAt } from "../../countdown.js";
import { formatRemaining } from "../../format.js";

function SharedLimitsLine({ state }: { state: SharedLimitsState }) {
  if (state.mode === "local") return <p className="muted">Limits are kept in this Switchyard (no Redis configured).</p>;
  if (state.status === "ready") {
    return (
      <p>
        <Badge tone="ok">Shared through Redis</Badge> Concurrency caps are shared with every Switchyard using the same Redis.
      </p>
    );
  }
  return (
    <p role="status">
      <Badge tone="warn">{state.status === "connecting" ? "Connecting to Redis" : "Redis unreachable"}</Badge> Requests keep flowing under this Switchyard&apos;s local limits.
    </p>
  );
}

/** A global or provider gate: what is in flight and waiting on it, against its cap. */
function GateLine({ row }: { row: QueueRow }) {
  return (
    <tr>
      <th scope="row">{row.scope === "global" ? "Global gate" : "Provider gate"}</th>
      <td>{row.provider ?? <span className="muted">all providers</span>}</td>
      <td className="num">{row.inFlight}</td>
      <td className="num">{row.queued}</td>
      <td className="num">{row.maxConcurrent}</td>
      <td className="nowrap">
        <span className="muted">—</span>
      </td>
      <td>
        <span className="muted">—</span>
      </td>
    </tr>
  );
}

function QueueLine({ row, loadedAt, now }: { row: QueueRow; loadedAt: number; now: number }) {
  if (row.scope !== "connection") return <GateLine row={row} />;
  const paused = remainingAt(row.pausedMs, loadedAt, now);
  return (
    <tr>
      <th scope="row">{row.connectionId}</th>
      <td>{row.provider}</td>
      <td className="num">{row.inFlight}</td>
      <td className="num">{row.queued}</td>
      <td className="num">{row.maxConcurrent ?? <span className="muted">none</span>}</td>
      <td className="nowrap">{paused > 0 ? <Badge tone="warn">{`paused ${formatRemaining(paused)}`}</Badge> : <span className="muted">—</span>}</td>
      <td>{row.protected ? "queue-protected" : <span className="muted">not protected</span>}</td>
    </tr>
  );
}

export function QueuesSection({ data, loadedAt, now }: { data: MonitoringHealth | null; loadedAt: number; now: number }) {
  const rows = data?.queues ?? [];
  return (
    <section className="card" aria-labelledby="queues-title">
      <h2 id="queues-title">Request queues</h2>
      {data && <SharedLimitsLine state={data.sharedLimits} />}
      {rows.length === 0 ? (
        <p className="muted">No connection has carried a request yet. Each one appears here with its requests in flight and waiting.</p>
      ) : (
        <DataTable
          caption="Requests in flight and waiting per connection"
          columns={[
            "Connection",
            "Provider",
            { label: "In flight", numeric: true },
            { label: "Queued", numeric: true },
            { label: "Max concurrent", numeric: true },
            "Pacing",
            "Protection",
          ]}
        >
          {rows.map((row) => (
            <QueueLine key={`${row.scope}:${row.provider ?? ""}:${row.connectionId ?? ""}`} row={row} loadedAt={loadedAt} now={now} />
          ))}
        </DataTable>
      )}
    </section>
  );
}
