// Prompt caching, simulated per API key as the vendors do it: a request whose prompt starts with a
// prompt the same key sent before reads that prefix from the cache; Anthropic writes to the cache
// only where the request marks `cache_control`. Below the vendors' minimum (1 024 tokens) nothing
// is cached. The counts are what each format then reports (cached tokens, cache writes), so the
// gateway's usage normalisation and cost (R18.1) are tested against real-shaped numbers.
import type { WireFormat } from "./types.js";
import { isRecord } from "./records.js";

const MIN_CACHED_TOKENS = 1_024;
/** Prompts remembered per key: enough for a few sessions' latest turns. */
const PROMPTS_PER_KEY = 32;

export interface CacheUse {
  cacheRead: number;
  cacheWrite: number;
}

const NO_CACHE: CacheUse = { cacheRead: 0, cacheWrite: 0 };

/** Anthropic's cache breakpoints mark where to cache, not what: a client moves them to the newest turn each time (Claude Code does). */
const withoutBreakpoints = (key: string, value: unknown): unknown => (key === "cache_control" ? undefined : value);

/** The prompt as a sequence of blocks (system, tools, each turn), so an earlier turn's prompt is a text prefix of the next one's. */
function promptBlocks(format: WireFormat, body: Record<string, unknown>): string {
  const turns = format === "gemini" ? body.contents : format === "openai-responses" ? body.input : body.messages;
  const head = format === "gemini" ? body.systemInstruction : format === "openai-responses" ? body.instructions : body.system;
  const block = (value: unknown) => JSON.stringify(value ?? null, withoutBreakpoints);
  const blocks = [block(head), block(body.tools)];
  if (Array.isArray(turns)) for (const t of turns) blocks.push(block(t));
  else blocks.push(block(turns));
  return blocks.join("\n") + "\n";
}

export class PromptCaches {
  private readonly byKey = new Map<string, string[]>();

  /** How many of `inputTokens` this request reads from, and writes to, the key's cache. */
  observe(key: string | null, format: WireFormat, body: unknown, inputTokens: number): CacheUse {
    if (!isRecord(body) || inputTokens < MIN_CACHED_TOKENS) return NO_CACHE;
    const text = promptBlocks(format, body);
    const seen = this.byKey.get(key ?? "") ?? [];
    let longest = 0;
    for (const earlier of seen) if (earlier.length > longest && earlier.length <= text.length && text.startsWith(earlier)) longest = earlier.length;
    const cached = Math.floor((inputTokens * longest) / text.length);
    const cacheRead = cached >= MIN_CACHED_TOKENS ? cached : 0;
    const marked = format === "anthropic" && JSON.stringify(body).includes('"cache_control"');
    // Anthropic only caches what the request marks; the others cache every long prompt by themselves.
    if (marked || format !== "anthropic") {
      seen.push(text);
      if (seen.length > PROMPTS_PER_KEY) seen.shift();
      this.byKey.set(key ?? "", seen);
    }
    return { cacheRead: format === "anthropic" && !marked ? 0 : cacheRead, cacheWrite: marked ? inputTokens - cacheRead : 0 };
  }
}
