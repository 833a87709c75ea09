// R23.4: what the contract doctor reads off an upstream's answers, and what it then tells the user.
// Pure: each reading takes what came over the wire and returns a verdict whose detail is a sentence
// the user can act on (fix the base URL, the format, the key), never an upstream's raw dump.
import { createParser } from "eventsource-parser";
import type { ProviderFormat, WireFormat } from "../../shared/types.js";
import { mergeUsage, type HubUsage } from "../gateway/formats/hub.js";
import { providerAdapterFor, upstreamHalf, upstreamHalves } from "../gateway/formats/index.js";
import { asRecord, asString, parseJson } from "../gateway/formats/values.js";

export interface Verdict {
  ok: boolean;
  detail?: string;
}

/** A failure that the remaining checks would only repeat (the upstream cannot be reached or refuses the key or the URL). */
export interface CallVerdict extends Verdict {
  blocking?: boolean;
}

/** What a check knows about the call it reads: where it went and on whose behalf. */
export interface CallSite {
  format: ProviderFormat;
  upstreamFormat: WireFormat;
  /** The provider's base URL as shown to the user (credentials in it removed). */
  baseUrl: string;
  /** The path Switchyard appended, without its query. */
  path: string;
  model: string;
  connectionName: string;
}

/** The doctor's expectations of an upstream of this format (its upstream half's contract, R22.5). */
const contractOf = (format: WireFormat) => upstreamHalf(format).contract;

/** Upstream text quoted in a detail: one line, short. */
function quote(text: string, max = 120): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/** Which format's answer a JSON body is, by the keys only that format's answers carry. */
export function answerShapeOf(body: unknown): WireFormat | null {
  const r = asRecord(body);
  return r ? (upstreamHalves().find((half) => half.contract.isAnswer(r))?.format ?? null) : null;
}

/** Which format's error body this is (Google's may come as a one-element array); formats that share a shape answer as the first of them. */
export function errorShapeOf(body: unknown): WireFormat | null {
  const r = asRecord(Array.isArray(body) && body.length === 1 ? body[0] : body);
  const error = asRecord(r?.["error"]);
  if (!r || !error || typeof error["message"] !== "string") return null;
  return upstreamHalves().find((half) => half.contract.errorShape.matches(r, error))?.format ?? null;
}

function errorMessageOf(text: string): string {
  const body = parseJson(text);
  const r = asRecord(Array.isArray(body) ? body[0] : body);
  return quote(asString(asRecord(r?.["error"])?.["message"]) ?? text);
}

function wrongUrl(site: CallSite): string {
  return `the base URL ${site.baseUrl} answers 404 for ${site.path}; ${providerAdapterFor(site.format).baseUrlConvention}`;
}

/** The sentence for an answer that is no answer (any status but 2xx); blocking when retrying other checks is pointless. */
export function statusVerdict(site: CallSite, status: number, text: string, headers: Record<string, string | string[] | undefined>): CallVerdict {
  const message = errorMessageOf(text);
  const said = message ? `: ${message}` : "";
  if (status >= 300 && status < 400) {
    const location = headers["location"];
    return { ok: false, blocking: true, detail: `the base URL ${site.baseUrl} redirects (${status} to ${String(location ?? "elsewhere")}): use the address it redirects to` };
  }
  if (status === 401) return { ok: false, blocking: true, detail: `the upstream refused the key of connection "${site.connectionName}" (401${said}): check its API key` };
  if (status === 403) {
    return {
      ok: false,
      blocking: true,
      detail: `the upstream refused connection "${site.connectionName}" (403${said}): check its API key and that the account may use model "${site.model}"`,
    };
  }
  if (status === 404) {
    // An upstream that knows the path but not the model says so in its own error body.
    if (/\bmodel\b/i.test(message)) return { ok: false, blocking: true, detail: `the upstream does not know model "${site.model}" (404${said}): check the provider's model list` };
    return { ok: false, blocking: true, detail: wrongUrl(site) };
  }
  if (status === 429) return { ok: false, detail: `the upstream rate-limits connection "${site.connectionName}" right now (429${said}): the key works; check again later` };
  if (status >= 500) return { ok: false, detail: `the upstream failed (${status}${said}): check again later, or check the server behind ${site.baseUrl}` };
  return { ok: false, detail: `the upstream refused the request (${status}${said})` };
}

