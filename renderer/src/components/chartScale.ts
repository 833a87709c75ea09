// Axis marks people can read (R18.6): round steps on the value axis ($0.01, 2.5k) and time marks
// on whole hours or days rather than wherever the range happens to start. Pure, unit-tested.

const STEPS = [1, 2, 2.5, 5, 10];

/** 0 up to at least `max` in four or five round steps; integers only when asked (counts). */
export function niceTicks(max: number, integers = false): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / 4;
  const power = 10 ** Math.floor(Math.log10(raw));
  let step = STEPS.find((m) => m * power >= raw)! * power;
  if (integers) step = Math.max(1, Math.ceil(step));
  const count = Math.ceil(max / step - 1e-9);
  return Array.from({ length: count + 1 }, (_, i) => Number((i * step).toPrecision(12)));
}

const HOUR_STRIDES = [1, 2, 3, 6, 12, 24];
const DAY_STRIDES = [1, 2, 5, 7, 10, 15];

/**
 * At most `most` of the bucket starts to label: hours on a multiple of a round stride (local
 * time), days every round number of days counted back from the last.
 */
export function timeTicks(starts: readonly number[], bucket: "hour" | "day", most = 7): number[] {
  if (starts.length <= most) return [...starts];
  if (bucket === "day") {
    const stride = DAY_STRIDES.find((s) => Math.ceil(starts.length / s) <= most) ?? Math.ceil(starts.length / most);
    return starts.filter((_, i) => (starts.length - 1 - i) % stride === 0);
  }
  for (const stride of HOUR_STRIDES) {
    const marks = starts.filter((t) => new Date(t).getHours() % stride === 0);
    if (marks.length <= most) return marks;
  }
  const days = starts.filter((t) => new Date(t).getHours() === 0);
  const every = Math.ceil(days.length / most);
  return days.filter((_, i) => (days.length - 1 - i) % every === 0);
}
