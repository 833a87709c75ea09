// The contract doctor's matrix (R23.4): one row per check of a provider, ok or failed, how long it
// took, and for a failure the sentence that says what to fix. Shown on the Providers page and on
// the Connect page.
import type { DoctorCheckName } from "../../../../shared/apiTypes.js";
import { Badge } from "../../components/Badge.js";
import { DataTable } from "../../components/DataTable.js";
import { useDoctor, useDoctorRun } from "../../stores/doctor.js";

const CHECK_LABELS: Record<DoctorCheckName, string> = {
  json: "JSON answer",
  stream: "Streaming",
  tools: "Tool calls",
  usage: "Token usage",
  errors: "Error shape",
};

/** The "Check" button of a provider; `label` is its visible text. */
export function DoctorButton({ providerId, label = "Check", className = "secondary small" }: { providerId: string; label?: string; className?: string }) {
  const run = useDoctorRun(providerId);
  const check = useDoctor((s) => s.check);
  return (
    <button type="button" className={className} aria-label={`Check provider ${providerId}`} disabled={run.running} onClick={() => void check(providerId)}>
      {run.running ? "Checking…" : label}
    </button>
  );
}

/** The last check of a provider, or nothing before it has been checked. */
export function DoctorMatrix({ providerId }: { providerId: string }) {
  const { report, error, running } = useDoctorRun(providerId);
  if (running && !report) return <p aria-live="polite">Checking {providerId}: a few tiny requests…</p>;
  if (error) {
    return (
      <p role="alert" className="error-banner">
        Could not check {providerId}: {error}
      </p>
    );
  }
  if (!report) return null;
  const failed = report.checks.filter((c) => !c.ok).length;
  const summary = report.ok ? `All ${report.checks.length} checks of ${providerId} passed` : `${failed} of ${report.checks.length} checks of ${providerId} failed`;
  return (
    <div className="doctor">
      <p role="status" className={report.ok ? "notice-ok" : "error-banner"}>
        {summary} (connection {report.connectionId}, model {report.model}).
      </p>
      <DataTable caption={`Contract checks of ${providerId}`} columns={["Check", "Result", { label: "Time", numeric: true }, "What it means"]}>
        {report.checks.map((check) => (
          <tr key={check.name} data-check={check.name}>
            <th scope="row" className="nowrap">
              {CHECK_LABELS[check.name]} <span className="muted">({check.name})</span>
            </th>
            <td>
              <Badge tone={check.ok ? "ok" : "bad"}>{check.ok ? "ok" : "failed"}</Badge>
            </td>
            <td className="num nowrap">{check.ms} ms</td>
            <td className="doctor-detail">{check.detail ?? <span className="muted">—</span>}</td>
          </tr>
        ))}
      </DataTable>
    </div>
  );
}
