// The browser transport: each contract method becomes its verb + path on the management API,
// authenticated with the admin token; events arrive over GET /api/events (SSE).
import { createParser } from "eventsource-parser";
import { CONTRACT, type ContractCallArgs, type ContractMethod, type ContractOutput } from "../../shared/contract.js";
import { isRecord } from "../../shared/records.js";
import type { SwitchyardEvent } from "../../shared/types.js";
import { ContractCallError, toContractCallError } from "./callError.js";
import type { EventStreamState, Transport } from "./transportTypes.js";

export const EVENTS_PATH = "/api/events";

export interface HttpRequestSpec {
  verb: string;
  /** Path plus query string, relative to the dashboard's origin. */
  url: string;
  body: string | undefined;
}

/** Maps a contract call onto HTTP: `:params` from the input, the rest to the body or the query. */
export function buildHttpRequest(method: ContractMethod, input?: unknown): HttpRequestSpec {
  const entry = CONTRACT[method];
  const rest: Record<string, unknown> = isRecord(input) ? { ...input } : {};
  const path = entry.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_match, name: string) => {
    const value = rest[name];
    if (typeof value !== "string" && typeof value !== "number") {
      throw new ContractCallError("invalid_request", `${method} needs "${name}" (string or number)`, null, name);
    }
    delete rest[name];
    return encodeURIComponent(String(value));
  });
  if (entry.source === "body") return { verb: entry.verb, url: path, body: JSON.stringify(rest) };
  if (entry.source === "query") {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(rest)) {
      if (value === undefined || value === null) continue;
      for (const item of Array.isArray(value) ? value : [value]) query.append(key, String(item));
    }
    const qs = query.toString();
    return { verb: entry.verb, url: qs ? `${path}?${qs}` : path, body: undefined };
  }
  return { verb: entry.verb, url: path, body: undefined };
}

export interface HttpTransportOptions {
  token: string;
  /** Defaults to the page's origin (the dashboard is served by the API server itself). */
  baseUrl?: string;
  fetch?: typeof fetch;
  /** Called when the server refuses the token, so the session can ask for a fresh one. */
  onUnauthorized?: () => void;
  /** Reconnect delays for the event stream, in ms. */
  reconnectDelays?: readonly number[];
}

const DEFAULT_RECONNECT_DELAYS = [1_000, 2_000, 5_000, 10_000, 15_000];

export function createHttpTransport(options: HttpTransportOptions): Transport {
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const baseUrl = options.baseUrl ?? "";
  const auth = `Bearer ${options.token}`;
  const delays = options.reconnectDelays ?? DEFAULT_RECONNECT_DELAYS;

  async function call<M extends ContractMethod>(method: M, ...[input]: ContractCallArgs<M>): Promise<ContractOutput<M>> {
    const spec = buildHttpRequest(method, input);
    const headers: Record<string, string> = { Authorization: auth, Accept: "application/json" };
    if (spec.body !== undefined) headers["Content-Type"] = "application/json";
    let response: Response;
    try {
      response = await doFetch(baseUrl + spec.url, { method: spec.verb, headers, body: spec.body });
    } catch (err) {
      throw toContractCallError(err);
    }
    if (response.status === 401) options.onUnauthorized?.();
    const text = await response.text();
    const parsed: unknown = text ? safeJson(text) : undefined;
    if (!response.ok) throw toContractCallError(parsed ?? { error: { message: response.statusText } }, response.status);
    // A method that answers text (the YAML export) arrives as the RawResponse IPC would carry.
    if (text && parsed === undefined) {
      return { kind: "raw", contentType: response.headers.get("content-type") ?? "text/plain", body: text } as ContractOutput<M>;
    }
    // The server answered this method, so its body is the method's output (API.md); not re-checked here.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- see above: the contract types our own server's answer
    return parsed as ContractOutput<M>;
  }

  function subscribe(listener: (event: SwitchyardEvent) => void, onState?: (state: EventStreamState) => void): () => void {
    const abort = new AbortController();
    void runEventStream({ doFetch, url: baseUrl + EVENTS_PATH, auth, delays, signal: abort.signal, listener, onState, onUnauthorized: options.onUnauthorized });
    return () => abort.abort();
  }

  return { kind: "http", call, subscribe };
}

interface EventStreamRun {
  doFetch: typeof fetch;
  url: string;
  auth: string;
  delays: readonly number[];
  signal: AbortSignal;
  listener: (event: SwitchyardEvent) => void;
  onState?: (state: EventStreamState) => void;
  onUnauthorized?: () => void;
}

/**
 * EventSource cannot send an Authorization header, so the stream is read with fetch and parsed
 * with eventsource-parser. A dropped stream is reopened with growing delays until unsubscribed.
 */
async function runEventStream(run: EventStreamRun): Promise<void> {
  let attempt = 0;
  run.onState?.("connecting");
  while (!run.signal.aborted) {
    try {
      const response = await run.doFetch(run.url, {
        headers: { Authorization: run.auth, Accept: "text/event-stream" },
        signal: run.signal,
      });
      if (response.status === 401) {
        run.onUnauthorized?.();
        run.onState?.("closed");
        return;
      }
      if (!response.ok || !response.body) throw new Error(`event stream answered ${response.status}`);
      attempt = 0;
      run.onState?.("open");
      await pumpEvents(response.body, run.listener, run.signal);
    } catch {
      // Aborts end the loop below; any other failure is retried after a delay.
    }
    if (run.signal.aborted) break;
    const delay = run.delays[Math.min(attempt, run.delays.length - 1)] ?? 1_000;
    attempt += 1;
    run.onState?.("reconnecting");
    await sleep(delay, run.signal);
  }
  run.onState?.("closed");
}

/** Feeds a byte stream of SSE to the listener until it ends; data that is not an event is ignored. */
export async function pumpEvents(body: ReadableStream<Uint8Array>, listener: (event: SwitchyardEvent) => void, signal?: AbortSignal): Promise<void> {
  const parser = createParser({
    onEvent(message) {
      const event = safeJson(message.data);
      // Our own server's event stream; a listener ignores a type it does not know.
      // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- see above
      if (isRecord(event) && typeof event.type === "string") listener(event as unknown as SwitchyardEvent);
    },
  });
  const reader = body.getReader();
  const decoder = new TextDecoder();
  // Not every fetch ties the body to the request's signal; cancelling the reader ends it surely.
  const cancel = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener("abort", cancel, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
  } finally {
    signal?.removeEventListener("abort", cancel);
    reader.releaseLock();
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}
