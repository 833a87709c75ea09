// Issue 13 item 4 (pure code): property-based tests with fast-check for the settings normalisers,
// the classifier, the retry-hint parsers and the SSE framing/parsing path. The translators' own
// never-throw properties live in tests/unit/formats/robustness.test.ts; here every translator is
// also fed real upstream streams split at arbitrary byte boundaries.
import { createParser } from "eventsource-parser";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { classifyUpstreamFailure } from "../../main/engine/classifier.js";
import type { StreamCause, TransportCause, UpstreamFailure } from "../../main/engine/failure.js";
import { VERDICT_REASONS } from "../../main/engine/ports.js";
import { parseBodyResetText, parseDurationText, parseRetryAfter, parseRetryHint } from "../../main/engine/retryHints.js";
import { answerReader } from "../../main/gateway/formats/answerReader.js";
import { geminiRetryHint } from "../../main/gateway/formats/gemini/retryInfo.js";
import { createStreamTranslator, type WireFormat } from "../../main/gateway/formats/index.js";
import { sseFrame } from "../../main/gateway/formats/sse.js";
import { DEFAULT_RESILIENCE_SETTINGS, rangeAt } from "../../shared/resilienceSettings.js";
import { normaliseAppSettings } from "../../shared/schemas/appSettings.js";
import { normalizeResilienceSettings } from "../../shared/schemas/resilienceDocument.js";
import { provider as makeProvider } from "../unit/engine/fixtures.js";

const RUNS = { numRuns: 300 };
/** The zod normalisers cost ~30 ms a run; fewer runs keep the file well under ten seconds. */
const SLOW_RUNS = { numRuns: 60 };
const NOW = Date.UTC(2026, 0, 15, 12);

/** Arbitrary JSON shaped like a document: the real keys at any depth, values of any type. */
function documentLike(keys: string[]): fc.Arbitrary<unknown> {
  const key = fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 8 }));
  return fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: "small" },
      fc.integer({ min: -1e12, max: 1e12 }),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.string({ maxLength: 12 }),
      fc.array(tie("value"), { maxLength: 3 }),
      tie("object"),
    ),
    object: fc.dictionary(key, tie("value"), { maxKeys: 6 }),
  })).object;
}

function leafPaths(value: unknown, prefix = ""): Array<[string, unknown]> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return [[prefix, value]];
  return Object.entries(value).flatMap(([k, v]) => leafPaths(v, prefix ? `${prefix}.${k}` : k));
}

const resilienceKeys = [...new Set(leafPaths(DEFAULT_RESILIENCE_SETTINGS).flatMap(([p]) => p.split(".")))];

describe("settings normalisers", () => {
  it("R10.1 any stored resilience document normalises without throwing into values inside their ranges, and normalising again changes nothing", () => {
    fc.assert(
      fc.property(documentLike(resilienceKeys), (raw) => {
        const { settings } = normalizeResilienceSettings(raw, {});
        for (const [path, value] of leafPaths(settings)) {
          const range = rangeAt(path);
          if (!range || typeof value !== "number") continue;
          expect(Number.isFinite(value), path).toBe(true);
          if (value !== 0 || !range.zeroMeansOff) {
            expect(value, path).toBeGreaterThanOrEqual(range.min);
            expect(value, path).toBeLessThanOrEqual(range.max);
          }
        }
        const again = normalizeResilienceSettings(settings, {});
        expect(again.settings).toEqual(settings);
        expect(again.changes).toEqual([]);
      }),
      SLOW_RUNS,
    );
  });

  it("R10.1 hostile environment values only ever seed defaults inside the ranges", () => {
    const envKey = fc.constantFrom(
      "OMNIROUTE_ROTATION_RATE_LIMIT_RESET_SECONDS",
      "PROVIDER_COOLDOWN_ENABLED",
      "RATE_LIMIT_MAX_WAIT_MS",
      "RATE_LIMIT_MAX_QUEUE_DEPTH",
      "STREAM_CONTENT_STALL_TIMEOUT_MS",
      "STREAM_RECOVERY_ENABLED",
      "X",
    );
    fc.assert(
      fc.property(fc.dictionary(envKey, fc.oneof(fc.string(), fc.constantFrom("1", "0", "true", "-5", "1e309", "NaN"))), (env) => {
        const { settings } = normalizeResilienceSettings({}, env);
        expect(normalizeResilienceSettings(settings, {}).settings).toEqual(settings);
      }),
      SLOW_RUNS,
    );
  });

  it("R10.3 any stored app-settings document normalises without throwing, and normalising again changes nothing", () => {
    const keys = [
      "sessionAffinityTtlMs",
      "requireClientKey",
      "providerErrorRules",
      "providerErrorDefaults",
      "emergencyFallback",
      "maxBodyMb",
      "provider",
      "status",
      "match",
      "scope",
      "cooldownMs",
      "reason",
      "enabled",
    ];
    fc.assert(
      fc.property(documentLike(keys), (raw) => {
        const settings = normaliseAppSettings(raw);
        expect(normaliseAppSettings(settings)).toEqual(settings);
      }),
      SLOW_RUNS,
    );
  });
});

