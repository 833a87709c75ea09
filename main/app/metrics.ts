// GET /metrics (R18.5): Prometheus counters fed by the bus's `request` events, and gauges read
// from the engine and admission control at scrape time. The traffic-class counters (R20.3) read the
// same rows: a row's class, and errorCode "traffic_shed" for a request shed under pressure. Each gateway owns its own Registry, so
// several in one process (the tests) never share a series. The request path pays one array push:
// entries are counted on the next turn of the event loop, or at the latest when scraped.
import type { RequestHandler } from "express";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { ErrorCode } from "../../shared/errorCodes.js";
import type { QueueRow } from "../../shared/apiTypes.js";
import type { BreakerState, RequestLogEntry } from "../../shared/types.js";
import type { StorePorts } from "../api/index.js";
import { type MetricsRouteDeps, metricsRoute } from "../api/metricsRoute.js";
import type { ResilienceAdminEngine } from "../engine/index.js";
import type { EventBus } from "./eventBus.js";

/** What the gauges read at scrape time; every list is read afresh, so a deleted entity drops out. */
export interface MetricsSources {
  breakers(): ReadonlyArray<{ provider: string; state: BreakerState }>;
  connections(): ReadonlyArray<{ provider: string; connectionId: string; cooling: boolean }>;
  queues(): ReadonlyArray<{ connectionId: string; queued: number }>;
}

export interface GatewayMetrics {
  readonly contentType: string;
  /** The exposition text, after counting every request finished so far. */
  render(): Promise<string>;
  /** GET /metrics's guards and handler over this registry. */
  route(access: Pick<MetricsRouteDeps, "adminToken" | "isPublic">): RequestHandler[];
  close(): void;
}

/** API.md: 0 closed, 1 degraded, 2 half-open, 3 open. */
export const BREAKER_STATE_VALUE: Readonly<Record<BreakerState, number>> = { CLOSED: 0, DEGRADED: 1, HALF_OPEN: 2, OPEN: 3 };

/** Generations run from under a second to many minutes. */
const DURATION_BUCKETS_SECONDS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/** Label value for an attempt that never had a connection. */
const NO_CONNECTION = "none";

type TokenKind = "input" | "output" | "cache_read" | "cache_write" | "reasoning";

const TOKEN_FIELDS: ReadonlyArray<[TokenKind, keyof RequestLogEntry]> = [
  ["input", "inputTokens"],
  ["output", "outputTokens"],
  ["cache_read", "cacheReadTokens"],
  ["cache_write", "cacheWriteTokens"],
  ["reasoning", "reasoningTokens"],
];

/** A count the upstream stated; null, absent or garbage counts nothing (a counter never goes down). */
function stated(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : null;
}

function requestCounters(registry: Registry) {
  const registers = [registry];
  return {
    requests: new Counter({
      name: "switchyard_requests_total",
      help: "Client requests answered, by client format and HTTP status.",
      labelNames: ["format", "status"] as const,
      registers,
    }),
    duration: new Histogram({
      name: "switchyard_request_duration_seconds",
      help: "Time from a request's arrival to its last byte, by client format.",
      labelNames: ["format"] as const,
      buckets: DURATION_BUCKETS_SECONDS,
      registers,
    }),
    attempts: new Counter({
      name: "switchyard_attempts_total",
      help: "Upstream attempts, by provider, connection, outcome (success, or the failure's verdict) and whose fault it was (R25.4).",
      labelNames: ["provider", "connection", "outcome", "fault"] as const,
      registers,
    }),
    tokens: new Counter({
      name: "switchyard_tokens_total",
      help: "Tokens the upstream reported; input includes the cache reads and writes, output the reasoning.",
      labelNames: ["provider", "model", "kind"] as const,
      registers,
    }),
    cost: new Counter({
      name: "switchyard_cost_usd_total",
      help: "Cost in USD of the answered requests whose price is known (notional for subscriptions).",
      labelNames: ["provider", "model"] as const,
      registers,
    }),
    requestsByClass: new Counter({
      name: "switchyard_requests_by_class_total",
      help: "Client requests answered, by traffic class (R20.3) and HTTP status; rows without a class are not counted.",
      labelNames: ["traffic_class", "status"] as const,
      registers,
    }),
    shed: new Counter({
      name: "switchyard_shed_total",
      help: "Requests shed under 429 or queue pressure (R20.3), by traffic class.",
      labelNames: ["traffic_class"] as const,
      registers,
    }),
  };
}

