// POST /api/providers/:id/doctor (R23.4): tiny requests on the provider's first active connection,
// through the same upstream client and format halves as traffic, each read for what a client of
// that format relies on: a JSON answer in the format's shape, a stream that ends as the format ends
// one, a tool definition accepted, token usage reported, an error body in the format's error shape.
// Diagnostic only: nothing here touches breakers, cooldowns or the request log. The checks run one
// after another (a small key's rate limit is not spent in one burst); once the first answer shows
// that the upstream cannot be reached or refuses the URL or the key, the rest are reported as not
// run for that reason rather than waited on.
import type { DoctorCheck, DoctorCheckName, ProviderDoctorReport } from "../../shared/apiTypes.js";
import type { Connection, Provider, WireFormat } from "../../shared/types.js";
import { extractUsage, translateRequest, upstreamFormatOf, upstreamPath } from "../gateway/formats/index.js";
import type { HubUsage } from "../gateway/formats/hub.js";
import { redactSecret } from "../gateway/upstream/redact.js";
import { UpstreamCallError, type CallUpstream, type UpstreamCall } from "../gateway/upstream/call.js";
import {
  type CallSite,
  type CallVerdict,
  type Verdict,
  readAnswer,
  readErrorAnswer,
  readStream,
  readToolAnswer,
  statusVerdict,
  transportVerdict,
  usageVerdict,
} from "./doctorVerdicts.js";

/** Each tiny request answers a person waiting on a button: a healthy upstream answers in a few seconds. */
export const DOCTOR_CALL_CEILING_MS = 15_000;
/** Enough for any tiny answer, stream included. */
const ANSWER_LIMIT_BYTES = 1024 * 1024;

const CHECK_ORDER: readonly DoctorCheckName[] = ["json", "stream", "tools", "usage", "errors"];

