// Health (R2.6, R14.2): every provider's circuit breaker with a live retry countdown and a reset,
// each connection's request queue (R9, live from `queues` events), and per-provider charts of
// requests, errors and latency over the last hour, aggregated by the backend over the whole
// request log and reloaded (throttled) on `request` events.
import { useEffect, useMemo, useState } from "react";
import type { BreakerState } from "../../../../shared/types.js";
import { ActionMessage, type ActionOutcome } from "../../components/ActionMessage.js";
import { Badge } from "../../components/Badge.js";
import { DataTable } from "../../components/DataTable.js";
import { remainingAt, useCountdowns } from "../../countdown.js";
import { formatRemaining, type StatusTone } from "../../format.js";
import { errorText } from "../../stores/liveResource.js";
import { health, requestStats } from "../../stores/resources.js";
import { call } from "../../transport.js";
import { useNow } from "../../useNow.js";
import { LineChart, SERIES_COLORS } from "./LineChart.js";
import { QueuesSection } from "./QueuesSection.js";
import { seriesFromStats } from "./metrics.js";

const TONES: Record<BreakerState, StatusTone> = { CLOSED: "ok", DEGRADED: "warn", HALF_OPEN: "warn", OPEN: "bad" };
const LABELS: Record<BreakerState, string> = { CLOSED: "Closed", DEGRADED: "Degraded", HALF_OPEN: "Half-open", OPEN: "Open" };

export function HealthPage() {
  useEffect(() => health.watch(), []);
  useEffect(() => requestStats.watch(), []);
  const { data, error, loadedAt, reload } = health.use();
  const stats = requestStats.use();
  const breakers = data?.providerBreakers ?? [];
  const pauses = (data?.queues ?? []).map((q) => (q.pausedMs > 0 ? q.pausedMs : null));
  const now = useCountdowns([...breakers.map((b) => (b.state === "OPEN" ? b.retryAfterMs : null)), ...pauses], loadedAt, reload);
  // The charts move on with time even when no request arrives (and so nothing is reloaded).
  const minute = useNow(60_000);
  const series = useMemo(() => (stats.data ? seriesFromStats(stats.data, minute - stats.loadedAt) : []), [stats.data, stats.loadedAt, minute]);
  const [message, setMessage] = useState<ActionOutcome | null>(null);

  async function reset(provider?: string) {
    try {
      const result = await call("resetBreakers", provider ? { provider } : {});
      setMessage({ ok: true, text: provider ? `Breaker of ${provider} reset.` : `${result.resetCount} breaker${result.resetCount === 1 ? "" : "s"} reset.` });
    } catch (err) {
      setMessage({ ok: false, text: `Reset failed: ${errorText(err)}` });
    }
    void reload();
  }

  const counts = data?.circuitBreakers;
  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Health</h1>
          <p className="muted">Circuit breakers stop traffic to a provider whose servers keep failing, and probe it again after a pause.</p>
        </div>
        <button type="button" className="secondary" disabled={breakers.length === 0} onClick={() => void reset()}>
          Reset all breakers
        </button>
      </header>
      <ActionMessage outcome={message} />
      {error && (
        <p role="alert" className="error-banner">
          Could not load health: {error}
        </p>
      )}
      {stats.error && (
        <p role="alert" className="error-banner">
          Could not load the request charts: {stats.error}
        </p>
      )}
      {counts && (
        <p>
          <Badge tone={counts.open > 0 ? "bad" : "muted"}>{counts.open} open</Badge> <Badge tone={counts.halfOpen > 0 ? "warn" : "muted"}>{counts.halfOpen} half-open</Badge>{" "}
          <Badge tone={counts.degraded > 0 ? "warn" : "muted"}>{counts.degraded} degraded</Badge> <Badge tone="ok">{counts.closed} closed</Badge>{" "}
          <a href="#/model-cooldowns">
            {data.lockouts} model lockout{data.lockouts === 1 ? "" : "s"}
          </a>
        </p>
      )}
      <section className="card" aria-labelledby="breakers-title">
        <h2 id="breakers-title">Provider breakers</h2>
        {data && breakers.length === 0 ? (
          <p className="muted">
            No providers yet. Add one on the <a href="#/providers">Providers</a> page; its breaker appears here.
          </p>
        ) : (
          <DataTable caption="Circuit breaker of each provider" columns={["Provider", "State", { label: "Failures", numeric: true }, "Probe in", "Last failure", "Action"]}>
            {breakers.map((b) => (
              <tr key={b.provider}>
                <th scope="row">{b.provider}</th>
                <td>
                  <Badge tone={TONES[b.state] ?? "muted"}>{LABELS[b.state] ?? b.state}</Badge>
                </td>
                <td className="num">{b.failureCount}</td>
                <td className="nowrap">{b.state === "OPEN" ? formatRemaining(remainingAt(b.retryAfterMs, loadedAt, now)) : <span className="muted">—</span>}</td>
                <td>{b.lastFailureKind ?? <span className="muted">—</span>}</td>
                <td className="actions">
                  <button type="button" className="secondary small" disabled={b.state === "CLOSED" && b.failureCount === 0} onClick={() => void reset(b.provider)}>
                    Reset {b.provider}
                  </button>
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </section>
      <QueuesSection data={data} loadedAt={loadedAt} now={now} />
      <section aria-labelledby="charts-title">
        <h2 id="charts-title">Last hour, per provider</h2>
        {series.length === 0 ? (
          <p className="muted">No requests in the last hour. Charts of requests, errors and latency appear as soon as clients send traffic.</p>
        ) : (
          <>
            <ul className="legend" aria-label="Providers in the charts">
              {series.map((s, i) => (
                <li key={s.provider}>
                  <span className="swatch" style={{ background: SERIES_COLORS[i % SERIES_COLORS.length] }} aria-hidden="true" />
                  {s.provider}
                </li>
              ))}
            </ul>
            <div className="chart-grid">
              <LineChart
                title="Requests per 5 min"
                unit=""
                lines={series.map((s) => ({ name: s.provider, values: s.requests }))}
                summary={series.map((s) => `${s.provider} ${sum(s.requests)} requests`).join(", ")}
              />
              <LineChart
                title="Errors per 5 min"
                unit=""
                lines={series.map((s) => ({ name: s.provider, values: s.errors }))}
                summary={series.map((s) => `${s.provider} ${sum(s.errors)} errors`).join(", ")}
              />
              <LineChart
                title="Mean latency"
                unit=" ms"
                lines={series.map((s) => ({ name: s.provider, values: s.latency }))}
                summary={series.map((s) => `${s.provider} ${meanOf(s.latency)}`).join(", ")}
              />
            </div>
          </>
        )}
      </section>
    </div>
  );
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

function meanOf(values: Array<number | null>): string {
  const present = values.filter((v): v is number => v !== null);
  return present.length === 0 ? "no data" : `${Math.round(sum(present) / present.length)} ms mean`;
}