/** The error code of a row whose request was shed by its traffic class (R20.3). */
/** The catalogue's code for a shed request (shared/errorCodes.ts): a typo here fails to compile. */
const TRAFFIC_SHED_CODE: ErrorCode = "traffic_shed";

type RequestCounters = ReturnType<typeof requestCounters>;

/**
 * Counts kept as plain numbers between scrapes, keyed by their joined label values: a Map lookup
 * per request instead of prom-client's label hashing and validation, added to the counters when
 * the registry is read.
 */
class Tally<L extends string> {
  private readonly counts = new Map<string, { labels: Record<L, string>; value: number; shown: boolean }>();

  add(key: string, labels: () => Record<L, string>, by = 1): void {
    let c = this.counts.get(key);
    if (!c) this.counts.set(key, (c = { labels: labels(), value: 0, shown: false }));
    c.value += by;
  }

  /** Adds what was counted since the last read; a series seen once is shown even at 0. */
  into(counter: Counter<L>): void {
    for (const c of this.counts.values()) {
      if (c.value === 0 && c.shown) continue;
      counter.inc(c.labels, c.value);
      c.value = 0;
      c.shown = true;
    }
  }
}

function requestTallies() {
  return {
    requests: new Tally<"format" | "status">(),
    attempts: new Tally<"provider" | "connection" | "outcome" | "fault">(),
    tokens: new Tally<"provider" | "model" | "kind">(),
    cost: new Tally<"provider" | "model">(),
    requestsByClass: new Tally<"traffic_class" | "status">(),
    shed: new Tally<"traffic_class">(),
  };
}

type RequestTallies = ReturnType<typeof requestTallies>;

/** R20.3: a row's class is a fixed vocabulary; a row written without one is left out. */
function countClass(t: RequestTallies, entry: RequestLogEntry): void {
  const trafficClass = entry.trafficClass;
  if (trafficClass === undefined) return;
  const status = entry.status;
  t.requestsByClass.add(`${trafficClass}\u0000${status}`, () => ({ traffic_class: trafficClass, status: String(status) }));
  if (entry.errorCode === TRAFFIC_SHED_CODE) t.shed.add(trafficClass, () => ({ traffic_class: trafficClass }));
}

/** Counts one finished request. Labels come from config and fixed vocabularies, never from ids or messages. */
function countRequest(t: RequestTallies, duration: RequestCounters["duration"], entry: RequestLogEntry): void {
  const format = entry.clientFormat;
  const status = entry.status;
  t.requests.add(`${format}\u0000${status}`, () => ({ format, status: String(status) }));
  countClass(t, entry);
  const seconds = stated(entry.latencyMs);
  if (seconds !== null) duration.observe({ format }, seconds / 1000);
  for (const a of entry.attempts) {
    const connection = a.connectionId ?? NO_CONNECTION;
    const outcome = a.verdict ?? "success";
    const fault = a.fault ?? "none";
    t.attempts.add(`${a.provider}\u0000${connection}\u0000${outcome}\u0000${fault}`, () => ({ provider: a.provider, connection, outcome, fault }));
  }
  const provider = entry.provider;
  if (provider === null) return;
  // The model the answering attempt asked the upstream for: a configured one, not the client's text.
  const model = entry.attempts.at(-1)?.model ?? entry.model;
  const key = `${provider}\u0000${model}`;
  for (const [kind, field] of TOKEN_FIELDS) {
    const count = stated(entry[field]);
    if (count !== null) t.tokens.add(`${key}\u0000${kind}`, () => ({ provider, model, kind }), count);
  }
  const cost = stated(entry.costUsd);
  if (cost !== null) t.cost.add(key, () => ({ provider, model }), cost);
}

