// The combo card's "which target served the last requests": one bar per target over the combo's
// newest requests, loaded once from the request log and then kept current by live `request`
// events (R15.2: no polling).
import { useEffect, useState } from "react";
import type { RequestLogEntry } from "../../../../shared/types.js";
import { errorText } from "../../stores/liveResource.js";
import { onLiveEvent } from "../../stores/liveEvents.js";
import { call } from "../../transport.js";
import { tallyServed, TRAFFIC_WINDOW, withNewEntry } from "./traffic.js";

export function ComboTraffic({ combo }: { combo: string }) {
  const [entries, setEntries] = useState<RequestLogEntry[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    call("listLogs", { combo, limit: TRAFFIC_WINDOW }).then(
      (list) => live && setEntries((current) => mergeNewest(list, current, combo)),
      (err: unknown) => live && setError(errorText(err)),
    );
    const off = onLiveEvent((event) => {
      if (event.type === "request") setEntries((current) => withNewEntry(current ?? [], event.entry, combo));
    });
    return () => {
      live = false;
      off();
    };
  }, [combo]);

  const headingId = `traffic-${combo}`;
  if (error) return <p className="muted">Recent traffic unavailable: {error}</p>;
  if (!entries) return null;
  const { served, failed, total } = tallyServed(entries);
  return (
    <section className="combo-traffic" aria-labelledby={headingId}>
      <h3 id={headingId}>{total === 0 ? "No requests yet" : `Last ${total} request${total === 1 ? "" : "s"}: who served them`}</h3>
      {total > 0 && (
        <ul aria-label={`Targets that served ${combo}`}>
          {served.map(({ target, count }) => (
            <TallyRow key={target} label={target} count={count} total={total} />
          ))}
          {failed > 0 && <TallyRow label="failed (no target answered)" count={failed} total={total} failed />}
        </ul>
      )}
    </section>
  );
}

function TallyRow({ label, count, total, failed = false }: { label: string; count: number; total: number; failed?: boolean }) {
  const percent = Math.round((count / total) * 100);
  return (
    <li className={failed ? "traffic-row failed" : "traffic-row"}>
      {failed ? <span className="traffic-label">{label}</span> : <code className="traffic-label">{label}</code>}
      <span className="traffic-bar" aria-hidden="true">
        <span style={{ width: `${percent}%` }} />
      </span>
      <span className="traffic-count">
        {count} <span className="muted">({percent} %)</span>
      </span>
    </li>
  );
}

/** Entries that arrived live while the first load was in flight stay; the list stays newest first. */
function mergeNewest(loaded: RequestLogEntry[], live: RequestLogEntry[] | null, combo: string): RequestLogEntry[] {
  return (live ?? []).reduceRight((list, entry) => withNewEntry(list, entry, combo), loaded);
}
