// R22.5: a format's knowledge lives in its folder. This is the list of what a format must provide:
// every registered half declares each member (null where the format has no such thing, never left
// out), the registry has one line per folder, and the per-format facts the gateway used to switch on
// format names (count shapes, traffic signals, reasoning artifacts, prefill, unknown routes, pricing,
// model lists, the WebSocket refusal, quota header families, per-model limits, the doctor's contract)
// answer from the halves.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { clientHalf, clientHalves, providerAdapterFor, quotaHeaderFamilies, upstreamHalf } from "../../../main/gateway/formats/index.js";
import { formatOfUnknownPath } from "../../../main/gateway/http/unknownRoute.js";
import type { WireFormat } from "../../../shared/types.js";

const FORMATS_DIR = path.resolve("main/gateway/formats");

/** Every member a client half must declare; the compiler requires them too, this keeps the list in one readable place. */
const CLIENT_MEMBERS = [
  "format",
  "generationPaths",
  "count",
  "compactPaths",
  "modelRoutes",
  "webSocketTurns",
  "routePrefixes",
  "shapeProblem",
  "isStreamRequest",
  "toolCount",
  "wantsStreamUsage",
  "toHub",
  "promptText",
  "estimateInputTokens",
  "sessionHint",
  "hasCacheHint",
  "trafficTexts",
  "reasoningArtifacts",
  "foreignReasoningStripped",
  "hubToResponse",
  "streamEncoder",
  "continuation",
  "errorBody",
  "errorFrame",
  "heartbeatFrame",
] as const;

const UPSTREAM_MEMBERS = [
  "format",
  "upstreamFormatFor",
  "extraHeaders",
  "pricingProvider",
  "limitsPerModel",
  "baseUrlConvention",
  "contract",
  "quotaHeaders",
  "path",
  "authHeaders",
  "fromHub",
  "responseToHub",
  "usage",
  "streamDecoder",
  "reasoningMarker",
  "takesPrefill",
  "classify",
  "textDeltaBytes",
  "isToolOrReasoningEvent",
] as const;

const FORMATS: WireFormat[] = clientHalves().map((h) => h.format);