function tallyInto(t: RequestTallies, c: RequestCounters): void {
  t.requests.into(c.requests);
  t.attempts.into(c.attempts);
  t.tokens.into(c.tokens);
  t.cost.into(c.cost);
  t.requestsByClass.into(c.requestsByClass);
  t.shed.into(c.shed);
}

/** The gauges, each recomputed from its source whenever the registry is scraped. */
function stateGauges(registry: Registry, sources: MetricsSources): void {
  const registers = [registry];
  new Gauge({
    name: "switchyard_breaker_state",
    help: "Provider circuit breaker: 0 closed, 1 degraded, 2 half-open, 3 open.",
    labelNames: ["provider"] as const,
    registers,
    collect() {
      this.reset();
      for (const b of sources.breakers()) this.set({ provider: b.provider }, BREAKER_STATE_VALUE[b.state]);
    },
  });
  new Gauge({
    name: "switchyard_connection_cooling",
    help: "1 while the connection is cooling down (out of rotation for a timer), else 0.",
    labelNames: ["provider", "connection"] as const,
    registers,
    collect() {
      this.reset();
      for (const c of sources.connections()) this.set({ provider: c.provider, connection: c.connectionId }, c.cooling ? 1 : 0);
    },
  });
  new Gauge({
    name: "switchyard_queue_depth",
    help: "Requests waiting locally for the connection (R9.3).",
    labelNames: ["connection"] as const,
    registers,
    collect() {
      this.reset();
      for (const q of sources.queues()) this.set({ connection: q.connectionId }, q.queued);
    },
  });
}

export function createGatewayMetrics(bus: EventBus, sources: MetricsSources): GatewayMetrics {
  const registry = new Registry();
  const counters = requestCounters(registry);
  const tallies = requestTallies();
  stateGauges(registry, sources);

  let pending: RequestLogEntry[] = [];
  let scheduled: NodeJS.Immediate | null = null;
  const drain = () => {
    if (scheduled) clearImmediate(scheduled);
    scheduled = null;
    const batch = pending;
    pending = [];
    for (const entry of batch) countRequest(tallies, counters.duration, entry);
  };
  const unsubscribe = bus.subscribe((event) => {
    if (event.type !== "request") return;
    pending.push(event.entry);
    if (!scheduled) {
      scheduled = setImmediate(drain);
      scheduled.unref();
    }
  });

  const render = () => {
    drain();
    tallyInto(tallies, counters);
    return registry.metrics();
  };
  return {
    contentType: registry.contentType,
    render,
    route: (access) => metricsRoute({ ...access, contentType: registry.contentType, render }),
    close() {
      unsubscribe();
      drain();
      tallyInto(tallies, counters);
    },
  };
}

/**
 * The gauges' sources in a running gateway: breakers as the engine derives them on read (a lapsed
 * OPEN reads HALF_OPEN), cooling as the Cooldown Manager sees it, and admission's queues.
 */
export function engineMetricsSources(deps: {
  engine: Pick<ResilienceAdminEngine, "monitoringHealth" | "listCooldowns">;
  store: StorePorts<"providers" | "connections">;
  queues: () => readonly QueueRow[];
}): MetricsSources {
  const { engine, store } = deps;
  return {
    breakers: () => engine.monitoringHealth(store.providers.list()).providerBreakers,
    connections() {
      const connections = store.connections.list();
      const cooling = new Set(
        engine
          .listCooldowns(store.providers.list(), connections)
          .items.filter((row) => row.status === "cooling_down")
          .map((row) => row.connectionId),
      );
      return connections.map((c) => ({ provider: c.provider, connectionId: c.id, cooling: cooling.has(c.id) }));
    },
    // The depth gauge is per connection; the provider and global gate rows (R8.1) are not its.
    queues: () => deps.queues().flatMap((q) => (q.scope === "connection" && q.connectionId !== null ? [{ connectionId: q.connectionId, queued: q.queued }] : [])),
  };
}
