import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from "node:http";
import { control, type ControlDeps } from "./control.js";
import { readConversation } from "./conversation.js";
import { FaultBook, InvalidFaultError, parseFault, toolLimitRefusal } from "./faults.js";
import { contextRefusal, promptTokens } from "./contextWindow.js";
import { readBody, sendJson } from "./http.js";
import { composeAnswer, type Answer } from "./reply.js";
import { PromptCaches } from "./promptCache.js";
import { codexModelList, formatOfPath, matchRoute, modelList, readKey, tokenCount, type Route } from "./routes.js";
import { Pacer, playStream } from "./stream.js";
import { sendCutStream } from "./streamCut.js";
import type { FaultSpec, SimulatedRequest, Simulator, SimulatorOptions, WireFormat } from "./types.js";
import { anthropicWriter } from "./wire/anthropic.js";
import { geminiChunks, geminiWriter } from "./wire/gemini.js";
import { artifactRefusal, randomId, type ArtifactRefusal } from "./wire/artifacts.js";
import { anthropicSignatureRefusal, geminiSignatureRefusal } from "./wire/signatures.js";
import { openaiWriter } from "./wire/openai.js";
import { defaultErrorMessage, type ReplyContext, type WireWriter } from "./wire/plan.js";
import { compactionAnswer, responsesWriter } from "./wire/responses.js";
import { isRecord } from "./records.js";
import { parseUsageWall, UsageWalls } from "./usageWall.js";
import { QuotaMeters } from "./quotaMeters.js";
import { streamErrorEvent } from "./wire/errorEvent.js";
import { Subscriptions, type Login, type StreamCut } from "./subscriptions.js";

export type { FaultSpec, SimulatedRequest, Simulator, SimulatorOptions, WireFormat } from "./types.js";
export type { SubscriptionState } from "./subscriptions.js";
export type { StreamExhaustionSpec, SubscriptionSpec, UsageChange } from "./subscriptionSpecs.js";

const WRITERS: Record<WireFormat, WireWriter> = {
  openai: openaiWriter,
  "openai-responses": responsesWriter,
  anthropic: anthropicWriter,
  gemini: geminiWriter,
};
const DEFAULT_RECORD_LIMIT = 1000;
const SAFE_HEADER_VALUE = /^[\x20-\x7e]*$/;

function replyId(format: WireFormat, seq: number): string {
  if (format === "openai") return `chatcmpl-sim-${seq}`;
  if (format === "anthropic") return `msg_sim_${seq}`;
  // Responses ids are unique across runs: a gateway may keep the responses it served (R16.4).
  if (format === "openai-responses") return randomId("resp");
  return `sim-${seq}`;
}

function looksLikeJson(text: string): boolean {
  const first = text.trimStart()[0];
  return first === "{" || first === "[";
}

/** Headers every upstream response carries, plus the fault's rate-limit hints and extras. */
function responseHeaders(key: string | null, label: string, fault: FaultSpec | undefined): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = { "x-sim-label": label };
  if (key !== null) headers["x-sim-key"] = SAFE_HEADER_VALUE.test(key) ? key : encodeURIComponent(key);
  if (!fault) return headers;
  if (fault.retryAfter !== undefined) headers["retry-after"] = String(fault.retryAfter);
  if (fault.retryAfterMs !== undefined) headers["retry-after-ms"] = String(fault.retryAfterMs);
  if (fault.headers) for (const name in fault.headers) headers[name.toLowerCase()] = fault.headers[name];
  return headers;
}

/**
 * The real upstream's refusal of reasoning artifacts this key did not issue (R16.7, R20.1), or null:
 * Responses blobs and ids, Anthropic thinking signatures, Gemini thought signatures.
 */
function foreignRefusal(format: WireFormat, body: unknown, key: string | null): ArtifactRefusal | null {
  if (format === "openai-responses") return artifactRefusal(body, key);
  const message = format === "anthropic" ? anthropicSignatureRefusal(body, key) : format === "gemini" ? geminiSignatureRefusal(body, key) : null;
  return message ? { status: 400, body: WRITERS[format].error(400, message) } : null;
}

