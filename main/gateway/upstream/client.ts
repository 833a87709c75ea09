// Upstream HTTP over one keep-alive undici Agent, through its dispatch API (DESIGN.md: not
// fetch()). request() would wrap each call in an async resource, a promise of its own and a
// Readable body: on the hot path that cost more than Switchyard's own work on the answer (issue
// 12). The handler here parses the headers as request() does, answers the status and headers as
// soon as they arrive and feeds the body to an UpstreamBody; the caller's signal aborts it the
// same way (its reason is the error, before or after the headers).
import { Agent, errors, util, type Dispatcher } from "undici";
import type { TransportCause, TransportFailure } from "../../engine/failure.js";
import { markLowerCaseNames } from "../../engine/retryHints.js";
import { UpstreamBody } from "./body.js";
import type { Cancellation } from "./cancellation.js";

export interface UpstreamRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  signal: Cancellation;
  /**
   * Silence allowed before the response headers and between body chunks (R13.7: "no byte at all";
   * the stream watchdogs are stricter and run above this). One value for both phases lets undici
   * refresh one parser timer per call instead of making a new one per phase (issue 12).
   */
  idleTimeoutMs: number;
  /** R12.5: bind the socket to this local address (the connection's egress IP). */
  localAddress?: string | null;
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: UpstreamBody;
}

export interface UpstreamClient {
  send(req: UpstreamRequest): Promise<UpstreamResponse>;
  close(): Promise<void>;
}

const aborted = () => new errors.RequestAbortedError();

/**
 * A Cancellation's reason as the Error undici's abort takes. The reasons are Errors in practice
 * (a DOMException is one); anything else is wrapped rather than handed to undici as it is.
 */
const stopReason = (signal: Cancellation): Error => {
  const reason = signal.reason ?? aborted();
  return reason instanceof Error ? reason : new Error("The upstream request was stopped", { cause: reason });
};

/** One call: undici's handler on one side, the caller's promise and the body on the other. */
class UpstreamExchange implements Dispatcher.DispatchHandler {
  private abortRequest: ((reason?: Error) => void) | null = null;
  /** Why the call was stopped before undici handed over its abort. */
  private reason: Error | null = null;
  private body: UpstreamBody | null = null;
  private readonly onSignal = () => this.stop(stopReason(this.signal));

  constructor(
    private readonly signal: Cancellation,
    private resolve: ((res: UpstreamResponse) => void) | null,
    private reject: ((err: unknown) => void) | null,
  ) {
    if (signal.aborted) this.reason = stopReason(signal);
    else signal.addEventListener("abort", this.onSignal);
  }

  onConnect(abort: (reason?: Error) => void): void {
    if (this.reason !== null) return abort(this.reason);
    this.abortRequest = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    if (statusCode < 200) return true;
    const abort = this.abortRequest!;
    this.body = new UpstreamBody(resume, abort, aborted);
    const resolve = this.resolve!;
    this.resolve = this.reject = null;
    // undici names every parsed header in lower case.
    const headers = markLowerCaseNames(util.parseHeaders(rawHeaders) as UpstreamResponse["headers"]);
    resolve({ status: statusCode, headers, body: this.body });
    return true;
  }

  onData(chunk: Buffer): boolean {
    return this.body!.push(chunk);
  }

  onComplete(): void {
    this.signal.removeEventListener("abort", this.onSignal);
    this.body!.end();
  }

  onError(err: Error): void {
    this.signal.removeEventListener("abort", this.onSignal);
    if (this.body) return this.body.fail(err);
    const reject = this.reject;
    this.resolve = this.reject = null;
    reject?.(err);
  }

  private stop(reason: Error): void {
    if (this.body) return this.body.destroy(reason);
    if (this.abortRequest) return this.abortRequest(reason);
    this.reason = reason;
  }
}

/** The origin and path undici's request() would derive from the URL, cached: the set of URLs is small. */
const targets = new Map<string, { origin: string; path: string }>();
const MAX_CACHED_TARGETS = 512;

function targetOf(url: string): { origin: string; path: string } {
  let target = targets.get(url);
  if (!target) {
    const u = new URL(url);
    target = { origin: u.origin, path: u.search ? `${u.pathname}${u.search}` : u.pathname };
    if (targets.size >= MAX_CACHED_TARGETS) targets.clear();
    targets.set(url, target);
  }
  return target;
}

export function createUpstreamClient(): UpstreamClient {
  const options = { keepAliveTimeout: 30_000, keepAliveMaxTimeout: 300_000, connections: 128, pipelining: 1 };
  const agent = new Agent(options);
  // One pool per bound address: a keep-alive socket must never carry a request for another egress IP.
  const bound = new Map<string, Agent>();
  const dispatcherFor = (localAddress: string | null | undefined): Agent => {
    if (!localAddress) return agent;
    let pool = bound.get(localAddress);
    if (!pool) {
      pool = new Agent({ ...options, localAddress });
      bound.set(localAddress, pool);
    }
    return pool;
  };
  return {
    send(req) {
      return new Promise<UpstreamResponse>((resolve, reject) => {
        const { origin, path } = targetOf(req.url);
        const exchange = new UpstreamExchange(req.signal, resolve, reject);
        dispatcherFor(req.localAddress).dispatch(
          { origin, path, method: "POST", headers: req.headers, body: req.body, headersTimeout: req.idleTimeoutMs, bodyTimeout: req.idleTimeoutMs },
          exchange,
        );
      });
    },
    close: async () => {
      await Promise.all([agent, ...bound.values()].map((a) => a.close()));
    },
  };
}

/** The error's own code: an errno or undici code, its cause's, else its name (a DOMException's numeric code is no name). */
function rawCode(err: unknown): string {
  for (const value of [field(err, "code"), field(field(err, "cause"), "code"), field(err, "name")]) {
    if (typeof value === "string" && value !== "") return value;
  }
  return "TRANSPORT_ERROR";
}

function field(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null ? (Reflect.get(value, key) as unknown) : undefined;
}

/** R13.6 / R13.7: what undici and Node report when a connect, the headers or the body took too long. */
const TIMEOUT_CODES = new Set(["ETIMEDOUT", "ESOCKETTIMEDOUT", "UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "TIMEOUT"]);
const CAUSE_BY_CODE: Record<string, TransportCause> = {
  ECONNREFUSED: "refused",
  ECONNRESET: "reset",
  EPIPE: "reset",
  UND_ERR_SOCKET: "reset",
  UND_ERR_CLOSED: "reset",
  ERR_STREAM_PREMATURE_CLOSE: "reset",
  ENOTFOUND: "dns",
  EAI_AGAIN: "dns",
  ABORTERROR: "aborted",
  UND_ERR_ABORTED: "aborted",
};

function causeOf(code: string): TransportCause {
  const upper = code.toUpperCase();
  if (TIMEOUT_CODES.has(upper)) return "timeout";
  if (upper.startsWith("ERR_TLS_") || upper.includes("CERT")) return "tls";
  return CAUSE_BY_CODE[upper] ?? "other";
}

/** The one place an undici or Node error is named: the classifier reads the cause, the logs the code. */
export function transportFailureOf(err: unknown): TransportFailure {
  const code = rawCode(err);
  return { kind: "transport", cause: causeOf(code), code };
}
