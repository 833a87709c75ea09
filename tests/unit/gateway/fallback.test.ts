// R11.6 with R10.2: how OMNIROUTE_EMERGENCY_FALLBACK seeds the emergency fallback and when a saved value wins.
import { describe, expect, it } from "vitest";
import { effectiveEmergencyFallback, emergencyFallbackFromEnv } from "../../../main/gateway/pipeline/fallback.js";

describe("emergency fallback setting", () => {
  it("R11.6 the env value is a switch word or the fallback model itself", () => {
    expect(emergencyFallbackFromEnv(undefined)).toEqual({});
    expect(emergencyFallbackFromEnv("  ")).toEqual({});
    for (const on of ["1", "true", "ON", "yes"]) expect(emergencyFallbackFromEnv(on)).toEqual({ enabled: true });
    for (const off of ["0", "false", "Off", "no"]) expect(emergencyFallbackFromEnv(off)).toEqual({ enabled: false });
    expect(emergencyFallbackFromEnv(" openai/gpt-4o-mini ")).toEqual({ enabled: true, model: "openai/gpt-4o-mini" });
  });

  it("R10.2 the env seeds the setting while the stored document has none; a saved one wins, even when it is off", () => {
    const env = { OMNIROUTE_EMERGENCY_FALLBACK: "spare/m1" };
    expect(effectiveEmergencyFallback(null, env)).toEqual({ enabled: true, model: "spare/m1" });
    expect(effectiveEmergencyFallback({ maxBodyMb: 40 }, env)).toEqual({ enabled: true, model: "spare/m1" });
    expect(effectiveEmergencyFallback({ emergencyFallback: { enabled: false, model: "spare/m1" } }, env)).toEqual({ enabled: false, model: "spare/m1" });
    expect(effectiveEmergencyFallback({ emergencyFallback: { enabled: true, model: "other/m2" } }, env)).toEqual({ enabled: true, model: "other/m2" });
    expect(effectiveEmergencyFallback({}, {})).toEqual({ enabled: false, model: null });
  });
});
