// Spaces out reloads caused by a burst of events: the first request runs at once, later ones
// inside the interval collapse into one run at its end. Trailing rather than dropped, so the view
// is never left older than the last event.

export interface Throttle {
  /** Runs now if the last run is at least the interval ago, else once when the interval ends. */
  request(): void;
  /** Records a run made for another reason (first load, stream reopen), which the interval counts from. */
  ran(): void;
  /** Drops a pending run. */
  cancel(): void;
}

export function createThrottle(run: () => void, minIntervalMs: number, now: () => number = Date.now): Throttle {
  let last = Number.NEGATIVE_INFINITY;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const fire = () => {
    last = now();
    run();
  };
  return {
    request() {
      if (timer) return;
      const wait = last + minIntervalMs - now();
      if (wait <= 0) return fire();
      timer = setTimeout(() => {
        timer = null;
        fire();
      }, wait);
    },
    ran() {
      last = now();
    },
    cancel() {
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
