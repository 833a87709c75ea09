// The contract doctor (R23.4): the last check of each provider, shared by the Providers page, where
// it is run, and the Connect page, which shows it before it hands out a snippet. A check is kept
// until the provider is checked again or its definition changes (a saved edit forgets it).
import { create } from "zustand";
import type { ProviderDoctorReport } from "../../../shared/apiTypes.js";
import { call } from "../transport.js";
import { errorText } from "./liveResource.js";

export interface DoctorRun {
  running: boolean;
  report: ProviderDoctorReport | null;
  /** Why the check could not run at all (no active connection, unknown provider, transport). */
  error: string | null;
}

const NOT_RUN: DoctorRun = { running: false, report: null, error: null };

interface DoctorState {
  runs: Record<string, DoctorRun>;
  check(providerId: string): Promise<void>;
  forget(providerId: string): void;
}

export const useDoctor = create<DoctorState>()((set) => {
  const put = (id: string, run: Partial<DoctorRun>) => set((s) => ({ runs: { ...s.runs, [id]: { ...(s.runs[id] ?? NOT_RUN), ...run } } }));
  return {
    runs: {},
    async check(id) {
      put(id, { running: true });
      try {
        put(id, { running: false, report: await call("doctorProvider", { id }), error: null });
      } catch (err) {
        put(id, { running: false, report: null, error: errorText(err) });
      }
    },
    forget(id) {
      set((s) => {
        const { [id]: _gone, ...runs } = s.runs;
        return { runs };
      });
    },
  };
});

/** The provider's last check (not run yet: no report, no error). */
export function useDoctorRun(providerId: string): DoctorRun {
  return useDoctor((s) => s.runs[providerId]) ?? NOT_RUN;
}