interface Call {
  req: IncomingMessage;
  res: ServerResponse;
  route: Route;
  model: string;
  key: string | null;
  stream: boolean;
  body: unknown;
  fault: FaultSpec | undefined;
  /** Headers of a usage wall the request passed (R12.6 slow lane). */
  wallHeaders?: OutgoingHttpHeaders;
  /** The subscription login the request presented (R21.9). */
  login?: Login;
  /** What the simulation reads back of this call (usage, window exhaustion). */
  entry: SimulatedRequest;
}

export async function startSimulator(opts: SimulatorOptions = {}): Promise<Simulator> {
  const label = opts.label ?? "simulator";
  const host = opts.host ?? "127.0.0.1";
  const recordLimit = opts.recordLimit ?? DEFAULT_RECORD_LIMIT;
  const faults = new FaultBook();
  const walls = new UsageWalls();
  const baseClock = opts.quotaClock ?? Date.now;
  // POST /__sim/clock moves the window clock ahead, so a test passes a 5-hour reset in a moment.
  let clockOffset = 0;
  const quotaNow = (): number => baseClock() + clockOffset;
  const meters = opts.quotaHeaders ? new QuotaMeters(quotaNow()) : null;
  const subs = new Subscriptions(opts.subscriptions ?? [], opts, quotaNow);
  const requests: SimulatedRequest[] = [];
  let received = 0;
  let seq = 0;

  function record(entry: SimulatedRequest): void {
    received += 1;
    if (recordLimit <= 0) return;
    requests.push(entry);
    if (requests.length > recordLimit) requests.splice(0, requests.length - recordLimit);
  }

  function chooseFault(req: IncomingMessage, key: string | null, entry: SimulatedRequest): FaultSpec | undefined {
    const header = req.headers["x-sim-fault"];
    if (typeof header === "string" && header.length > 0) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(header);
      } catch {
        throw new InvalidFaultError("x-sim-fault is not valid JSON");
      }
      return parseFault(parsed);
    }
    const picked = faults.take(key) ?? opts.pickFault?.(entry);
    return picked ? parseFault(picked) : opts.defaultFault;
  }

  const promptCaches = new PromptCaches();
  function withCache(answer: Answer, call: Call): Answer {
    const use = promptCaches.observe(call.key, call.route.format, call.body, answer.usage.input);
    const served = use.cacheRead || use.cacheWrite ? { ...answer, usage: { ...answer.usage, ...use } } : answer;
    call.entry.usage = served.usage;
    return served;
  }

  /** A stream cut due for this call (R21.9), noted on its record as a used-up window. */
  function takeStreamCut(call: Call): StreamCut | null {
    const cut = call.login && call.stream && call.route.kind === "generate" ? subs.takeStreamCut(call.login) : null;
    if (cut) call.entry.windowExhausted = true;
    return cut;
  }

  async function answer(call: Call): Promise<void> {
    const { req, res, route, fault } = call;
    const writer = WRITERS[route.format];
    // Only a faulted response needs timers that end when the client leaves.
    const pacer = fault ? new Pacer(res) : undefined;
    if (pacer && fault?.latencyMs) {
      await pacer.sleep(fault.latencyMs);
      if (pacer.closed) return;
    }
    if (fault?.reset) {
      req.socket.resetAndDestroy();
      return;
    }
    // A login's token never goes back out: its name stands for it (R21.9).
    const headers = { ...responseHeaders(call.login ? call.login.name : call.key, label, fault), ...call.wallHeaders };
    const toolRefusal = toolLimitRefusal(fault, route.format, call.body);
    if (toolRefusal) return sendJson(res, 400, writer.error(400, toolRefusal), headers);
    const foreign = route.kind === "generate" || route.kind === "compact" ? foreignRefusal(route.format, call.body, call.key) : null;
    if (foreign) return sendJson(res, foreign.status, foreign.body, headers);
    if (fault?.status !== undefined && fault.status !== 200) {
      const body = fault.body ?? writer.error(fault.status, defaultErrorMessage(fault.status));
      if (typeof body === "string" && !looksLikeJson(body)) headers["content-type"] = "text/plain; charset=utf-8";
      sendJson(res, fault.status, body, headers);
      return;
    }
    if (fault?.body !== undefined) {
      if (call.stream) headers["content-type"] = "text/event-stream";
      sendJson(res, 200, fault.body, headers);
      return;
    }
    if (route.kind === "models") {
      sendJson(res, 200, route.chatgptBackend ? codexModelList(label) : modelList(route.format, label), headers);
      return;
    }
    const conversation = readConversation(route.format, call.body);
    if (route.kind === "count_tokens") return sendJson(res, 200, tokenCount(route.format, conversation.promptChars), headers);
    const tooLong = contextRefusal(route.format, fault?.contextWindow ?? opts.contextWindows?.[call.model], promptTokens(conversation.promptChars));
    if (tooLong) {
      call.entry.contextRefused = true;
      return sendJson(res, tooLong.status, tooLong.body, headers);
    }
    seq += 1;
    const ctx: ReplyContext = {
      id: replyId(route.format, seq),
      model: call.model,
      created: Math.floor(Date.now() / 1000),
      answer: withCache(composeAnswer(conversation, opts.replyText ?? `Hello from ${label} (${call.login ? `login ${call.login.name}` : `key ${call.key ?? "none"}`})`), call),
      includeUsage: isRecord(call.body) && isRecord(call.body.stream_options) && call.body.stream_options.include_usage === true,
      body: call.body,
      key: call.key,
    };
    // R21.9: a subscription login answers with its own windows; a due stream cut ends this stream at the limit.
    const cut = takeStreamCut(call);
    if (call.login) Object.assign(headers, cut ? cut.headers : subs.served(call.login));
    // R18.3: a key behind the usage wall answers with the wall's own unified headers instead.
    else if (meters && !call.wallHeaders) Object.assign(headers, meters.served(route.format, call.key, ctx.answer.usage, quotaNow()));
    if (cut) return sendCutStream(res, headers, route.format, writer, ctx, cut);
    if (route.kind === "compact") {
      sendJson(res, 200, compactionAnswer(ctx), headers);
      return;
    }
    if (!call.stream) {
      sendJson(res, 200, writer.json(ctx), headers);
      return;
    }
    if (route.format === "gemini" && !route.sse) {
      const { lead, content, final } = geminiChunks(ctx);
      sendJson(res, 200, [...lead, ...content, final], headers);
      return;
    }
    headers["content-type"] = "text/event-stream";
    headers["cache-control"] = "no-cache";
    res.writeHead(200, headers);
    const errorEvent = fault?.errorEventAfterChunks === undefined ? undefined : streamErrorEvent(route.format, writer, fault.errorEventStatus ?? 529);
    await playStream(res, writer.stream(ctx, (fault?.reasoningOnlyMs ?? 0) > 0), fault, pacer, errorEvent);
  }

  const controlDeps: ControlDeps = {
    faults,
    walls,
    subs,
    quotaNow,
    clockOffset: () => clockOffset,
    setClockOffset: (ms) => (clockOffset = ms),
    requests: () => ({ count: received, requests }),
    clearRequests: () => {
      requests.length = 0;
      received = 0;
    },
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const path = q < 0 ? url : url.slice(0, q);
    const query = q < 0 ? null : new URLSearchParams(url.slice(q + 1));
    const method = req.method ?? "GET";
    if (path.startsWith("/__sim/")) return control(controlDeps, req, res, path, query);
    if (path === "/" && (method === "GET" || method === "HEAD")) {
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8", "x-sim-label": label });
      res.end(method === "HEAD" ? undefined : `Switchyard simulator "${label}": a simulated LLM upstream, not a real provider.\n`);
      return;
    }
    if (path === "/api/oauth/usage" && method === "GET") return sendJson(res, 200, walls.usage(readKey(req.headers, query)));
    if (/^\/api\/organizations\/[^/]+\/reset_rate_limits$/.test(path) && method === "POST") {
      await readBody(req);
      return sendJson(res, 200, walls.claim(readKey(req.headers, query)));
    }
    const route = matchRoute(method, path, query, req.headers);
    // Every Anthropic answer names its request, as Anthropic's do (R21.10 passes it on to the client).
    if ((route?.format ?? formatOfPath(path)) === "anthropic") res.setHeader("request-id", randomId("req", 12));
    if (!route) {
      req.resume();
      const format = formatOfPath(path);
      sendJson(res, 404, WRITERS[format].error(404, `Unknown route ${method} ${path} (simulated upstream)`));
      return;
    }
    const text = method === "POST" ? await readBody(req) : "";
    let body: unknown = null;
    let invalidJson = false;
    if (text.length > 0) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
        invalidJson = true;
      }
    }
    const key = readKey(req.headers, query);
    const model = route.pathModel ?? (isRecord(body) && typeof body.model === "string" ? body.model : "");
    const stream = route.pathStream ?? (isRecord(body) && body.stream === true);
    const entry: SimulatedRequest = {
      path,
      format: route.format,
      model,
      key,
      stream,
      headers: req.headers,
      body,
      rawBody: text,
      at: Date.now(),
      remoteAddress: req.socket.remoteAddress,
    };
    record(entry);
    res.once("finish", () => (entry.status = res.statusCode));
    // R21.9: ChatGPT-backend routes serve only ChatGPT logins; Anthropic routes only known logins once some are configured.
    const auth = subs.authenticate(route.format, route.chatgptBackend === true, key, req.headers);
    if (auth.kind === "refuse") {
      req.resume();
      return sendJson(res, auth.refusal.status, auth.refusal.body, { "x-sim-label": label, ...auth.refusal.headers });
    }
    const login = auth.kind === "login" ? auth.login : undefined;
    if (login) entry.login = login.name;
    if (invalidJson) {
      sendJson(res, 400, WRITERS[route.format].error(400, "Request body is not valid JSON (simulated upstream)"));
      return;
    }
    const wall = route.kind === "models" || route.kind === "count_tokens" ? null : walls.check(key, req.headers);
    if (wall?.kind === "reject") return sendJson(res, wall.status, WRITERS[route.format].error(wall.status, wall.message), { "x-sim-label": label, ...wall.headers });
    // R21.9: a login whose window is used up is refused until the window's reset.
    const exhausted = login && (route.kind === "generate" || route.kind === "compact") ? subs.refusal(login) : null;
    if (exhausted) entry.windowExhausted = true;
    if (login && exhausted) return sendJson(res, exhausted.status, exhausted.body, { "x-sim-label": label, "x-sim-key": login.name, ...exhausted.headers });
    const fault = chooseFault(req, key, entry);
    if (fault) entry.fault = fault;
    await answer({ req, res, route, model, key, stream, body, fault, wallHeaders: wall?.headers, login, entry });
  }

  const server = createServer({ noDelay: true }, (req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (res.headersSent || res.destroyed) {
        res.destroy();
        return;
      }
      const status = err instanceof InvalidFaultError ? 400 : 500;
      const message = err instanceof Error ? err.message : String(err);
      const url = req.url ?? "/";
      const format = url.startsWith("/__sim/") ? "openai" : formatOfPath(url);
      sendJson(res, status, WRITERS[format].error(status, message));
    });
  });
  server.keepAliveTimeout = 30_000;
  // Stalls are deliberate: only the client (or close()) ends them.
  server.requestTimeout = 0;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("simulator: the server is not listening on a TCP port");
  const port = address.port;
  const urlHost = host.includes(":") ? `[${host}]` : host;

  return {
    url: `http://${urlHost}:${port}`,
    port,
    requests,
    addFault: (key, fault) => faults.add(key, fault),
    setUsageWall: (key, spec) => walls.set(key, parseUsageWall(spec)),
    clearUsageWall: (key) => walls.clear(key),
    clearFaults: (key) => faults.clear(key),
    subscriptions: () => subs.states(),
    setSubscriptionUsage: (login, change) => subs.changeUsage(login, change),
    exhaustInStream: (login, spec = {}) => subs.setStreamCut(login, spec),
    advanceClock: (ms) => {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError("advanceClock: ms must be a non-negative number");
      clockOffset += ms;
      return quotaNow();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
