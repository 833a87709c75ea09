// One request, one context (R22, DESIGN.md "One request, end to end"): what a client asked for and
// what its edge proved (key, lease, session), the typed variables the features share (its class,
// whether it holds on for a recovery, the stream's transcript…), and the writer that answers it.
// Every route that reaches an upstream makes one, and every feature hook receives it, so a feature
// written once holds on all of them.
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import type { TrafficClass, WireFormat } from "../../../shared/types.js";
import type { CountShape, StreamFraming } from "../formats/adapter.js";
import type { StreamTranscript } from "./streamTranscript.js";
import type { ClientResponse } from "./clientResponse.js";
export type { AnswerHooks } from "./clientResponse.js";
import type { RequestSession } from "./requestSession.js";
import type { ClientLogin } from "./clientLogin.js";
import type { Blocker } from "../../engine/comboWait.js";
import type { Verdict } from "../../engine/ports.js";
import { SelectionLog, type RecoveryPolicy, type RequestPlan } from "./attempt.js";

export interface ClientCall {
  format: WireFormat;
  body: Record<string, unknown>;
  /** The JSON text `body` was parsed from, when the route read it itself. */
  bodyText?: string;
  headers: IncomingHttpHeaders;
  res: ServerResponse;
  /** Given by the client routes, which already sent it in X-Switchyard-Request-Id. */
  requestId: string;
  /** R1.7: a client key limited to these connections (null = any). */
  allowedConnections?: Set<string> | null;
  /** The verified client key's id (usage by key, key budgets; R18). */
  apiKeyId?: string | null;
  /** R7: the session pin and lease view of this request (null = no session routing). */
  session?: RequestSession | null;
  /** How a stream is framed for this client (default SSE; Gemini without alt=sse: a JSON array). */
  framing?: StreamFraming;
  /** The request's path (R20.3 reads it: a compaction or count route is its own class). */
  path?: string;
  /** A token count of the body rather than an answer (R16.5, R22.1): the count endpoint of the client's format. */
  count?: CountShape;
  /** R16.5: the turn is answered as a compaction (POST /v1/responses/compact). */
  compact?: boolean;
  /** The model when the path names it and the body does not (Gemini's `:countTokens`). */
  model?: string;
  /** R21.1: the client's own login, for client-login connections only (null = none). */
  login?: ClientLogin | null;
}

const NOT_PLANNED: RequestPlan = Object.freeze({ targets: [], combo: null });

/** A typed variable of the context, private to whoever holds the key (Hono's `c.set`/`c.get`, typed by key). */
export class ContextVar<T> {
  /** Never set: it carries the value's type on the key; the name is for debugging only. */
  declare readonly valueType?: T;
  constructor(readonly name: string) {}
}

export class RequestContext {
  /** The body the attempts start from; a feature may replace it on arrival (a Responses turn's history). */
  body: Record<string, unknown>;
  /** The body's JSON text while `body` is the one received (a same-format pass-through sends it as is). */
  bodyText: string | undefined;
  /** R20.3: what the request is for, from its client's signals. */
  trafficClass: TrafficClass = "main";
  /** R11.4: whether the request holds on for a combo's recovery (background work is shed first). */
  holdsForRecovery = true;
  /** R7.1, R20.2: whether its answer moves the session's pin (background work and counts do not). */
  movesSession = true;
  /** R13.3: the text this stream sent, when mid-stream continuation is on. */
  transcript: StreamTranscript | null = null;

  // The attempt loop's state (pipeline/): its plan, what selection saw, and why attempts failed.
  /** The targets to try, in order (empty until planned). */
  plan: RequestPlan = NOT_PLANNED;
  /** What the current pass over the targets has seen (a new one per pass). */
  selection = new SelectionLog();
  lastVerdict: Verdict | null = null;
  /** Why each attempt of the current pass failed (R11.4 decides on all of them, not the last). */
  failures: Blocker[] = [];
  readonly waits = { count: 0, waitedMs: 0 };
  readonly policy: RecoveryPolicy = { recoveryEnabled: true, earlyEofRetries: { spent: 0 } };
  /** A combo target ran out of its config.targetTimeoutMs: the pass goes on with the next target. */
  abandonTarget = false;
  /** A feature asked to try the same connection again after this wait (R20.4). */
  retrySameMs: number | null = null;
  /** R21.5: walk the targets again after this wait (a subscription window resets soon), or null. */
  walkAgainMs: number | null = null;
  private readonly vars = new Map<ContextVar<unknown>, unknown>();

  constructor(
    readonly call: ClientCall,
    /** The writer: commit, JSON and SSE writes, keep-alives, and whether content reached the client. */
    readonly client: ClientResponse,
    readonly model: string,
  ) {
    this.body = call.body;
    this.bodyText = call.bodyText;
  }

  get format(): WireFormat {
    return this.call.format;
  }

  get headers(): IncomingHttpHeaders {
    return this.call.headers;
  }

  get path(): string {
    return this.call.path ?? "";
  }

  get session(): RequestSession | null {
    return this.call.session ?? null;
  }

  get apiKeyId(): string | null {
    return this.call.apiKeyId ?? null;
  }

  get login(): ClientLogin | null {
    return this.call.login ?? null;
  }

  get allowed(): Set<string> | null {
    return this.call.allowedConnections ?? null;
  }

  get record(): ClientResponse["record"] {
    return this.client.record;
  }

  /** Replaces the body the attempts start from; its received text no longer describes it. */
  replaceBody(body: Record<string, unknown>): void {
    if (body === this.body) return;
    this.body = body;
    this.bodyText = undefined;
  }

  get<T>(key: ContextVar<T>): T | undefined {
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- set() stored a T under this very key
    return this.vars.get(key) as T | undefined;
  }

  set<T>(key: ContextVar<T>, value: T): void {
    this.vars.set(key, value);
  }
}