const provider = makeProvider({ baseUrl: "http://127.0.0.1:1/v1" });
const headerValue = fc.oneof(
  fc.string(),
  fc.integer({ min: -1e13, max: 1e13 }).map(String),
  fc.date({ noInvalidDate: true }).map((d) => d.toUTCString()),
  fc.constantFrom("1.5", "-3", "Infinity", "NaN", "1e400", "2h30m", "0"),
);
const headers = fc.dictionary(
  fc.constantFrom("retry-after", "retry-after-ms", "x-ratelimit-reset", "x-ratelimit-reset-requests", "anthropic-ratelimit-requests-reset", "x-other"),
  headerValue,
  { maxKeys: 4 },
);
const bodyText = fc.oneof(
  fc.string(),
  fc.constantFrom(
    "rate limit",
    "quota exceeded",
    "usage limit reached, resets in 3h",
    "用户额度不足",
    "too many tools",
    "context length",
    "Please retry in 26.66s.",
    '{"error":{"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"33s"}]}}',
  ),
  fc.json(),
);

const nonNegativeOrNull = (ms: number | null) => ms === null || (Number.isFinite(ms) && ms >= 0);

describe("classifier and retry hints", () => {
  it("R12.1 the classifier maps any upstream failure (answer, body that is not JSON, transport, stream) to a complete verdict, never throwing", () => {
    const reasons = new Set<string>(VERDICT_REASONS);
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 599 }),
        headers,
        bodyText,
        fc.constantFrom("http", "invalid_json", "transport", "stream"),
        fc.constantFrom<TransportCause>("refused", "reset", "timeout", "dns", "tls", "aborted", "other"),
        fc.constantFrom<StreamCause>("content_stall", "idle_stall", "early_eof", "throughput", "continuation_refused"),
        (status, h, body, kind, transportCause, streamCause) => {
          const failure: UpstreamFailure =
            kind === "http"
              ? { kind, status, headers: h, bodyText: body }
              : kind === "invalid_json"
                ? { kind, status: 200, headers: h }
                : kind === "transport"
                  ? { kind, cause: transportCause, code: body }
                  : { kind, cause: streamCause, detail: body };
          const v = classifyUpstreamFailure({ provider, model: "m", failure }, { settings: DEFAULT_RESILIENCE_SETTINGS, now: NOW, answers: answerReader });
          expect(reasons.has(v.reason), v.reason).toBe(true);
          expect(v.status).toBeGreaterThanOrEqual(400);
          expect(v.status).toBeLessThan(600);
          expect(nonNegativeOrNull(v.retryHintMs)).toBe(true);
          expect(nonNegativeOrNull(v.cooldownMs)).toBe(true);
          expect(typeof v.message).toBe("string");
        },
      ),
      RUNS,
    );
  });

  it("R4.3 every retry-hint parser returns null or a finite, non-negative wait for any input", () => {
    fc.assert(
      fc.property(headerValue, bodyText, headers, (value, body, h) => {
        expect(nonNegativeOrNull(parseRetryAfter(value, NOW))).toBe(true);
        expect(nonNegativeOrNull(parseDurationText(value))).toBe(true);
        expect(nonNegativeOrNull(geminiRetryHint(body)?.ms ?? null)).toBe(true);
        expect(nonNegativeOrNull(parseBodyResetText(body))).toBe(true);
        const hint = parseRetryHint(h, body, NOW, answerReader);
        expect(hint === null || (Number.isFinite(hint.ms) && hint.ms >= 0)).toBe(true);
      }),
      RUNS,
    );
  });

  it("R4.3 a Retry-After of N whole seconds is N seconds", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3_600 }), (n) => {
        expect(parseRetryAfter(String(n), NOW)).toBe(n * 1_000);
      }),
      RUNS,
    );
  });
});

function parseAll(chunks: string[]): Array<{ event?: string; data: string }> {
  const out: Array<{ event?: string; data: string }> = [];
  const parser = createParser({ onEvent: (e) => out.push({ event: e.event, data: e.data }) });
  for (const c of chunks) parser.feed(c);
  return out;
}

