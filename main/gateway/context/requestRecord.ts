// The request-log row of one client request (issue 26 item 12), assembled here and nowhere else:
// the stages feed the record what they learn — the arrival (client kind, prompt), the client key,
// the plan's combo, each attempt, what selection skipped and the combo's waits — and entry()
// writes the row once, from how the request ended, priced by the usage meter (R18.1, R18.4).
import type { AttemptRecord, ClientKind, ProvenanceRecord, RequestLogEntry, RequestTransport, TrafficClass, WaitOrSwitchRecord, WireFormat } from "../../../shared/types.js";
import type { UsageSummary } from "../formats/usage.js";
import type { SelectionLog } from "./attempt.js";
import { skipRecordsOf, type ArrivalFields } from "./trace.js";

/** The pass over the targets as the timeline reads it (each pass replaces the selection). */
export interface TargetWalk {
  readonly selection: SelectionLog;
  readonly waits: { count: number; waitedMs: number };
}

/** What a row costs (R18.1); notional when the connection is a subscription. */
export interface RowCost {
  costUsd: number | null;
  costSource: RequestLogEntry["costSource"];
  notional: boolean;
}

/** R18.1 and R18.4: prices a finished row and counts it against its key's and its connection's budgets. */
export interface UsageMeter {
  /** `model`: what the answering attempt asked its upstream for (a combo or an alias names another). */
  meter(row: RequestLogEntry, model: string | null): RowCost;
}

/** How the request ended, as its response knows it. */
export interface RequestEnd {
  status: number;
  errorCode: string | null;
  /** The answering attempt's token counts (null: none answered, or a local refusal). */
  usage: UsageSummary | null;
  ttfbMs: number | null;
  /** The bytes the client received of the answer. */
  bytesOut: number;
  now: number;
}

const NOT_ARRIVED: ArrivalFields = {};

export class RequestRecord {
  readonly attempts: AttemptRecord[] = [];
  private combo: string | null = null;
  private apiKeyId: string | null = null;
  private arrival = NOT_ARRIVED;
  private walk: TargetWalk | null = null;
  private traffic: TrafficClass | undefined;
  /** R20.1: what the latest attempt's request lost of its foreign reasoning artifacts. */
  private stripped: ProvenanceRecord | null = null;
  private readonly decisions: WaitOrSwitchRecord[] = [];
  private crossing: { fromConnectionId: string; toConnectionId: string } | null = null;
  /** R20.2: the connection holding the session's warm cache when the request arrived. */
  private warmOn: string | null = null;
  /** R26.1: a POST, or a turn of a Responses WebSocket. */
  transport: RequestTransport = "http";

  constructor(
    readonly id: string,
    private readonly format: WireFormat,
    private readonly model: string,
    private readonly stream: boolean,
    readonly startedAt: number,
  ) {}

  /** What the request says of itself on arrival (trace.ts arrivalFields). */
  arrived(fields: ArrivalFields): void {
    this.arrival = fields;
  }

  /** R18: the verified client key the request presented (its id). */
  keyed(apiKeyId: string | null): void {
    this.apiKeyId = apiKeyId;
  }

  /** R20.3: what the request is for. */
  classed(trafficClass: TrafficClass): void {
    this.traffic = trafficClass;
  }

  get trafficClass(): TrafficClass {
    return this.traffic ?? "main";
  }

  /** R20.2: the session's cache was warm on this connection when the request arrived. */
  warmCacheOn(connectionId: string | null): void {
    this.warmOn = connectionId;
  }

  /** R20.1: the attempt about to be sent lost these artifacts (null: none). */
  artifactsStripped(record: ProvenanceRecord | null): void {
    this.stripped = record;
  }

  /** R21.5: the request left subscription account `from` for metered account `to`. */
  billingCrossed(from: string, to: string): void {
    this.crossing = { fromConnectionId: from, toConnectionId: to };
  }

  /** R20.4: a wait-or-switch decision, in the order taken. */
  decided(decision: WaitOrSwitchRecord): void {
    this.decisions.push(decision);
  }

  /** The plan named a combo (null: a model or an alias). */
  planned(combo: string | null, walk: TargetWalk): void {
    this.combo = combo;
    this.walk = walk;
  }

  /** One attempt's line, in the order they were made. */
  attempted(line: AttemptRecord): void {
    this.attempts.push(line);
  }

