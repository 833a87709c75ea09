// One request, one context (R22, DESIGN.md "One request, end to end"): the only carrier of a client
// request, made at its edge (http/edge.ts) with the request: what the edge proved (key, login,
// lease), what the route read (format, body, model, session), the writer that answers it, the
// attempt loop's state, and the typed variables each feature keeps for itself. Every route that
// reaches an upstream fills one, and every feature hook receives it, so a feature written once
// holds on all of them.
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import type { ApiKeyInfo, ClientKind, RequestTransport, TrafficClass, WireFormat } from "../../../shared/types.js";
import type { CountShape, StreamFraming } from "../formats/adapter.js";
import { clientHalf } from "../formats/index.js";
import type { StreamTranscript } from "./streamTranscript.js";
import type { ClientResponse } from "./clientResponse.js";
export type { AnswerHooks } from "./clientResponse.js";
import type { RequestSession } from "./requestSession.js";
import type { ClientLogin } from "./clientLogin.js";
import type { Blocker } from "../../engine/comboWait.js";
import type { Verdict } from "../../engine/ports.js";
import type { FailedAttempt } from "./outcome.js";
import { SelectionLog, type RecoveryPolicy, type RequestPlan } from "./attempt.js";

/** The body before the route read it (receivedBody refuses to hand it out). */
const NO_BODY: Record<string, unknown> = Object.freeze({});
const NOT_PLANNED: RequestPlan = Object.freeze({ targets: [], combo: null });

/** A typed variable of the context, private to whoever holds the key (Hono's `c.set`/`c.get`, typed by key). */
export class ContextVar<T> {
  /** Never set: it carries the value's type on the key; the name is for debugging only. */
  declare readonly valueType?: T;
  constructor(readonly name: string) {}
}

export class RequestContext {
  // The edge (http/): made with the request, before its body is read; what the client proved.
  /** The verified Switchyard client key (R1.7, R18), or null. */
  clientKey: ApiKeyInfo | null = null;
  /** R1.7, R7.2: the only connections this request may use (null = any). */
  allowed: Set<string> | null = null;
  /** R7.2: the SHA-256 of the owner of the lease the request is fenced to (null = no lease). */
  leaseOwnerHash: string | null = null;
  /** R21.1, R24.1: the client's own login, in its vendor's shape (null = none). */
  login: ClientLogin | null = null;

  // The route: what the client asked for.
  format: WireFormat = "openai";
  /** The body the attempts start from; a feature may replace it on arrival (a Responses turn's history). */
  body: Record<string, unknown> = NO_BODY;
  /** The body's JSON text while `body` is the one received (a same-format pass-through sends it as is). */
  bodyText: string | undefined = undefined;
  /** The model asked for: the body's, or the path's when it names it (Gemini). */
  model = "";
  /** R7: the session pin and lease view of this request (null = no session routing). */
  session: RequestSession | null = null;
  /** How a stream is framed for this client (default SSE; Gemini without alt=sse: a JSON array). */
  framing: StreamFraming | undefined = undefined;
  /** A token count of the body rather than an answer (R16.5, R22.1): the count endpoint of the client's format. */
  count: CountShape | null = null;
  /** R16.5: the turn is answered as a compaction (POST /v1/responses/compact). */
  compact = false;
  /** R26.1: a POST, or a turn of a Responses WebSocket (its row says which). */
  transport: RequestTransport = "http";
  /** The writer: commit, JSON and SSE writes, keep-alives, and whether content reached the client (set when the pipeline takes the request). */
  client!: ClientResponse;

  /** Which coding agent or SDK sent it (its headers), known on arrival. */
  clientKind: ClientKind = "other";
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
  /** Each failed attempt of the current pass with its verdict (R25.6's precedence when all failed). */
  failed: FailedAttempt[] = [];
  readonly waits = { count: 0, waitedMs: 0 };
  readonly policy: RecoveryPolicy = { recoveryEnabled: true, earlyEofRetries: { spent: 0 } };
  /** A combo target ran out of its config.targetTimeoutMs: the pass goes on with the next target. */
  abandonTarget = false;
  /** A feature asked to try the same connection again after this wait (R20.4). */
  retrySameMs: number | null = null;
  /** R21.5: walk the targets again after this wait (a subscription window resets soon), or null. */
  walkAgainMs: number | null = null;
  /** R25.4: an upstream refused a translated request as malformed: only targets of the client's own format are left. */
  sameFormatOnly = false;
  private readonly vars = new Map<ContextVar<unknown>, unknown>();
  /** The body's input token estimate once made (-1 before): the fit check and the combo strategies share it. */
  private inputEstimate = -1;

  /** The request's headers, and its path (R20.3 reads it: a compaction or count route is its own class). */
  readonly headers: IncomingHttpHeaders;
  readonly path: string;

  constructor(
    /** Names the answer (X-Switchyard-Request-Id) and the request-log row. */
    readonly requestId: string,
    req: IncomingMessage,
  ) {
    this.headers = req.headers;
    this.path = req.url ?? "";
  }

  /** The verified client key's id, for usage by key and key budgets (R18). */
  get apiKeyId(): string | null {
    return this.clientKey?.id ?? null;
  }

  get record(): ClientResponse["record"] {
    return this.client.record;
  }

  /** The body the route read; a route that asks before the reader ran is a bug. */
  receivedBody(): Record<string, unknown> {
    if (this.body === NO_BODY) throw new Error("the client body was asked for before the body reader ran");
    return this.body;
  }

  /** The route read the body (once, with the live limit). */
  bodyRead(body: Record<string, unknown>, text: string | undefined): void {
    this.body = body;
    this.bodyText = text;
    this.inputEstimate = -1;
  }

  /** Replaces the body the attempts start from; its received text no longer describes it. */
  replaceBody(body: Record<string, unknown>): void {
    if (body === this.body) return;
    this.body = body;
    this.bodyText = undefined;
    this.inputEstimate = -1;
  }

  /** R25.1: the body's estimated input tokens, made once per body by its client half and kept. */
  inputTokens(): number {
    if (this.inputEstimate < 0) this.inputEstimate = clientHalf(this.format).estimateInputTokens(this.body);
    return this.inputEstimate;
  }

  get<T>(key: ContextVar<T>): T | undefined {
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- set() stored a T under this very key
    return this.vars.get(key) as T | undefined;
  }

  set<T>(key: ContextVar<T>, value: T): void {
    this.vars.set(key, value);
  }
}
