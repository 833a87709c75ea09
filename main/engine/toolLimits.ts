// Dynamic tool-limit detection (R11.7): an upstream that refused a request for carrying too many
// tools teaches the gateway its limit, per provider and model, so later requests above that count
// skip it (an exclusion, not a wasted attempt) while smaller ones still go there. In memory only:
// a limit is a guess from one refusal, so it expires and is learned again rather than persisted.
import type { Clock } from "./ports.js";

/** How long a learned limit holds before the provider is given another chance (RESILIENCE_GUIDE). */
export const TOOL_LIMIT_TTL_MS = 24 * 60 * 60 * 1000;

interface LearnedLimit {
  maxTools: number;
  expiresAt: number;
}

export interface ToolLimitEntry {
  provider: string;
  model: string;
  maxTools: number;
  expiresAt: number;
}

/**
 * The limit to remember after a refusal of `sent` tools: the number the upstream stated when its
 * error named one (and it is below what was sent), else one fewer than was sent.
 */
export function limitFromRefusal(sent: number, stated: number | null): number {
  if (stated !== null && stated >= 0 && stated < sent) return stated;
  return Math.max(0, sent - 1);
}

/** Hears each limit learned on this instance, as it now stands (R19.1: the group shares them). */
export type ToolLimitListener = (entry: ToolLimitEntry) => void;

export class ToolLimits {
  private readonly limits = new Map<string, LearnedLimit>();
  private listener: ToolLimitListener | null = null;

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number = TOOL_LIMIT_TTL_MS,
  ) {}

  /** Remembers a refusal; a lower limit than one already known wins, and the TTL restarts. */
  learn(provider: string, model: string, maxTools: number): void {
    const key = keyOf(provider, model);
    const current = this.active(key);
    const limit = current === null ? maxTools : Math.min(current.maxTools, maxTools);
    const expiresAt = this.clock.now() + this.ttlMs;
    this.limits.set(key, { maxTools: limit, expiresAt });
    this.listener?.({ provider, model, maxTools: limit, expiresAt });
  }

  /** R19.1: one listener of local learning. */
  onLocalChange(listener: ToolLimitListener): void {
    this.listener = listener;
  }

  /** A limit another instance learned: the lower limit wins and holds until the later expiry; not told to the listener. */
  applyShared(entry: ToolLimitEntry): void {
    const key = keyOf(entry.provider, entry.model);
    const current = this.active(key);
    if (current === null && entry.expiresAt <= this.clock.now()) return;
    this.limits.set(key, {
      maxTools: Math.min(current?.maxTools ?? Infinity, entry.maxTools),
      expiresAt: Math.max(current?.expiresAt ?? 0, entry.expiresAt),
    });
  }

  /** The learned limit still in force, or null when none was learned or it expired. */
  limitFor(provider: string, model: string): number | null {
    return this.active(keyOf(provider, model))?.maxTools ?? null;
  }

  /** Whether a request with `toolCount` tools may go to this provider and model. */
  allows(provider: string, model: string, toolCount: number): boolean {
    const limit = this.limitFor(provider, model);
    return limit === null || toolCount <= limit;
  }

  /** Every limit in force (for diagnostics). */
  entries(): ToolLimitEntry[] {
    const out: ToolLimitEntry[] = [];
    for (const key of [...this.limits.keys()]) {
      const entry = this.active(key);
      if (!entry) continue;
      const [provider, model] = key.split("\u0000");
      out.push({ provider, model, ...entry });
    }
    return out;
  }

  private active(key: string): LearnedLimit | null {
    const entry = this.limits.get(key);
    if (!entry) return null;
    if (entry.expiresAt <= this.clock.now()) {
      this.limits.delete(key);
      return null;
    }
    return entry;
  }
}

const keyOf = (provider: string, model: string): string => `${provider}\u0000${model}`;
