// Countdowns tick locally every second from the `remainingMs` the server computed, measured from
// when the data arrived, so a server clock that runs ahead (the test clock) cannot skew them.
// When one reaches zero the list is re-read: expiry is lazy on the server and sends no event.
import { useEffect } from "react";
import { useNow } from "./useNow.js";

export function remainingAt(remainingMs: number, loadedAt: number, now: number): number {
  return Math.max(0, remainingMs - Math.max(0, now - loadedAt));
}

/** Ticks each second while `active`, and calls `reload` once the soonest countdown has run out. */
export function useCountdowns(remainings: ReadonlyArray<number | null>, loadedAt: number, reload: () => Promise<void> | void): number {
  const live = remainings.filter((r): r is number => r !== null && r > 0);
  const now = useNow(live.length > 0 ? 1_000 : null);
  const soonest = live.length > 0 ? Math.min(...live) : null;
  useEffect(() => {
    if (soonest === null) return undefined;
    const due = Math.max(0, soonest - (Date.now() - loadedAt)) + 250;
    // A store's reload keeps its own failure in the store's `error`, so nothing is left to await.
    const timer = setTimeout(() => void reload(), due);
    return () => clearTimeout(timer);
  }, [soonest, loadedAt, reload]);
  return now;
}
