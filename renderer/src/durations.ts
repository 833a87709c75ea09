// The cooldown durations an operator picks from (R6.3): Default, 30 min, 1 h, 5 h, 24 h, or a
// custom number of minutes (1–43 200, i.e. up to 30 days). Pure, shared by the picker and tests.
const MINUTE = 60_000;
export const CUSTOM_MINUTES = { min: 1, max: 43_200 }; // R6.3
export const DURATION_PRESETS: ReadonlyArray<{ value: string; label: string; ms: number }> = [
  { value: "30m", label: "30 min", ms: 30 * MINUTE },
  { value: "1h", label: "1 h", ms: 60 * MINUTE },
  { value: "5h", label: "5 h", ms: 300 * MINUTE },
  { value: "24h", label: "24 h", ms: 1_440 * MINUTE },
];

export interface DurationDraft {
  /** "default", a preset value, or "custom". */
  choice: string;
  customMinutes: string;
}

export const DEFAULT_DURATION: DurationDraft = { choice: "default", customMinutes: "" };

/** The draft as cooldownMs: undefined for Default, or an error for a custom value out of range. */
export function durationMs(draft: DurationDraft): { ok: true; ms: number | undefined } | { ok: false; error: string } {
  if (draft.choice === "default") return { ok: true, ms: undefined };
  const preset = DURATION_PRESETS.find((p) => p.value === draft.choice);
  if (preset) return { ok: true, ms: preset.ms };
  const minutes = Number(draft.customMinutes.trim());
  if (draft.customMinutes.trim() === "" || !Number.isInteger(minutes) || minutes < CUSTOM_MINUTES.min || minutes > CUSTOM_MINUTES.max) {
    return { ok: false, error: `enter whole minutes from ${CUSTOM_MINUTES.min} to ${CUSTOM_MINUTES.max.toLocaleString("en-US")}` };
  }
  return { ok: true, ms: minutes * MINUTE };
}

export function describeDuration(ms: number | undefined): string {
  if (ms === undefined) return "Default";
  const preset = DURATION_PRESETS.find((p) => p.ms === ms);
  if (preset) return preset.label;
  return ms % MINUTE === 0 ? `${(ms / MINUTE).toLocaleString("en-US")} min` : `${ms.toLocaleString("en-US")} ms`;
}
