// One client request, end to end (DESIGN.md "One request"): resolve the model, then for each
// target and each eligible connection ask the engine, call upstream, tell the engine what happened.
import { randomUUID } from "node:crypto";
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import type { AppSettings, AttemptRecord, Connection, Provider, RequestLogEntry, SwitchyardEvent, WireFormat } from "../../shared/types.js";
import type { AttemptContext, BreakerSnapshot, Clock, ResilienceEngine, Verdict } from "../engine/ports.js";
import type { Store } from "../store/types.js";
import {
  createStreamTranslator, errorBody, errorFrame, extractUsage, isStreamRequest, translateRequest, translateResponse, upstreamPath,
} from "./formats/index.js";
import { errorFromExclusions, errorFromVerdict, exclusionFromConnection, type Exclusion, type FinalError } from "./outcome.js";
import { resolveModel, type Target } from "./resolve.js";
import { relayStream, type StreamBudgets, type StreamFailureCode } from "./streaming/relay.js";
import { readBodyText, transportErrorCode, type UpstreamClient, type UpstreamResponse } from "./upstream/client.js";
import { buildUpstreamHeaders } from "./upstream/headers.js";
import { redactSecret } from "./redact.js";

export interface PipelineBudgets extends StreamBudgets {
  /** R13.2: fail over on a stream failure before any client-visible content. */
  recoveryEnabled: boolean;
  /** Keep-alive frames to a waiting streaming client (Anthropic `ping`, SSE comments for OpenAI). */
  heartbeatMs: number;
}

export interface PipelineDeps {
  store: Store;
  engine: ResilienceEngine & { breakerSnapshot(provider: Provider): BreakerSnapshot };
  upstream: UpstreamClient;
  clock: Clock;
  appSettings: () => AppSettings;
  streamBudgets: () => PipelineBudgets;
  userAgent: string;
  /** Where a provider's requests go (a `simulator` provider without baseUrl uses the built-in one). */
  baseUrlFor: (provider: Provider) => Promise<string>;
  /** Live events for the dashboard (R15.2): one `request` event per finished request. */
  emit: (event: SwitchyardEvent) => void;
}

export interface ClientCall {
  format: WireFormat;
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  res: ServerResponse;
  /** R1.7: a client key limited to these connections (null = any). */
  allowedConnections?: Set<string> | null;
}

/** How each stream failure is presented to the classifier (R12.1 reasons stream_* / transport / timeout). */
const STREAM_FAILURE_TRANSPORT: Record<StreamFailureCode, string> = {
  STREAM_EARLY_EOF: "STREAM_EARLY_EOF",
  stream_content_stall: "STREAM_CONTENT_STALL",
  stream_idle_timeout: "STREAM_STALL",
  stream_attempt_deadline: "ETIMEDOUT",
  STREAM_THROUGHPUT_TOO_LOW: "STREAM_THROUGHPUT_TOO_LOW",
  stream_transport_error: "ECONNRESET",
};

type AttemptResult = { done: true } | { done: false; verdict: Verdict };

class RequestRun {
  readonly id = randomUUID();
  readonly startedAt = Date.now();
  readonly attempts: AttemptRecord[] = [];
  readonly exclusions: Exclusion[] = [];
  readonly abort = new AbortController();
  ttfbMs: number | null = null;
  earlyEofRetries = 0;
  logged = false;

  constructor(readonly call: ClientCall, readonly model: string) {}

  private heartbeat: NodeJS.Timeout | null = null;

  get clientGone(): boolean {
    return this.abort.signal.aborted;
  }

  /**
   * While a streaming client waits for the first content (slow upstream, failover), commit the
   * 200 stream and send keep-alive frames so proxies and clients do not time out (R13).
   */
  startHeartbeat(everyMs: number, headers: () => Record<string, string>): void {
    const { res, format } = this.call;
    const frame = format === "anthropic" ? 'event: ping\ndata: {"type":"ping"}\n\n' : ": keep-alive\n\n";
    this.heartbeat = setInterval(() => {
      if (res.writableEnded || this.clientGone) return this.stopHeartbeat();
      if (!res.headersSent) res.writeHead(200, { ...headers(), ...SSE_HEADERS });
      res.write(frame);
    }, everyMs);
    this.heartbeat.unref();
  }

  stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }
}

const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-accel-buffering": "no",
} as const;

