// R25.1, R25.2: what each provider model's context window is known to be. The operator's modelInfo
// and the shipped catalogue say what a window should be; a context refusal teaches what it is
// (the number the refusal stated, else just below the prompt that did not fit), and a success
// proves that a prompt of its size fits. A learned window only ever lowers what the others say,
// and never below the largest input a success proved. Pure: the caller keeps the rows (SQLite) and
// hands back what it loaded.

/** What is kept of one provider model: the window a refusal taught, and the largest input served. */
export interface ModelWindowRow {
  provider: string;
  model: string;
  /** The window context refusals taught (the smallest), or null when none refused. */
  learnedWindow: number | null;
  /** The largest input (tokens) a success of this model carried; 0 before any. */
  provenInput: number;
  /** Epoch ms of the last change. */
  updatedAt: number;
}

/** Hears every change (the store writes it behind). */
export type ModelWindowListener = (row: ModelWindowRow) => void;

/** The numbers a context refusal stated: the prompt's tokens and the window, each null when unstated. */
export interface ContextFacts {
  tokens: number | null;
  window: number | null;
}

/**
 * The window one refusal teaches: the one it stated; else just below the prompt's size (the tokens
 * it stated, else the request's own estimate), since a prompt of that size did not fit.
 */
export function windowFromRefusal(facts: ContextFacts, estimate: number): number {
  if (facts.window !== null && facts.window > 0) return facts.window;
  return Math.max(1, (facts.tokens ?? estimate) - 1);
}

/** The smaller of two known windows; null only when neither is known. */
function smaller(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.min(a, b);
}

export class ContextWindows {
  private readonly rows = new Map<string, Map<string, ModelWindowRow>>();
  private listener: ModelWindowListener | null = null;

  constructor(loaded: readonly ModelWindowRow[] = []) {
    for (const row of loaded) this.put({ ...row });
  }

  /** One listener of changes (the store). */
  onChange(listener: ModelWindowListener): void {
    this.listener = listener;
  }

  /**
   * The window in force: the smaller of the stated one (modelInfo, else catalogue) and the learned
   * one, never below what a success proved; null when nothing says anything.
   */
  windowOf(provider: string, model: string, stated: number | null): number | null {
    const row = this.rows.get(provider)?.get(model);
    if (!row) return stated;
    const known = smaller(stated, row.learnedWindow);
    return known === null ? null : Math.max(known, row.provenInput);
  }

  /** The window refusals taught this model (the smallest), or null. */
  learnedOf(provider: string, model: string): number | null {
    return this.rows.get(provider)?.get(model)?.learnedWindow ?? null;
  }

  /** R25.2: a refusal taught this window; the smaller learned one wins, floored by what a success proved. Returns the learned window. */
  learn(provider: string, model: string, window: number, now: number): number {
    const row = this.rowOf(provider, model, now);
    const learned = Math.max(row.provenInput, Math.min(row.learnedWindow ?? window, window));
    if (learned !== row.learnedWindow) {
      row.learnedWindow = learned;
      row.updatedAt = now;
      this.listener?.(row);
    }
    return learned;
  }

  /** A success carried `inputTokens`: a learned window below it grows to it. Cheap when nothing grows. */
  served(provider: string, model: string, inputTokens: number, now: number): void {
    const existing = this.rows.get(provider)?.get(model);
    if (existing && existing.provenInput >= inputTokens) return;
    const row = existing ?? this.rowOf(provider, model, now);
    row.provenInput = inputTokens;
    if (row.learnedWindow !== null && row.learnedWindow < inputTokens) row.learnedWindow = inputTokens;
    row.updatedAt = now;
    this.listener?.(row);
  }

  /** Every row (diagnostics, tests). */
  entries(): ModelWindowRow[] {
    const out: ModelWindowRow[] = [];
    for (const models of this.rows.values()) for (const row of models.values()) out.push({ ...row });
    return out;
  }

  private rowOf(provider: string, model: string, now: number): ModelWindowRow {
    const found = this.rows.get(provider)?.get(model);
    if (found) return found;
    const row: ModelWindowRow = { provider, model, learnedWindow: null, provenInput: 0, updatedAt: now };
    this.put(row);
    return row;
  }

  private put(row: ModelWindowRow): void {
    let models = this.rows.get(row.provider);
    if (!models) {
      models = new Map();
      this.rows.set(row.provider, models);
    }
    models.set(row.model, row);
  }
}