describe("R22.5 what a format must provide", () => {
  it("R22.5 every format is one folder and one registry line", () => {
    const folders = readdirSync(FORMATS_DIR).filter((f) => statSync(path.join(FORMATS_DIR, f)).isDirectory() && f !== "simulator");
    const folderOf: Record<WireFormat, string> = { openai: "openai", "openai-responses": "responses", anthropic: "anthropic", gemini: "gemini" };
    expect(FORMATS.map((f) => folderOf[f]).sort()).toEqual(folders.sort());
    const registry = readFileSync(path.join(FORMATS_DIR, "adapters.ts"), "utf8");
    for (const folder of folders) expect(registry.match(new RegExp(`from "\\./${folder}/adapter\\.js"`, "g"))).toHaveLength(1);
  });

  it.each(FORMATS)("R22.5 the %s client half declares every member (null where it has none)", (format) => {
    const half = clientHalf(format) as unknown as Record<string, unknown>;
    const missing = CLIENT_MEMBERS.filter((m) => !(m in half) || half[m] === undefined);
    expect(missing).toEqual([]);
    expect(half.format).toBe(format);
  });

  it.each(FORMATS)("R22.5 the %s upstream half declares every member", (format) => {
    const half = upstreamHalf(format) as unknown as Record<string, unknown>;
    const missing = UPSTREAM_MEMBERS.filter((m) => !(m in half) || half[m] === undefined);
    expect(missing).toEqual([]);
  });

  it("R22.5 R1.4 every client half answers its unknown routes, and a path's format is the half whose prefix matches longest", () => {
    for (const half of clientHalves()) expect(half.routePrefixes.length).toBeGreaterThan(0);
    expect(formatOfUnknownPath("/v1/messages/batches")).toBe("anthropic");
    expect(formatOfUnknownPath("/v1/responses/abc/cancel")).toBe("openai-responses");
    expect(formatOfUnknownPath("/v1beta/cachedContents")).toBe("gemini");
    expect(formatOfUnknownPath("/v1/embeddings")).toBe("openai");
  });

  it("R22.5 R1.3 model lists: each path has one own route, the others claim their requests, and each answers in its format's shape", () => {
    const routes = clientHalves().flatMap((half) => half.modelRoutes.map((route) => ({ format: half.format, route })));
    const own = routes.filter(({ route }) => !route.claims).map(({ route }) => String(route.path));
    expect(new Set(own).size).toBe(own.length);
    const served = [{ id: "p/m1", owner: "p" }];
    const answer = (path: string, headers: Record<string, string> = {}, query: Record<string, string> = {}) => {
      const req = { path, query, headers };
      const matches = (p: string | RegExp) => (typeof p === "string" ? p === path : p.test(path));
      const hit = routes.find(({ route }) => matches(route.path) && route.claims?.(req)) ?? routes.find(({ route }) => matches(route.path) && !route.claims);
      return hit && { format: hit.format, ...hit.route.answer(req, served, 1_000_000) };
    };
    expect(answer("/v1/models")).toMatchObject({ format: "openai", status: 200, body: { object: "list", data: [{ id: "p/m1", owned_by: "p" }] } });
    expect(answer("/v1/models", { "x-goog-api-key": "k" })).toMatchObject({ format: "gemini", body: { models: [{ name: "models/p/m1" }] } });
    expect(answer("/v1/models", {}, { client_version: "0.171.0" })).toMatchObject({ format: "openai-responses", body: { models: [{ slug: "p/m1" }] } });
    expect(answer("/backend-api/codex/models")).toMatchObject({ format: "openai-responses", status: 200 });
    expect(answer("/v1beta/models/p%2Fm1")).toMatchObject({ format: "gemini", status: 200, body: { name: "models/p/m1" } });
    expect(answer("/v1/models/p/m1")).toMatchObject({ format: "openai", status: 200, body: { id: "p/m1", object: "model", created: 1000 } });
    expect(answer("/v1/models/nope")).toMatchObject({ status: 404, body: { error: { code: "model_not_found" } } });
    expect(answer("/v1beta/models/%E0")).toMatchObject({ format: "gemini", status: 400 });
  });

  it("R22.5 R16.5 count shapes: each format with a count route says how an upstream counts and how an estimate answers", () => {
    expect(clientHalf("openai").count).toBeNull();
    expect(clientHalf("anthropic").count?.estimateBody(7)).toEqual({ input_tokens: 7 });
    expect(clientHalf("openai-responses").count?.estimateBody(7)).toEqual({ object: "response.input_tokens", input_tokens: 7 });
    expect(clientHalf("gemini").count?.estimateBody(7)).toEqual({ totalTokens: 7 });
    expect(clientHalf("gemini").count?.upstreamPath("g-1")).toBe("/models/g-1:countTokens");
  });

  it("R22.5 R20.3 traffic signals: each format says where its system prompt and last user text are", () => {
    const texts = (format: WireFormat, body: Record<string, unknown>) => clientHalf(format).trafficTexts(body);
    expect(texts("anthropic", { system: [{ type: "text", text: "SYS" }], messages: [{ role: "user", content: [{ type: "text", text: "ASK" }] }] })).toMatchObject({
      system: ["SYS"],
      lastUser: "ASK",
    });
    expect(
      texts("openai", {
        messages: [
          { role: "system", content: "SYS" },
          { role: "user", content: "ASK" },
        ],
      }),
    ).toMatchObject({ system: ["SYS"], lastUser: "ASK" });
    expect(texts("gemini", { systemInstruction: { parts: [{ text: "SYS" }] }, contents: [{ role: "user", parts: [{ text: "ASK" }] }] })).toMatchObject({
      system: ["SYS"],
      lastUser: "ASK",
    });
    expect(texts("openai-responses", { instructions: "SYS", input: [{ type: "compaction_trigger" }] })).toMatchObject({ system: ["SYS", ""], lastItemType: "compaction_trigger" });
    expect(texts("openai-responses", { input: "ASK" }).lastUser).toBe("ASK");
  });

  it("R22.5 R20.1 reasoning artifacts: the formats that carry them in answer text read them; the others say they carry none", () => {
    expect(clientHalf("anthropic").reasoningArtifacts?.('{"type":"thinking","thinking":"x","signature":"sig-1"}')).toEqual(["sig-1"]);
    expect(clientHalf("gemini").reasoningArtifacts?.('{"text":"x","thoughtSignature":"g-1"}')).toEqual(["g-1"]);
    expect(clientHalf("anthropic").reasoningArtifacts?.('{"signature":"switchyard.reasoning.openai.x"}')).toEqual([]);
    expect(clientHalf("openai").reasoningArtifacts).toBeNull();
    expect(clientHalf("openai").foreignReasoningStripped).toBeNull();
    const none = () => false;
    const stripped = clientHalf("openai-responses").foreignReasoningStripped?.(
      {
        input: [
          { type: "reasoning", id: "rs_1", encrypted_content: "e" },
          { role: "user", content: "hi" },
        ],
      },
      none,
    );
    expect(stripped).toMatchObject({ removed: 1, body: { input: [{ role: "user", content: "hi" }] } });
  });

  it("R22.5 R13.3 R18.1 the upstream halves say whether they take a prefill and which catalogue prices them", () => {
    expect(FORMATS.filter((f) => upstreamHalf(f).takesPrefill)).toEqual(["anthropic"]);
    expect(Object.fromEntries(FORMATS.map((f) => [f, upstreamHalf(f).pricingProvider]))).toEqual({
      openai: "openai",
      "openai-responses": "openai",
      anthropic: "anthropic",
      gemini: "google",
    });
    expect(providerAdapterFor("simulator").pricingProvider).toBeNull();
  });

  it.each(FORMATS)("R22.5 R23.4 the %s upstream half's doctor contract knows its own answers and error bodies, and no other format's", (format) => {
    const contract = upstreamHalf(format).contract;
    const answer = clientHalf(format).hubToResponse(
      { parts: [{ type: "text", text: "ok" }], finish: "stop", usage: { inputTokens: 1, outputTokens: 1 } },
      { clientModel: "m", requestId: "r1", clientBody: {} },
    );
    expect(FORMATS.filter((f) => upstreamHalf(f).contract.isAnswer(answer))).toEqual([format]);
    const error = clientHalf(format).errorBody(400, "invalid_request", "bad");
    expect(contract.errorShape.matches(error, error["error"] as Record<string, unknown>)).toBe(true);
    for (const other of FORMATS)
      if (upstreamHalf(other).contract.errorShape !== contract.errorShape)
        expect(upstreamHalf(other).contract.errorShape.matches(error, error["error"] as Record<string, unknown>)).toBe(false);
    expect(contract.title.length).toBeGreaterThan(0);
    expect(upstreamHalf(format).baseUrlConvention.length).toBeGreaterThan(0);
  });

  it("R22.5 R18.3 R11.1 the upstream halves name their vendors' quota header families; the count families name their requests window", () => {
    const prefixes = (format: WireFormat) => upstreamHalf(format).quotaHeaders.map((family) => family.prefix);
    expect(Object.fromEntries(FORMATS.map((f) => [f, prefixes(f)]))).toEqual({
      openai: ["x-ratelimit-"],
      "openai-responses": ["x-ratelimit-", "x-codex-"],
      anthropic: ["anthropic-ratelimit-unified-", "anthropic-ratelimit-"],
      gemini: [],
    });
    expect(quotaHeaderFamilies().flatMap((family) => (family.requests ? [family.requests.remaining] : []))).toEqual([
      "x-ratelimit-remaining-requests",
      "anthropic-ratelimit-requests-remaining",
    ]);
  });

  it("R22.5 R9.4 the upstream halves say whether their provider rate-limits each model apart", () => {
    expect(FORMATS.filter((f) => upstreamHalf(f).limitsPerModel)).toEqual(["gemini"]);
    expect(providerAdapterFor("simulator").limitsPerModel).toBe(false);
  });
});

describe("R22.5 no format-name switches outside formats/", () => {
  it("R22.5 the gateway outside formats/ asks the halves instead of comparing format names", () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const full = path.join(dir, name);
        if (statSync(full).isDirectory()) {
          if (full !== FORMATS_DIR) walk(full);
        } else if (name.endsWith(".ts")) {
          const text = readFileSync(full, "utf8");
          if (/format\s*===\s*"(openai|openai-responses|anthropic|gemini)"/.test(text)) offenders.push(path.relative(process.cwd(), full));
        }
      }
    };
    walk(path.resolve("main/gateway"));
    expect(offenders).toEqual([]);
  });

  it("R22.5 the engine names no wire format: what it needs of one comes in as data", () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const full = path.join(dir, name);
        if (statSync(full).isDirectory()) walk(full);
        else if (name.endsWith(".ts") && /"(openai|openai-responses|anthropic|gemini)"/.test(readFileSync(full, "utf8"))) offenders.push(path.relative(process.cwd(), full));
      }
    };
    walk(path.resolve("main/engine"));
    expect(offenders).toEqual([]);
  });
});
