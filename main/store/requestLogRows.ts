// The request log's rows (R15.1): the table's columns, how an entry becomes a row and back, and
// the rollup statement written with each batch (R18.2). Pure mapping; requestLogRepo.ts does the I/O.
import type { ClientKind, RequestLogEntry, TrafficClass } from "../../shared/types.js";
import type { LogWriteSql } from "./requestLogSink.js";
import { fromFlag, fromJson, toFlag, toJson } from "./rows.js";

/** The row's columns, in one place: the INSERT and the SELECTs are built from this list. */
export const COLUMNS = [
  "id",
  "time",
  "client_format",
  "model",
  "combo",
  "provider",
  "connection_id",
  "status",
  "error_code",
  "latency_ms",
  "ttfb_ms",
  "stream",
  "input_tokens",
  "output_tokens",
  "attempts",
  "egress_ip",
  "client_kind",
  "details",
  "prompt_text",
  "cache_read_tokens",
  "cache_write_tokens",
  "reasoning_tokens",
  "cost_usd",
  "cost_source",
  "cost_notional",
  "api_key_id",
  "served_model",
  "traffic_class",
] as const satisfies ReadonlyArray<keyof RequestLogRow>;

/** Where the usage rollups (R18.2) find their dimensions and counts in a row's values. */
const ROLLUP_COLUMNS = {
  time: "time",
  provider: "provider",
  connection: "connection_id",
  model: "served_model",
  client: "client_kind",
  key: "api_key_id",
  trafficClass: "traffic_class",
  input: "input_tokens",
  output: "output_tokens",
  cacheRead: "cache_read_tokens",
  cacheWrite: "cache_write_tokens",
  reasoning: "reasoning_tokens",
  cost: "cost_usd",
} as const satisfies Record<string, (typeof COLUMNS)[number]>;

export interface RequestLogRow {
  id: string;
  time: number;
  client_format: RequestLogEntry["clientFormat"];
  model: string;
  combo: string | null;
  provider: string | null;
  connection_id: string | null;
  status: number;
  error_code: string | null;
  latency_ms: number;
  ttfb_ms: number | null;
  stream: number;
  input_tokens: number | null;
  output_tokens: number | null;
  attempts: string;
  egress_ip: string | null;
  client_kind: ClientKind | null;
  details: string;
  prompt_text: string | null;
  cache_read_tokens: number | null;
  cache_write_tokens: number | null;
  reasoning_tokens: number | null;
  cost_usd: number | null;
  cost_source: RequestLogEntry["costSource"];
  cost_notional: number;
  api_key_id: string | null;
  served_model: string | null;
  traffic_class: TrafficClass | null;
}

/** R12.5: a row's egress IP is the one its connection's attempt left from. */
function egressOf(e: RequestLogEntry): string | null {
  if (e.egressIp !== undefined) return e.egressIp;
  for (let i = e.attempts.length - 1; i >= 0; i--) {
    const a = e.attempts[i];
    if (a.connectionId === e.connectionId && a.egressIp) return a.egressIp;
  }
  return null;
}

/**
 * What the `details` column holds: the timeline beyond the attempts. The R20 marks are kept only
 * when they say something (a move, a decision, a removal), so the usual row's text stays short.
 */
interface LogDetails {
  skipped?: RequestLogEntry["skipped"];
  comboWaits?: RequestLogEntry["comboWaits"];
  cacheMove?: RequestLogEntry["cacheMove"];
  waitOrSwitch?: RequestLogEntry["waitOrSwitch"];
  provenance?: RequestLogEntry["provenance"];
  billingCrossing?: RequestLogEntry["billingCrossing"];
  /** R26.1: kept only for a WebSocket turn (a row without it came over HTTP). */
  transport?: "websocket";
}

/** R20.2: the share of the prompt read from the upstream's cache (input tokens include the reads). */
export function cacheReadShareOf(cacheRead: number | null, input: number | null): number | null {
  if (cacheRead === null || input === null || input === 0) return null;
  return Math.round((cacheRead / input) * 10_000) / 10_000;
}

export function toEntry(row: RequestLogRow): RequestLogEntry {
  return {
    id: row.id,
    time: row.time,
    clientFormat: row.client_format,
    model: row.model,
    combo: row.combo,
    provider: row.provider,
    connectionId: row.connection_id,
    status: row.status,
    errorCode: row.error_code,
    latencyMs: row.latency_ms,
    ttfbMs: row.ttfb_ms,
    stream: fromFlag(row.stream),
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    cacheReadTokens: row.cache_read_tokens,
    cacheWriteTokens: row.cache_write_tokens,
    // Derived, not stored: rows written before R20.2 have it too.
    cacheReadShare: cacheReadShareOf(row.cache_read_tokens, row.input_tokens),
    reasoningTokens: row.reasoning_tokens,
    costUsd: row.cost_usd,
    costSource: row.cost_source ?? null,
    ...(row.cost_notional ? { costNotional: true } : {}),
    apiKeyId: row.api_key_id,
    servedModel: row.served_model,
    attempts: fromJson(row.attempts),
    ...(row.egress_ip === null ? {} : { egressIp: row.egress_ip }),
    ...detailFields(row),
  };
}

