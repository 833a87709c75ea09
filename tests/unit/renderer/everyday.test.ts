// Pure rules behind issue 14's pages: the snippets each client needs, the request timeline told in
// words, the live "last request per client" list, the log filters and the import format guess.
import { describe, expect, it } from "vitest";
import type { RequestLogEntry } from "../../../shared/types.js";
import { formatOf } from "../../../renderer/src/pages/config/importFormat.js";
import { withEntry } from "../../../renderer/src/pages/connect/clientActivity.js";
import { buildSnippets } from "../../../renderer/src/pages/connect/snippets.js";
import { timelineOf } from "../../../renderer/src/pages/logs/timeline.js";
import { logQuery, matchesFilters, NO_FILTERS } from "../../../renderer/src/stores/requestLog.js";

function entry(over: Partial<RequestLogEntry>): RequestLogEntry {
  return {
    id: "r",
    time: 1_000,
    clientFormat: "openai",
    model: "demo",
    combo: "demo",
    provider: "sim-a",
    connectionId: "a-2",
    status: 200,
    errorCode: null,
    latencyMs: 208,
    ttfbMs: 207,
    stream: false,
    inputTokens: null,
    outputTokens: null,
    attempts: [],
    ...over,
  };
}

const names = (id: string | null) => ({ "a-1": "key 1", "a-2": "key 2" })[id ?? ""] ?? null;