/** The call never got an answer: nothing listens there, or nothing came back in time. */
export function transportVerdict(site: CallSite, code: string, timedOut: boolean, ceilingMs: number): CallVerdict {
  if (timedOut) return { ok: false, blocking: true, detail: `no answer from ${site.baseUrl} within ${Math.round(ceilingMs / 1000)} s: the upstream is slow or does not answer` };
  return { ok: false, blocking: true, detail: `could not reach ${site.baseUrl} (${code}): check the base URL's host and port, and that the server is running` };
}

/** A 2xx answer to a plain request: JSON in the provider's own format, else why not. */
export function readAnswer(site: CallSite, text: string): Verdict & { body?: unknown } {
  const body = parseJson(text);
  if (body === undefined) {
    return { ok: false, detail: `the answer is not JSON (it starts "${quote(text, 60)}"): the base URL ${site.baseUrl} may point at a web page or another service, not the API` };
  }
  const expected = site.upstreamFormat;
  const shape = answerShapeOf(body);
  if (shape === expected) return { ok: true, body };
  if (shape !== null) {
    return {
      ok: false,
      detail: `the upstream answered in the ${contractOf(shape).title} shape, not ${contractOf(expected).title}: set the provider's format to "${shape}", or point its base URL at an endpoint that speaks ${contractOf(expected).title}`,
    };
  }
  const keys = Object.keys(asRecord(body) ?? {}).slice(0, 5);
  return {
    ok: false,
    detail: `the answer is JSON but not a ${contractOf(expected).title} response (it has ${keys.length ? keys.join(", ") : "no fields"}): check the provider's format and base URL`,
  };
}

/** The answer to the request that offered a tool: a call of that tool with JSON arguments, or an answer in text. */
export function readToolAnswer(site: CallSite, body: unknown, toolName: string): Verdict {
  const hub = upstreamHalf(site.upstreamFormat).responseToHub(body, "doctor");
  const call = hub.parts.find((p) => p.type === "tool_call");
  if (!call) {
    const text = hub.parts.some((p) => p.type === "text" && p.text.trim() !== "");
    return text
      ? { ok: true, detail: "the tool definition was accepted; the model answered in text instead of calling it" }
      : { ok: false, detail: "the answer carries neither a tool call nor text" };
  }
  if (call.name !== toolName) return { ok: false, detail: `the model called "${call.name}", a tool it was not offered` };
  if (!asRecord(parseJson(call.arguments || "{}"))) return { ok: false, detail: `the tool call's arguments are not a JSON object ("${quote(call.arguments, 60)}")` };
  return { ok: true };
}

/** Whether a usage report has both counts the gateway records. */
export function reportsUsage(usage: HubUsage | undefined | null): boolean {
  return usage !== undefined && usage !== null && usage.inputTokens !== null && usage.outputTokens !== null;
}

export interface StreamReading extends Verdict {
  /** The usage the stream reported (merged over its events), or null when it reported none. */
  usage: HubUsage | null;
}

