// R23.4 on the Connect page: before it hands out a snippet, the contract doctor's matrix of the
// provider(s) the chosen model goes to, with a button to run it (the same check as the Providers page).
import { Badge } from "../../components/Badge.js";
import { useDoctorRun } from "../../stores/doctor.js";
import { useProviderLists } from "../../stores/providers.js";
import { combos } from "../../stores/resources.js";
import { DoctorButton, DoctorMatrix } from "../providers/DoctorMatrix.js";
import { providersOfModel } from "./modelProviders.js";

export function ProviderCheckPanel({ model }: { model: string }) {
  const { providers } = useProviderLists();
  const comboList = combos.use((s) => s.data) ?? [];
  const ids = providersOfModel(model, providers, comboList);
  return (
    <section className="card" aria-labelledby="connect-check">
      <h2 id="connect-check">Check the provider first</h2>
      {ids.length === 0 ? (
        <p className="muted">No provider serves this model yet: add one on the Providers page, then check it here.</p>
      ) : (
        <>
          <p className="muted">
            A few tiny requests show whether {ids.join(", ")} answers as its format says (JSON, streaming, tool calls, token usage, errors) before your tool depends on it.
          </p>
          {ids.map((id) => (
            <ProviderCheck key={id} providerId={id} />
          ))}
        </>
      )}
    </section>
  );
}

function ProviderCheck({ providerId }: { providerId: string }) {
  const run = useDoctorRun(providerId);
  const failed = run.report?.checks.filter((c) => !c.ok).length ?? 0;
  const status = run.error ? (
    <Badge tone="bad">could not check</Badge>
  ) : !run.report ? (
    <Badge tone="muted">not checked yet</Badge>
  ) : run.report.ok ? (
    <Badge tone="ok">all checks passed</Badge>
  ) : (
    <Badge tone="bad">{failed === 1 ? "1 check failed" : `${failed} checks failed`}</Badge>
  );
  return (
    <div>
      <div className="doctor-providers">
        <strong>{providerId}</strong>
        {status}
        <DoctorButton providerId={providerId} label={run.report || run.error ? "Check again" : "Check"} className="small" />
      </div>
      <DoctorMatrix providerId={providerId} />
    </div>
  );
}