function detailFields(row: RequestLogRow): Partial<RequestLogEntry> {
  const details = fromJson<LogDetails>(row.details || "{}");
  const out: Partial<RequestLogEntry> = {};
  if (row.client_kind) out.clientKind = row.client_kind;
  if (row.traffic_class) out.trafficClass = row.traffic_class;
  if (details.skipped) out.skipped = details.skipped;
  if (details.comboWaits) out.comboWaits = details.comboWaits;
  if (details.cacheMove) out.cacheMove = details.cacheMove;
  if (details.waitOrSwitch) out.waitOrSwitch = details.waitOrSwitch;
  if (details.provenance) out.provenance = details.provenance;
  if (details.billingCrossing) {
    out.billingCrossed = true;
    out.billingCrossing = details.billingCrossing;
  }
  if (row.prompt_text !== null) out.promptText = row.prompt_text;
  out.transport = details.transport ?? "http";
  return out;
}

const NOTHING_SKIPPED = toJson({ skipped: [] } satisfies LogDetails);

/** The `details` column; the usual request (one pass, nothing skipped) has the same text every time. */
function detailsText(e: RequestLogEntry): string {
  // No move, no decision, nothing removed: null and [] are the same as absent.
  const cacheMove = e.cacheMove ?? undefined;
  const waitOrSwitch = e.waitOrSwitch?.length ? e.waitOrSwitch : undefined;
  const provenance = e.provenance ?? undefined;
  const billingCrossing = e.billingCrossing ?? undefined;
  const transport = e.transport === "websocket" ? e.transport : undefined;
  if (e.comboWaits === undefined && cacheMove === undefined && waitOrSwitch === undefined && provenance === undefined && billingCrossing === undefined && transport === undefined) {
    if (e.skipped === undefined) return "{}";
    if (e.skipped.length === 0) return NOTHING_SKIPPED;
  }
  return toJson({ skipped: e.skipped, comboWaits: e.comboWaits, cacheMove, waitOrSwitch, provenance, billingCrossing, transport } satisfies LogDetails);
}

/**
 * The row's values in COLUMNS order, bound by position: better-sqlite3 binds an array faster than
 * it looks up named parameters, and the log takes a row per request (issue 12).
 */
export function toValues(e: RequestLogEntry): unknown[] {
  const row: { [K in (typeof COLUMNS)[number]]: RequestLogRow[K] } = {
    id: e.id,
    time: e.time,
    client_format: e.clientFormat,
    model: e.model,
    combo: e.combo,
    provider: e.provider,
    connection_id: e.connectionId,
    status: e.status,
    error_code: e.errorCode,
    latency_ms: e.latencyMs,
    ttfb_ms: e.ttfbMs,
    stream: toFlag(e.stream),
    input_tokens: e.inputTokens,
    output_tokens: e.outputTokens,
    attempts: toJson(e.attempts),
    egress_ip: egressOf(e),
    client_kind: e.clientKind ?? null,
    details: detailsText(e),
    prompt_text: e.promptText ?? null,
    cache_read_tokens: e.cacheReadTokens ?? null,
    cache_write_tokens: e.cacheWriteTokens ?? null,
    reasoning_tokens: e.reasoningTokens ?? null,
    cost_usd: e.costUsd ?? null,
    cost_source: e.costSource ?? null,
    cost_notional: toFlag(e.costNotional === true),
    api_key_id: e.apiKeyId ?? null,
    served_model: e.servedModel ?? null,
    traffic_class: e.trafficClass ?? null,
  };
  return COLUMNS.map((c) => row[c]);
}

export const ROW_COLUMNS = COLUMNS.join(", ");

/** The rollup upsert and where its inputs sit in a row (requestLogWrites.js adds a batch's rows up). */
export function rollupSql(): LogWriteSql["rollup"] {
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- one entry per ROLLUP_COLUMNS key; fromEntries cannot type keys
  const at = Object.fromEntries(Object.entries(ROLLUP_COLUMNS).map(([k, c]) => [k, COLUMNS.indexOf(c)])) as Record<keyof typeof ROLLUP_COLUMNS, number>;
  const sums = ["requests", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens", "cost_usd"];
  return {
    upsert: `INSERT INTO usage_rollup (bucket, dim, t, value, ${sums.join(", ")})
      VALUES (?, ?, ?, ?, ${sums.map(() => "?").join(", ")})
      ON CONFLICT (bucket, dim, t, value)
      DO UPDATE SET ${sums.map((c) => `${c} = ${c} + excluded.${c}`).join(", ")}`,
    pruneHours: "DELETE FROM usage_rollup WHERE bucket = 'hour' AND dim = ? AND t < ?",
    at,
  };
}
export const ID_INDEX = COLUMNS.indexOf("id");
