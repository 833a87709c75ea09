// A filled bar for "how much of a limit is used" (quota windows, budgets: R18.3, R18.4). It is a
// real ARIA meter: its value and its words are what a screen reader (and a test) reads.
import type { StatusTone } from "../format.js";

export function meterTone(percent: number): StatusTone {
  return percent >= 100 ? "bad" : percent >= 80 ? "warn" : "ok";
}

export function Meter({ label, percent, text }: { label: string; percent: number; text: string }) {
  const value = Math.min(100, Math.max(0, Math.round(percent * 10) / 10));
  return (
    <div className={`meter meter-${meterTone(percent)}`} role="meter" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={value} aria-valuetext={text}>
      <span className="meter-fill" style={{ width: `${value}%` }} />
    </div>
  );
}
