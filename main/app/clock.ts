// The engine's clock. Real time plus an offset that only `--test-clock` may move, so black-box
// tests can jump over cooldowns while real waits (queues, combo waits) still expire.
import type { AdjustableClock } from "../api/resilienceHandlers.js";

export type { AdjustableClock };

export function createClock(adjustable: boolean): AdjustableClock {
  let offset = 0;
  return {
    adjustable,
    now: () => Date.now() + offset,
    advance(ms: number) {
      if (!adjustable) throw new Error("the clock can only be moved when started with --test-clock");
      offset += ms;
      return Date.now() + offset;
    },
  };
}