  /** What the last attempt's failure carried and left (the timeline's view). */
  lastAttemptFailed(details: Partial<AttemptRecord>): void {
    const last = this.attempts[this.attempts.length - 1];
    if (last) Object.assign(last, details);
  }

  /** The row, once: the answering (last) attempt names the provider, connection and served model. */
  entry(end: RequestEnd, meter?: UsageMeter): RequestLogEntry {
    const last = this.attempts[this.attempts.length - 1];
    // The answering attempt's bytes are what the client received; failed ones noted their own.
    if (last && last.bytes === undefined) last.bytes = end.bytesOut;
    const usage = end.usage;
    const entry: RequestLogEntry = {
      id: this.id,
      time: this.startedAt,
      clientFormat: this.format,
      model: this.model,
      combo: this.combo,
      provider: last?.provider ?? null,
      connectionId: last?.connectionId ?? null,
      status: end.status,
      errorCode: end.errorCode,
      latencyMs: end.now - this.startedAt,
      ttfbMs: end.ttfbMs,
      stream: this.stream,
      inputTokens: usage?.inputTokens ?? null,
      outputTokens: usage?.outputTokens ?? null,
      cacheReadTokens: usage?.cacheReadTokens ?? null,
      cacheWriteTokens: usage?.cacheCreationTokens ?? null,
      reasoningTokens: usage?.reasoningTokens ?? null,
      costUsd: null,
      costSource: null,
      apiKeyId: this.apiKeyId,
      servedModel: last?.provider && last.model ? `${last.provider}/${last.model}` : null,
      attempts: this.attempts,
      transport: this.transport,
      ...this.arrival,
    };
    if (this.walk) traceInto(entry, this.walk);
    this.agentFieldsInto(entry);
    if (meter) priceInto(entry, meter.meter(entry, last?.model ?? null));
    return entry;
  }

  /** R20.1–R20.4: the class, the cache share, and the timeline's marks of a coding agent's request. */
  private agentFieldsInto(entry: RequestLogEntry): void {
    if (this.traffic) entry.trafficClass = this.traffic;
    entry.cacheReadShare = cacheReadShareOf(entry.inputTokens, entry.cacheReadTokens);
    if (this.stripped) entry.provenance = this.stripped;
    if (this.decisions.length) entry.waitOrSwitch = this.decisions;
    // R21.5: marked when the metered account the request crossed to is the one that answered.
    if (this.crossing && entry.status < 400 && entry.connectionId === this.crossing.toConnectionId) {
      entry.billingCrossed = true;
      entry.billingCrossing = this.crossing;
    }
    const from = this.warmOn;
    const to = entry.connectionId;
    if (entry.status < 400 && from !== null && to !== null && to !== from) {
      const fresh = entry.inputTokens === null ? null : entry.inputTokens - (entry.cacheReadTokens ?? 0);
      entry.cacheMove = { fromConnectionId: from, toConnectionId: to, resentTokens: fresh };
    }
  }
}

/** R20.2: the prompt share read from the cache, rounded as the store keeps it. */
export function cacheReadShareOf(inputTokens: number | null | undefined, cacheReadTokens: number | null | undefined): number | null {
  if (inputTokens === null || inputTokens === undefined || inputTokens <= 0 || cacheReadTokens === null || cacheReadTokens === undefined) return null;
  return Math.round((cacheReadTokens / inputTokens) * 10_000) / 10_000;
}

/** The row of a request answered before the pipeline took it (an unknown route, a failure inside Switchyard). */
export function unservedEntry(id: string, format: WireFormat, clientKind: ClientKind, startedAt: number, end: Pick<RequestEnd, "status" | "errorCode" | "now">): RequestLogEntry {
  const record = new RequestRecord(id, format, "", false, startedAt);
  record.arrived({ clientKind });
  return record.entry({ ...end, usage: null, ttfbMs: null, bytesOut: 0 });
}

/** What selection passed over, and the combo's waits when it waited. */
function traceInto(entry: RequestLogEntry, walk: TargetWalk): void {
  entry.skipped = skipRecordsOf(walk.selection);
  if (walk.waits.count > 0) entry.comboWaits = { ...walk.waits };
}

function priceInto(entry: RequestLogEntry, cost: RowCost): void {
  entry.costUsd = cost.costUsd;
  entry.costSource = cost.costSource;
  if (cost.notional) entry.costNotional = true;
}
