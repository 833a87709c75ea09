// Providers and connections are read on every request and written rarely (config edits, failure
// verdicts). Every write in this process bumps one shared epoch; a read after a bump reloads from
// SQLite once. Transactions bump when they end, so a rolled-back write is never served from memory.

export interface WriteEpoch {
  readonly value: number;
  bump(): void;
}

export function createWriteEpoch(): WriteEpoch {
  let value = 0;
  return {
    get value() {
      return value;
    },
    bump() {
      value++;
    },
  };
}

/** Memoises `load()` until the epoch moves. Callers treat the result as read-only. */
export function cachedRead<T>(epoch: WriteEpoch, load: () => T): () => T {
  let seen = -1;
  let data: T;
  return () => {
    if (seen !== epoch.value) {
      data = load();
      seen = epoch.value;
    }
    return data;
  };
}