const TOOL_NAME = "get_weather";
const PROMPT = "Reply with the single word: ok";
// "Use tool" is also what makes the simulator answer with a tool call.
const TOOL_PROMPT = `Use tool ${TOOL_NAME} to look up the weather in Paris.`;
const TOOL = {
  type: "function",
  function: {
    name: TOOL_NAME,
    description: "The current weather in a city.",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};
/** Not JSON: every format's server refuses it with a 400 in its own error shape. */
const MALFORMED_BODY = "{";

export interface ProviderDoctorDeps {
  callUpstream: CallUpstream;
  secretOf(connectionId: string): string | null;
}

/** The base URL as a detail may show it: never with credentials inside it. */
function shownBaseUrl(provider: Provider): string {
  if (!provider.baseUrl) return "(the built-in simulator)";
  try {
    const url = new URL(provider.baseUrl);
    url.username = "";
    url.password = "";
    return url.toString().replace(/\/$/, "");
  } catch {
    return provider.baseUrl;
  }
}

/** The probe as an OpenAI chat body, translated by the same halves as a client's request. */
function probe(format: WireFormat, model: string, extra: Record<string, unknown>, prompt = PROMPT): Record<string, unknown> {
  return translateRequest("openai", format, { model, messages: [{ role: "user", content: prompt }], ...extra }, model).body;
}

type Answered = { kind: "answer"; call: UpstreamCall; ms: number } | { kind: "failed"; verdict: CallVerdict; ms: number };

export function createProviderDoctor(deps: ProviderDoctorDeps) {
  return async (provider: Provider, connection: Connection): Promise<ProviderDoctorReport> => {
    const format = upstreamFormatOf(provider, "openai");
    const model = provider.models[0] ?? "test";
    const secret = deps.secretOf(connection.id);
    const site = (stream: boolean): CallSite => ({
      format: provider.format,
      upstreamFormat: format,
      baseUrl: shownBaseUrl(provider),
      path: upstreamPath(format, model, stream).split("?")[0],
      model,
      connectionName: connection.name,
    });

    async function send(stream: boolean, body: unknown): Promise<Answered> {
      const t0 = performance.now();
      const ms = () => Math.round(performance.now() - t0);
      try {
        const call = await deps.callUpstream({
          provider,
          upstreamFormat: format,
          clientFormat: "openai",
          secret,
          clientHeaders: {},
          path: upstreamPath(format, model, stream),
          body,
          ceilingMs: DOCTOR_CALL_CEILING_MS,
        });
        return { kind: "answer", call, ms: ms() };
      } catch (err) {
        if (!(err instanceof UpstreamCallError)) throw err;
        return { kind: "failed", verdict: transportVerdict(site(stream), err.code, err.timedOut, DOCTOR_CALL_CEILING_MS), ms: ms() };
      }
    }

    /** Sends, then reads a 2xx with `read`; any other status gets the status sentence. */
    async function check(stream: boolean, body: unknown, read: (call: UpstreamCall, text: string) => CallVerdict): Promise<CallVerdict & { ms: number }> {
      const t0 = performance.now();
      const sent = await send(stream, body);
      if (sent.kind === "failed") return { ...sent.verdict, ms: sent.ms };
      const { call } = sent;
      try {
        const status = call.response.status;
        if (status < 200 || status >= 300) return { ...statusVerdict(site(stream), status, await call.errorText(), call.response.headers), ms: Math.round(performance.now() - t0) };
        const verdict = read(call, await call.bodyText(ANSWER_LIMIT_BYTES));
        return { ...verdict, ms: Math.round(performance.now() - t0) };
      } catch (err) {
        if (!(err instanceof UpstreamCallError)) throw err;
        const verdict = err.timedOut
          ? { ok: false, detail: `the answer stopped coming before it ended (no end within ${DOCTOR_CALL_CEILING_MS / 1000} s)` }
          : { ok: false, detail: `the connection broke while the answer came (${err.code})` };
        return { ...verdict, ms: Math.round(performance.now() - t0) };
      }
    }

    const results = new Map<DoctorCheckName, Verdict & { ms: number }>();
    let jsonUsage: HubUsage | undefined;
    let streamUsage: HubUsage | null | undefined;

    const json = await check(false, probe(format, model, {}), (_call, text) => {
      const read = readAnswer(site(false), text);
      if (read.ok) jsonUsage = extractUsage(format, read.body);
      return read;
    });
    results.set("json", json);

    const stopped = json.blocking ? `not run: ${json.detail ?? "the json check failed"}` : null;
    const notRun = (): Verdict & { ms: number } => ({ ok: false, detail: stopped ?? "", ms: 0 });
    if (stopped) {
      for (const name of ["stream", "tools", "errors"] as const) results.set(name, notRun());
    } else {
      // The probe is a chat body: asked for its usage as every translated request asks, which only a chat upstream reads.
      const streamExtra = { stream: true, stream_options: { include_usage: true } };
      results.set(
        "stream",
        await check(true, probe(format, model, streamExtra), (call, text) => {
          const read = readStream(site(true), String(call.response.headers["content-type"] ?? ""), text);
          // A broken stream is the stream check's failure; its missing usage is not a second one.
          if (read.ok) streamUsage = read.usage;
          return read;
        }),
      );
      results.set(
        "tools",
        await check(false, probe(format, model, { tools: [TOOL] }, TOOL_PROMPT), (_call, text) => {
          const read = readAnswer(site(false), text);
          return read.ok ? readToolAnswer(site(false), read.body, TOOL_NAME) : read;
        }),
      );
      results.set("errors", await errorsCheck(send, site(false)));
    }

    const t0 = performance.now();
    const usage: Verdict = json.ok ? usageVerdict(site(false), jsonUsage, streamUsage) : { ok: false, detail: stopped ?? "no answer to read usage from: the json check failed" };
    results.set("usage", { ...usage, ms: Math.round(performance.now() - t0) });

    const checks = CHECK_ORDER.map((name): DoctorCheck => {
      const r = results.get(name) ?? notRun();
      return { name, ok: r.ok, ...(r.detail ? { detail: redactSecret(r.detail, secret) } : {}), ms: r.ms };
    });
    return { ok: checks.every((c) => c.ok), checks, connectionId: connection.id, model };
  };
}

/** A body that is not JSON, sent as it is: the answer's status and error shape are the check. */
async function errorsCheck(send: (stream: boolean, body: unknown) => Promise<Answered>, site: CallSite): Promise<Verdict & { ms: number }> {
  const t0 = performance.now();
  const sent = await send(false, MALFORMED_BODY);
  if (sent.kind === "failed") return { ...sent.verdict, ms: sent.ms };
  try {
    const text = await sent.call.errorText();
    return { ...readErrorAnswer(site, sent.call.response.status, text, sent.call.response.headers), ms: Math.round(performance.now() - t0) };
  } catch (err) {
    if (!(err instanceof UpstreamCallError)) throw err;
    return { ok: false, detail: `the connection broke while the error answer came (${err.code})`, ms: Math.round(performance.now() - t0) };
  }
}

export type ProviderDoctor = ReturnType<typeof createProviderDoctor>;