describe("connect snippets", () => {
  const base = { url: "http://127.0.0.1:9000", model: "coding", smallModel: "fast", key: null };

  it("issue14 Claude Code gets its base URL, a key and both model variables; aider the openai/ naming", () => {
    const [claude, aider] = buildSnippets(base);
    expect(claude.text.split("\n")).toEqual([
      "export ANTHROPIC_BASE_URL=http://127.0.0.1:9000",
      "export CLAUDE_CODE_GATEWAY_HINT_HEADERS=1",
      "export ANTHROPIC_API_KEY=switchyard",
      "export ANTHROPIC_MODEL=coding",
      "export ANTHROPIC_SMALL_FAST_MODEL=fast",
      "claude --model coding",
    ]);
    expect(aider.text).toBe("export OPENAI_API_BASE=http://127.0.0.1:9000/v1\nexport OPENAI_API_KEY=switchyard\naider --model openai/coding");
  });

  it("issue14 OpenAI clients get /v1, Anthropic clients the origin, and a minted key replaces the placeholder everywhere", () => {
    const all = buildSnippets({ ...base, key: "sk-sy-minted" });
    const by = (kind: string) => all.find((s) => s.kind === kind)!.text;
    expect(by("codex-cli")).toContain('base_url = "http://127.0.0.1:9000/v1"');
    expect(by("openai-sdk")).toContain('OpenAI(base_url="http://127.0.0.1:9000/v1", api_key="sk-sy-minted")');
    expect(by("anthropic-sdk")).toContain('anthropic.Anthropic(base_url="http://127.0.0.1:9000", api_key="sk-sy-minted")');
    const placeholder = /(KEY=|api_key="|apiKey"?: "|Bearer )switchyard/;
    expect(all.filter((s) => placeholder.test(s.text)).map((s) => s.kind)).toEqual([]);
    expect(buildSnippets(base).filter((s) => placeholder.test(s.text))).toHaveLength(13);
    expect(all.map((s) => s.kind).sort()).toEqual([
      "ai-sdk",
      "aider",
      "anthropic-sdk",
      "claude-code",
      "codex-cli",
      "curl",
      "gemini-cli",
      "genai-sdk",
      "openai-sdk",
      "opencode",
      "other",
      "pi",
      "qwen-code",
    ]);
    // R17.5: the Gemini CLI takes the origin and needs its settings to select API-key auth.
    expect(by("gemini-cli")).toContain("export GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:9000\n");
    expect(by("gemini-cli")).toContain('"selectedType":"gemini-api-key"');
    expect(by("genai-sdk")).toContain('baseUrl: "http://127.0.0.1:9000"');
  });
});

describe("request timeline", () => {
  it("R18.1 tells the tokens of each kind and the cost, notional on a subscription", () => {
    const used = entry({
      inputTokens: 12_000,
      outputTokens: 800,
      cacheReadTokens: 9_000,
      cacheWriteTokens: 1_500,
      reasoningTokens: 300,
      costUsd: 0.0123,
      costSource: "catalog",
      costNotional: true,
      attempts: [{ provider: "sim-a", connectionId: "a-2", model: "m", status: 200, verdict: null, latencyMs: 96 }],
    });
    const steps = timelineOf(used, names);
    expect(steps.at(-1)).toEqual({
      kind: "usage",
      tone: "muted",
      text: "Used 12,000 prompt tokens (9,000 from cache, 1,500 written to cache), 800 output (300 reasoning); notional cost $0.0123 (catalogue price)",
    });
    const unpriced = timelineOf(entry({ inputTokens: 10, outputTokens: 2, costUsd: null, costSource: null }), names);
    expect(unpriced.at(-1)!.text).toBe("Used 10 prompt tokens, 2 output; no price known");
    // No usage reported (a failure before any answer): no usage step.
    expect(timelineOf(entry({}), names).some((s) => s.kind === "usage")).toBe(false);
  });

  it("R15.1 tells a failover: the 429 with the cooldown its Retry-After left, then the answer", () => {
    const steps = timelineOf(
      entry({
        clientKind: "claude-code",
        attempts: [
          {
            provider: "sim-a",
            connectionId: "a-1",
            model: "m",
            status: 429,
            verdict: "rate_limit",
            latencyMs: 106,
            bytes: 123,
            retryHintMs: 15_000,
            retryHintSource: "retry-after",
            after: { state: "cooling_down", remainingMs: 15_000 },
          },
          { provider: "sim-a", connectionId: "a-2", model: "m", status: 200, verdict: null, latencyMs: 96, bytes: 307 },
        ],
      }),
      names,
    );
    expect(steps.map((s) => s.text)).toEqual([
      "Received from Claude Code (openai format) for demo (a combo)",
      "Attempt 1: sim-a · key 1 (m) → 429 rate_limit, 106 ms, 123 B; cooldown 15 s from Retry-After",
      "Attempt 2: sim-a · key 2 (m) → 200 ok, 96 ms, 307 B",
      "Answered 200 by sim-a · key 2 after 2 attempts in 208 ms, first byte 207 ms",
    ]);
    expect(steps.map((s) => s.tone)).toEqual(["muted", "warn", "ok", "ok"]);
  });

  it("R25.4 says in words where each attempt ended and whose fault it was", () => {
    const steps = timelineOf(
      entry({
        attempts: [
          { provider: "sim-b", connectionId: "b-1", model: "m", status: 400, verdict: "bad_request", latencyMs: 40, ended: "headers", fault: "gateway" },
          { provider: "sim-a", connectionId: "a-1", model: "m", status: null, verdict: "server_error", latencyMs: 50, ended: "mid_stream", fault: "provider" },
          { provider: "sim-a", connectionId: "a-2", model: "m", status: null, verdict: "stream_early_eof", latencyMs: 60, ended: "no_terminal", fault: "provider" },
          { provider: "sim-a", connectionId: "a-2", model: "m", status: 200, verdict: null, latencyMs: 96, ended: "complete", fault: "none" },
        ],
      }),
      names,
    );
    expect(steps.filter((s) => s.kind === "attempt").map((s) => s.text)).toEqual([
      "Attempt 1: sim-b · b-1 (m) → 400 bad_request, 40 ms — refused at the response head, Switchyard's own fault (nothing cooled)",
      "Attempt 2: sim-a · key 1 (m) → no status server_error, 50 ms — broke mid-stream, the provider's fault",
      "Attempt 3: sim-a · key 2 (m) → no status stream_early_eof, 60 ms — ended without its final event, the provider's fault",
      "Attempt 4: sim-a · key 2 (m) → 200 ok, 96 ms — complete",
    ]);
  });

  it("R15.1 tells what was skipped before dispatch and why, the combo's waits, and a final error", () => {
    const steps = timelineOf(
      entry({
        status: 503,
        errorCode: "all_targets_cooling_down",
        provider: null,
        connectionId: null,
        ttfbMs: null,
        combo: "coding",
        model: "coding",
        skipped: [
          { provider: "sim-a", target: "sim-a/m", connectionId: "a-1", reason: "unavailable", remainingMs: 14_800 },
          { provider: "sim-b", target: "sim-b/m", connectionId: null, reason: "circuit_open", remainingMs: 30_000 },
          { provider: "sim-a", target: "sim-a/m", connectionId: "a-2", reason: "leased", remainingMs: null },
        ],
        comboWaits: { count: 2, waitedMs: 1_500 },
      }),
      names,
    );
    expect(steps.map((s) => s.text)).toEqual([
      "Received from a client (openai format) for coding (a combo)",
      "Skipped sim-a · key 1 before dispatch: cooling down (14.8 s left)",
      "Skipped sim-b/m before dispatch: provider breaker open (30 s left)",
      "Skipped sim-a · key 2 before dispatch: leased to another session",
      "Waited 2× (1.5 s) for a target to recover",
      "Ended 503 all_targets_cooling_down after 0 attempts in 208 ms",
    ]);
    expect(steps.at(-1)!.tone).toBe("bad");
  });
});

describe("client activity and log filters", () => {
  it("issue14 a newer request of a kind replaces the older one; a late older one changes nothing", () => {
    const first = withEntry([], entry({ id: "1", time: 10, clientKind: "curl" }));
    const second = withEntry(first, entry({ id: "2", time: 20, clientKind: "aider" }));
    expect(second.map((i) => i.kind)).toEqual(["aider", "curl"]);
    expect(withEntry(second, entry({ id: "3", time: 5, clientKind: "curl" }))).toEqual(second);
    expect(withEntry(second, entry({ id: "4", time: 30, clientKind: "curl" })).map((i) => [i.kind, i.requestId])).toEqual([
      ["curl", "4"],
      ["aider", "2"],
    ]);
    expect(withEntry(second, entry({ id: "5", time: 40 }))).toEqual(second);
  });

  it("R15.1 combo, client and time filters match live entries as GET /api/logs does, and become its query", () => {
    const e = entry({ clientKind: "aider", time: 100_000 });
    expect(matchesFilters(e, { ...NO_FILTERS, client: "aider", combo: "demo" })).toBe(true);
    expect(matchesFilters(e, { ...NO_FILTERS, client: "curl" })).toBe(false);
    expect(matchesFilters(e, { ...NO_FILTERS, combo: "other" })).toBe(false);
    expect(matchesFilters(e, { ...NO_FILTERS, window: "15m" }, 100_000 + 15 * 60_000)).toBe(true);
    expect(matchesFilters(e, { ...NO_FILTERS, window: "15m" }, 100_001 + 15 * 60_000)).toBe(false);
    expect(logQuery({ ...NO_FILTERS, client: "aider", combo: "demo", window: "1h", status: " 429 " }, 5_000_000)).toEqual({
      limit: 200,
      client: "aider",
      combo: "demo",
      since: 1_400_000,
      status: "429",
    });
  });

  it("R0.4 an import file's format comes from its name, else from its first character", () => {
    expect(formatOf("a.yml", "{}")).toBe("yaml");
    expect(formatOf("a.JSON", "x: 1")).toBe("json");
    expect(formatOf("pasted", '  {"providers": []}')).toBe("json");
    expect(formatOf("pasted", "providers: []")).toBe("yaml");
  });
});