export function createPipeline(deps: PipelineDeps) {
  const { store, engine } = deps;

  function baseHeaders(run: RequestRun): Record<string, string> {
    return { "X-Switchyard-Request-Id": run.id, "X-Switchyard-Attempts": String(run.attempts.length) };
  }

  function log(run: RequestRun, status: number, extra: Partial<RequestLogEntry>): void {
    if (run.logged) return;
    run.logged = true;
    const last = run.attempts[run.attempts.length - 1];
    const entry: RequestLogEntry = {
      id: run.id,
      time: run.startedAt,
      clientFormat: run.call.format,
      model: run.model,
      combo: null,
      provider: last?.provider ?? null,
      connectionId: last?.connectionId ?? null,
      status,
      errorCode: null,
      latencyMs: Date.now() - run.startedAt,
      ttfbMs: run.ttfbMs,
      stream: isStreamRequest(run.call.format, run.call.body),
      inputTokens: null,
      outputTokens: null,
      attempts: run.attempts,
      ...extra,
    };
    store.logs.append(entry);
    deps.emit({ type: "request", entry, at: deps.clock.now() });
  }

  function sendError(run: RequestRun, err: FinalError, combo: string | null): void {
    const { res } = run.call;
    if (res.headersSent) {
      // Heartbeats already committed a 200 stream: the verdict goes out as an error event.
      if (!res.writableEnded) res.end(errorFrame(run.call.format, err.code, err.message));
      log(run, err.status, { errorCode: err.code, combo });
      return;
    }
    const headers: Record<string, string> = { ...baseHeaders(run), "content-type": "application/json", ...err.headers };
    if (err.retryAfterMs !== null && err.retryAfterMs !== undefined) headers["retry-after"] = String(Math.max(1, Math.ceil(err.retryAfterMs / 1000)));
    if (err.noRetry) headers["x-should-retry"] = "false";
    res.writeHead(err.status, headers);
    res.end(JSON.stringify(errorBody(run.call.format, err.status, err.code, err.message, err.extra)));
    log(run, err.status, { errorCode: err.code, combo });
  }

  /** Earliest instant (ms from now) at which a connection of the tried providers leaves its cooldown. */
  function earliestRecoveryMs(providers: Set<string>): number | null {
    const now = deps.clock.now();
    let best: number | null = null;
    for (const id of providers) {
      for (const c of store.connections.list({ provider: id })) {
        if (c.rateLimitedUntil && c.rateLimitedUntil > now) best = best === null ? c.rateLimitedUntil - now : Math.min(best, c.rateLimitedUntil - now);
      }
    }
    return best;
  }

  async function attempt(run: RequestRun, target: Target, connection: Connection, probe: boolean, combo: string | null): Promise<AttemptResult> {
    const { provider, model } = target;
    const { call } = run;
    const ctx: AttemptContext = { provider, connection, model, probe };
    const upstreamFormat: WireFormat = provider.format === "simulator" ? call.format : provider.format;
    const stream = isStreamRequest(call.format, call.body);
    const { body, dropped } = translateRequest(call.format, upstreamFormat, call.body, model);
    const url = (await deps.baseUrlFor(provider)).replace(/\/+$/, "") + upstreamPath(upstreamFormat, model, stream);
    const secret = store.connections.getSecret(connection.id);
    const headers = buildUpstreamHeaders(provider, upstreamFormat, call.format, secret, call.headers, deps.userAgent);
    const attemptAbort = new AbortController();
    const onClientAbort = () => attemptAbort.abort();
    run.abort.signal.addEventListener("abort", onClientAbort, { once: true });
    const t0 = Date.now();
    const record = (status: number | null, verdict: string | null) =>
      run.attempts.push({ provider: provider.id, connectionId: connection.id, model, status, verdict, latencyMs: Date.now() - t0 });
    const fail = (status: number | null, bodyText: string, respHeaders: UpstreamResponse["headers"], transportError: string | null): Verdict => {
      const verdict = engine.classify({ provider, status, headers: respHeaders, bodyText, transportError, model });
      engine.recordFailure(ctx, verdict);
      record(status, verdict.reason);
      return verdict;
    };
    const budgets = deps.streamBudgets();
    // R13.6: one hard deadline for the whole attempt, JSON bodies included (the stream relay
    // keeps its own, which reports the failure in the stream's terms).
    let deadlineHit = false;
    const deadline = budgets.attemptDeadlineMs > 0
      ? setTimeout(() => {
          deadlineHit = true;
          attemptAbort.abort();
        }, budgets.attemptDeadlineMs)
      : null;
    deadline?.unref();
    const transportFailure = (err: unknown): AttemptResult => {
      if (run.clientGone) {
        engine.recordNeutral(ctx);
        record(null, "client_abort");
        log(run, 499, { combo, errorCode: "client_closed_request" });
        return { done: true };
      }
      return { done: false, verdict: fail(null, "", {}, deadlineHit ? "ETIMEDOUT" : transportErrorCode(err)) };
    };
    try {
      let up: UpstreamResponse;
      try {
        up = await deps.upstream.send({
          url, headers, body: JSON.stringify(body), signal: attemptAbort.signal,
          headersTimeoutMs: budgets.attemptDeadlineMs || 600_000,
          bodyTimeoutMs: budgets.idleTimeoutMs || 300_000,
        });
      } catch (err) {
        return transportFailure(err);
      }
      if (up.status >= 400) {
        const text = redactSecret(await readBodyText(up.body).catch(() => ""), secret);
        const verdict = fail(up.status, text, up.headers, null);
        if (!verdict.failover) {
          passUpstreamError(run, verdict, text, upstreamFormat, combo);
          return { done: true };
        }
        return { done: false, verdict };
      }
      const successHeaders = (): Record<string, string> => ({
        ...baseHeaders(run),
        "X-OmniRoute-Selected-Connection-Id": connection.id,
        ...(dropped.length ? { "X-Switchyard-Dropped-Fields": dropped.join(",") } : {}),
      });
      const isSse = String(up.headers["content-type"] ?? "").includes("text/event-stream");
      if (!stream || !isSse) {
        let text: string;
        try {
          text = await readBodyText(up.body, 256 * 1024 * 1024);
        } catch (err) {
          // A reset or a deadline while the JSON body arrives: nothing reached the client yet.
          return transportFailure(err);
        }
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          return { done: false, verdict: fail(502, "upstream returned a body that is not JSON", up.headers, null) };
        }
        const out = translateResponse(upstreamFormat, call.format, json, { clientModel: run.model, requestId: run.id });
        engine.recordSuccess(ctx);
        record(up.status, null);
        run.ttfbMs = Date.now() - run.startedAt;
        call.res.writeHead(200, { ...successHeaders(), "content-type": "application/json" });
        call.res.end(JSON.stringify(out));
        const usage = extractUsage(upstreamFormat, json);
        log(run, 200, { combo, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens });
        return { done: true };
      }
      const streamOptions = call.body.stream_options as { include_usage?: unknown } | undefined;
      const translator = createStreamTranslator(upstreamFormat, call.format, {
        clientModel: run.model,
        requestId: run.id,
        includeUsage: call.format !== "openai" || streamOptions?.include_usage === true,
      });
      const outcome = await relayStream({
        upstream: up,
        upstreamFormat,
        translator,
        res: call.res,
        budgets,
        abortUpstream: () => attemptAbort.abort(),
        isClientGone: () => run.clientGone,
        commit: () => {
          run.stopHeartbeat();
          if (call.res.headersSent) return;
          call.res.writeHead(200, {
            ...successHeaders(),
            // This attempt is recorded when it ends; the count already includes it.
            "X-Switchyard-Attempts": String(run.attempts.length + 1),
            ...SSE_HEADERS,
          });
        },
        onFirstOutput: () => (run.ttfbMs = Date.now() - run.startedAt),
      });
      const usage = translator.usage();
      switch (outcome.kind) {
        case "completed":
          engine.recordSuccess(ctx);
          record(200, null);
          call.res.end();
          log(run, 200, { combo, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens });
          return { done: true };
        case "client_gone":
          engine.recordNeutral(ctx);
          record(200, "client_abort");
          log(run, 499, { combo, errorCode: "client_closed_request" });
          return { done: true };
        case "failed_before_output": {
          const verdict = fail(null, outcome.detail, {}, STREAM_FAILURE_TRANSPORT[outcome.code]);
          const eofSpent = outcome.code === "STREAM_EARLY_EOF" && run.earlyEofRetries++ >= 1;
          if (!budgets.recoveryEnabled || eofSpent) {
            sendError(run, errorFromVerdict(verdict, null), combo);
            return { done: true };
          }
          return { done: false, verdict };
        }
        case "failed_after_output": {
          fail(null, outcome.detail, {}, STREAM_FAILURE_TRANSPORT[outcome.code]);
          const code = outcome.code === "stream_transport_error" ? "upstream_stream_error" : outcome.code;
          call.res.end(errorFrame(call.format, code, `Upstream stream failed after output began: ${outcome.detail}`));
          log(run, 200, { combo, errorCode: code, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens });
          return { done: true };
        }
        default:
          return outcome satisfies never;
      }
    } finally {
      if (deadline) clearTimeout(deadline);
      run.abort.signal.removeEventListener("abort", onClientAbort);
    }
  }

  /** A verdict that must not fail over (bad request, context overflow): the client sees it now. */
  function passUpstreamError(run: RequestRun, verdict: Verdict, text: string, upstreamFormat: WireFormat, combo: string | null): void {
    const { res, format } = run.call;
    if (upstreamFormat === format && text.trim().startsWith("{")) {
      res.writeHead(verdict.status, { ...baseHeaders(run), "content-type": "application/json", "x-should-retry": "false" });
      res.end(text);
      log(run, verdict.status, { errorCode: verdict.reason, combo });
      return;
    }
    sendError(run, errorFromVerdict(verdict, null), combo);
  }

  async function handle(call: ClientCall): Promise<void> {
    const model = typeof call.body.model === "string" ? call.body.model : "";
    const run = new RequestRun(call, model);
    call.res.on("close", () => {
      if (!call.res.writableFinished) run.abort.abort();
    });
    const settings = deps.appSettings();
    const resolution = resolveModel(model, {
      providers: store.providers.list(),
      getCombo: (name) => store.combos.get(name),
      aliases: settings.aliases,
    });
    if (!resolution) {
      sendError(run, { status: 404, code: "model_not_found", message: `Unknown model: ${model || "(none)"}`, retryAfterMs: null, noRetry: true }, null);
      return;
    }
    const { targets, combo } = resolution;
    if (isStreamRequest(call.format, call.body)) run.startHeartbeat(deps.streamBudgets().heartbeatMs, () => baseHeaders(run));
    try {
      await dispatch(run, targets, combo);
    } finally {
      run.stopHeartbeat();
    }
  }

  async function dispatch(run: RequestRun, targets: Target[], combo: string | null): Promise<void> {
    let lastVerdict: Verdict | null = null;
    const tried = new Set<string>();
    const triedProviders = new Set<string>();
    const connectionCounts = new Map<string, number>();
    for (const target of targets) {
      const provider: Provider = target.provider;
      const targetName = `${provider.id}/${target.model}`;
      // An OPEN breaker excludes the whole target before its connections are even considered;
      // reading the snapshot refreshes it lazily and never consumes the HALF_OPEN probe.
      const breaker = engine.breakerSnapshot(provider);
      if (breaker.state === "OPEN") {
        const remainingMs = Math.max(0, (breaker.openUntil ?? deps.clock.now()) - deps.clock.now());
        run.exclusions.push({ target: targetName, reason: "circuit_open", remainingMs, provider: provider.id });
        continue;
      }
      const allowed = run.call.allowedConnections;
      const all = store.connections.list({ provider: provider.id }).filter((c) => !allowed || allowed.has(c.id));
      connectionCounts.set(provider.id, all.length);
      const { eligible, excluded } = engine.selectConnections(provider, target.model, all);
      for (const e of excluded) {
        if (!target.connectionId || target.connectionId === e.connectionId) run.exclusions.push(exclusionFromConnection(provider.id, targetName, e));
      }
      if (all.length === 0) run.exclusions.push({ target: targetName, reason: "inactive", remainingMs: null, provider: provider.id });
      for (const connection of eligible) {
        if (target.connectionId && connection.id !== target.connectionId) continue;
        if (tried.has(connection.id + "\u0000" + target.model)) continue;
        const admission = engine.admitProvider(provider);
        if (!admission.allowed) {
          run.exclusions.push({ target: targetName, reason: admission.reason, remainingMs: admission.retryAfterMs, provider: provider.id });
          break;
        }
        tried.add(connection.id + "\u0000" + target.model);
        triedProviders.add(provider.id);
        let result: AttemptResult;
        try {
          result = await attempt(run, target, connection, admission.probe, combo);
        } catch (err) {
          // An attempt that broke inside Switchyard must not hold the HALF_OPEN probe slot.
          engine.recordNeutral({ provider, connection, model: target.model, probe: admission.probe });
          throw err;
        }
        if (result.done) return;
        lastVerdict = result.verdict;
        if (run.clientGone) break;
      }
      if (run.clientGone) break;
    }
    if (run.clientGone) {
      log(run, 499, { combo, errorCode: "client_closed_request" });
      return;
    }
    if (lastVerdict) {
      sendError(run, errorFromVerdict(lastVerdict, earliestRecoveryMs(triedProviders)), combo);
      return;
    }
    sendError(run, errorFromExclusions(run.exclusions, targets.length, combo !== null, connectionCounts), combo);
  }

  return { handle };
}

export type Pipeline = ReturnType<typeof createPipeline>;