/** A 2xx answer to a streaming request: SSE in the provider's format that carries content and ends as the format ends a stream. */
export function readStream(site: CallSite, contentType: string, text: string): StreamReading {
  const events: Array<{ event?: string; data: string }> = [];
  const parser = createParser({ onEvent: (evt) => events.push({ event: evt.event, data: evt.data }) });
  parser.feed(text);
  parser.reset({ consume: true });
  if (!contentType.includes("text/event-stream") && events.length === 0) {
    const json = parseJson(text) !== undefined;
    return {
      ok: false,
      usage: null,
      detail: json
        ? "asked to stream, the upstream answered with one JSON body instead of an event stream: this server does not stream, and coding agents need it to"
        : `asked to stream, the upstream answered ${contentType || "without a content type"}, not an event stream (it starts "${quote(text, 60)}")`,
    };
  }
  if (events.length === 0) return { ok: false, usage: null, detail: "the event stream carried no events: the upstream ended it at once" };
  const malformed = events.find((e) => e.data.trim() !== "[DONE]" && parseJson(e.data) === undefined);
  if (malformed) return { ok: false, usage: null, detail: `the stream sent an event whose data is not JSON ("${quote(malformed.data, 60)}")` };
  const decoder = upstreamHalf(site.upstreamFormat).streamDecoder({ clientModel: site.model, requestId: "doctor" });
  let usage: HubUsage | null = null;
  let content = false;
  let finished = false;
  for (const evt of events) {
    for (const hub of decoder.decode(evt)) {
      if (hub.type === "error") return { ok: false, usage, detail: `the stream reported an error: ${quote(hub.message)}` };
      if (hub.type === "text" || hub.type === "reasoning" || hub.type === "tool_start") content = true;
      if (hub.type === "finish" || hub.type === "done") finished = true;
      if ((hub.type === "usage" || hub.type === "start") && hub.usage) usage = usage ? mergeUsage(usage, hub.usage) : hub.usage;
    }
  }
  if (!content) {
    return {
      ok: false,
      usage,
      detail: `the stream carried no text as ${contractOf(site.upstreamFormat).title} events (first event: "${quote(events[0].data, 60)}"): check the provider's format`,
    };
  }
  if (!finished)
    return {
      ok: false,
      usage,
      detail: `the stream ended without its closing events (${contractOf(site.upstreamFormat).streamEnd}): the upstream, or a proxy in between, cut it short`,
    };
  return { ok: true, usage };
}

/** Token usage on the JSON answer and, when the stream answered, on the stream. */
export function usageVerdict(site: CallSite, json: HubUsage | undefined, stream: HubUsage | null | undefined): Verdict {
  const contract = contractOf(site.upstreamFormat);
  if (!reportsUsage(json)) {
    return {
      ok: false,
      detail: `the answer reports no token usage (${contract.usageFields} of ${contract.title}): Switchyard cannot count this provider's tokens or cost, and budgets cannot see its traffic`,
    };
  }
  if (stream !== undefined && !reportsUsage(stream)) {
    const asked = contract.streamUsageAsk ? ` although ${contract.streamUsageAsk} asked for it` : "";
    return {
      ok: false,
      detail: `streamed answers report no token usage${asked}: Switchyard cannot count the tokens or cost of streamed requests, which is what coding agents send`,
    };
  }
  return { ok: true };
}

/** The answer to a body that is not JSON: an error status with an error body in the format's own shape. */
export function readErrorAnswer(site: CallSite, status: number, text: string, headers: Record<string, string | string[] | undefined>): Verdict {
  if (status < 300) return { ok: false, detail: `the upstream accepted a request whose body is not JSON (${status}): it will not report a client's mistakes as errors` };
  if (status < 400 || status === 401 || status === 403 || status === 404) return statusVerdict(site, status, text, headers);
  const body = parseJson(text);
  const expected = contractOf(site.upstreamFormat).errorShape;
  if (body === undefined) return { ok: false, detail: `the error answer (${status}) is not JSON (it starts "${quote(text, 60)}"): clients cannot read this upstream's errors` };
  const format = errorShapeOf(body);
  const shape = format && contractOf(format).errorShape;
  if (shape === expected) return status >= 500 ? { ok: true, detail: `the error body has the right shape, but the status is ${status} where 400 was expected` } : { ok: true };
  if (shape) {
    return { ok: false, detail: `the error body (${status}) is in ${shape.title} shape, not ${expected.title}: check the provider's format` };
  }
  return { ok: false, detail: `the error body (${status}) is not in ${expected.title} shape: clients will not understand this upstream's errors` };
}