/** Splits text at arbitrary points (including inside multi-byte characters' neighbours). */
const splitPoints = fc.array(fc.nat(), { maxLength: 12 });
function split(text: string, points: number[]): string[] {
  const cuts = [...new Set(points.map((p) => p % (text.length + 1)))].sort((a, b) => a - b);
  const parts: string[] = [];
  let at = 0;
  for (const c of cuts) {
    parts.push(text.slice(at, c));
    at = c;
  }
  parts.push(text.slice(at));
  return parts;
}

const UPSTREAM: Record<WireFormat, string> = {
  openai:
    [
      { id: "c", object: "chat.completion.chunk", model: "u", choices: [{ index: 0, delta: { role: "assistant", content: "" } }] },
      { id: "c", object: "chat.completion.chunk", model: "u", choices: [{ index: 0, delta: { content: "Héllo 👋 wörld" } }] },
      { id: "c", object: "chat.completion.chunk", model: "u", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
    ]
      .map((c) => sseFrame(JSON.stringify(c)))
      .join("") + sseFrame("[DONE]"),
  anthropic: [
    ["message_start", { type: "message_start", message: { id: "m", type: "message", role: "assistant", model: "u", content: [], usage: { input_tokens: 2, output_tokens: 0 } } }],
    ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }],
    ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Héllo 👋 wörld" } }],
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    ["message_delta", { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 3 } }],
    ["message_stop", { type: "message_stop" }],
  ]
    .map(([e, d]) => sseFrame(JSON.stringify(d), e as string))
    .join(""),
  gemini: [
    { candidates: [{ content: { role: "model", parts: [{ text: "Héllo 👋 wörld" }] } }] },
    { candidates: [{ content: { role: "model", parts: [{ text: "" }] }, finishReason: "STOP" }], usageMetadata: { promptTokenCount: 2, candidatesTokenCount: 3 } },
  ]
    .map((c) => sseFrame(JSON.stringify(c)))
    .join(""),
  "openai-responses": [
    { type: "response.created", sequence_number: 0, response: { id: "resp_u", object: "response", status: "in_progress", model: "u", output: [] } },
    { type: "response.output_item.added", sequence_number: 1, output_index: 0, item: { id: "msg_u", type: "message", role: "assistant", status: "in_progress", content: [] } },
    { type: "response.output_text.delta", sequence_number: 2, item_id: "msg_u", output_index: 0, content_index: 0, delta: "Héllo 👋 wörld" },
    {
      type: "response.output_item.done",
      sequence_number: 3,
      output_index: 0,
      item: { id: "msg_u", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Héllo 👋 wörld", annotations: [] }] },
    },
    {
      type: "response.completed",
      sequence_number: 4,
      response: { id: "resp_u", object: "response", status: "completed", model: "u", output: [], usage: { input_tokens: 2, output_tokens: 3, total_tokens: 5 } },
    },
  ]
    .map((e) => sseFrame(JSON.stringify(e), e.type))
    .join(""),
};

function translate(from: WireFormat, to: WireFormat, chunks: string[]): string {
  const translator = createStreamTranslator(from, to, { clientModel: "client/model", requestId: "req-1" });
  let out = "";
  for (const evt of parseAll(chunks)) for (const f of translator.push(evt)) out += f.text;
  for (const f of translator.end()) out += f.text;
  return out;
}

describe("SSE framing and parsing", () => {
  it("R13.1 any data and event name framed by sseFrame parse back to exactly the same event", () => {
    const line = fc.string().map((s) => s.replace(/\r/g, ""));
    const eventName = fc.option(fc.stringMatching(/^[a-z_]{1,16}$/), { nil: undefined });
    fc.assert(
      fc.property(line, eventName, splitPoints, (data, event, points) => {
        const parsed = parseAll(split(sseFrame(data, event), points));
        expect(parsed).toEqual([{ event, data }]);
      }),
      RUNS,
    );
  });

  it("R1.4 R13.1 every translator gives the same client stream however the upstream bytes are split", () => {
    const formats: WireFormat[] = ["openai", "anthropic", "gemini"];
    fc.assert(
      fc.property(fc.constantFrom(...formats), fc.constantFrom(...formats), splitPoints, (from, to, points) => {
        const whole = translate(from, to, [UPSTREAM[from]]);
        expect(whole).toContain(to === "gemini" ? "Héllo" : "Héllo 👋 wörld");
        const ids = (text: string) => text.replace(/"(id|created)":("[^"]*"|\d+)/g, '"$1":0');
        expect(ids(translate(from, to, split(UPSTREAM[from], points)))).toBe(ids(whole));
      }),
      RUNS,
    );
  });
});
