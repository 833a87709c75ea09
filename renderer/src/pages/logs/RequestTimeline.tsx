// One request opened into its timeline: what was skipped before dispatch and why, each attempt's
// connection, verdict, latency, bytes and the cooldown it left, and the final outcome.
import { useEffect, useState } from "react";
import type { RequestLogEntry } from "../../../../shared/types.js";
import { Badge } from "../../components/Badge.js";
import { errorText } from "../../stores/liveResource.js";
import { call } from "../../transport.js";
import { timelineOf } from "./timeline.js";

export function RequestTimeline({ id, name, onClose }: { id: string; name: (id: string | null) => string | null; onClose(): void }) {
  const [entry, setEntry] = useState<RequestLogEntry | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setEntry(null);
    call("getLog", { id }).then(setEntry, (err: unknown) => setError(errorText(err)));
  }, [id]);
  return (
    <section className="card timeline" aria-labelledby="timeline-title">
      <div className="card-header">
        <h2 id="timeline-title">Why this request went where it went</h2>
        <button type="button" className="secondary" onClick={onClose}>
          Close timeline
        </button>
      </div>
      <p className="muted">
        Request <code>{id}</code>
        {entry && ` · ${new Date(entry.time).toLocaleString()}`}
      </p>
      {error && (
        <p role="alert" className="error-banner">
          Could not load the request: {error}
        </p>
      )}
      {entry && (
        <ol className="timeline-steps" aria-label="Timeline">
          {timelineOf(entry, name).map((step, i) => (
            <li key={i} className={`step step-${step.kind}`}>
              <Badge tone={step.tone}>{step.kind}</Badge> {step.text}
            </li>
          ))}
        </ol>
      )}
      {entry?.promptText && (
        <>
          <h3>Prompt</h3>
          <p className="muted">Kept because prompt logging is on; erased when its retention ends.</p>
          <pre className="prompt-text">
            <code>{entry.promptText}</code>
          </pre>
        </>
      )}
    </section>
  );
}
