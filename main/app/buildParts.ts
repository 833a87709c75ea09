// The composition root's parts: each wires one concern of the gateway from the store, the
// clock and the settings (build.ts assembles them).
import { answerReader } from "../gateway/formats/answerReader.js";
import { accountView, type ClientLogin } from "../gateway/context/clientLogin.js";
import type { ResilienceSettings } from "../../shared/resilienceSettings.js";
import type { AppSettings, Connection, Provider } from "../../shared/types.js";
import { ReasoningProvenance } from "../gateway/features/provenance/book.js";
import { WarmCaches } from "../gateway/features/warmCache/warmCaches.js";
import { trafficClassOf } from "../gateway/features/trafficClass/rules.js";
import { createResilienceEngine } from "../engine/index.js";
import { resolveBreakerProfile } from "../engine/breaker.js";
import { LeaseBook } from "../engine/leases.js";
import { RemainingQuota } from "../engine/quotaCutoff.js";
import type { Clock } from "../engine/ports.js";
import { SessionPins } from "../engine/sessionAffinity.js";
import { effectiveEmergencyFallback } from "../gateway/pipeline/fallback.js";
import { type SessionGatewayDeps } from "../gateway/http/server.js";
import { createEgressLock, type EgressLock, type EgressLockDeps } from "../gateway/features/egress/siblingLock.js";
import type { UsageWallDeps } from "../gateway/features/usageWall/lane.js";
import { createLimitResetClient } from "../gateway/features/usageWall/limitReset.js";
import { createPipeline, type PipelineBudgets, type PipelineDeps } from "../gateway/pipeline/pipeline.js";
import { blockedForMs } from "../gateway/pipeline/select.js";
import { RequestFeatures } from "../gateway/features/index.js";
import { continuationFeature } from "../gateway/features/continuation.js";
import { egressFeature } from "../gateway/features/egress.js";
import { provenanceFeature } from "../gateway/features/provenance.js";
import { responsesTurnsFeature } from "../gateway/features/responsesTurns.js";
import { toolLimitsFeature } from "../gateway/features/toolLimits.js";
import { contextFitFeature } from "../gateway/features/contextFit.js";
import { ModelWindows } from "../gateway/features/contextFit/windows.js";
import { ContextWindows } from "../engine/contextWindows.js";
import { trafficClassesFeature } from "../gateway/features/trafficClasses.js";
import { usageWallFeature } from "../gateway/features/usageWall.js";
import { warmCacheFeature } from "../gateway/features/warmCache.js";
import { billingBoundaryFeature, boundaryGuard } from "../gateway/features/billingBoundary.js";
import { clientLoginsFeature } from "../gateway/features/clientLogins.js";
import { leaseHoldersFeature, leaseNarrowingFeature } from "../gateway/features/leaseNarrowing.js";
import { keyBudgetsFeature } from "../gateway/features/keyBudgets.js";
import { quotaCutoffFeature, type QuotaCutoffPort } from "../gateway/features/quotaCutoff.js";
import { prepareResponsesTurn, type ResponsesTurnDeps } from "../gateway/features/responses/turn.js";
import { withGroupProbe } from "../gateway/pipeline/admit.js";
import type { CatalogPort, ConnectionsPort } from "../gateway/context/ports.js";
import { createAdmissionControl } from "../gateway/pipeline/admission/control.js";
import { followRedisUrl } from "../gateway/pipeline/admission/sharedLimits.js";
import type { SharedState } from "../engine/sharedState.js";
import { connectionKeys, type ConnectionKeys, shareLeases, sharePins, shareQueuePauses, shareQuota, sharedToolLimits } from "../group/sessionKinds.js";
import { shareEngineState } from "../group/engineKinds.js";
import { shareProvenance } from "../group/provenanceKind.js";
import { createUpstreamCaller } from "../gateway/upstream/call.js";
import { createRouting } from "../gateway/pipeline/routing/index.js";
import { type Store } from "../store/index.js";
import { type EventBus } from "./eventBus.js";
import type { createLogger } from "./logger.js";
import type { AdjustableClock } from "./clock.js";
import { createQuotaObserver, type QuotaLogger } from "./quotaObserver.js";
import type { createUsageParts } from "./usage.js";
import { createSettingsCache } from "./settingsCache.js";
import { createBuiltinSimulator } from "./builtinSimulator.js";

/** R7.2: how long an exclusive lease lives without a renew. */
export const LEASE_TTL_MS = 300_000;

/** Interval of keep-alive frames sent to a streaming client while no content has arrived yet. */
export const DEFAULT_STREAM_HEARTBEAT_MS = 15_000;

export function heartbeatMs(env: NodeJS.ProcessEnv): number {
  const value = Number(env.SWITCHYARD_STREAM_HEARTBEAT_MS);
  return Number.isFinite(value) && value >= 100 ? value : DEFAULT_STREAM_HEARTBEAT_MS;
}

/**
 * The stream budgets of one request: the live streamRecovery settings and a heartbeat read from
 * the environment once (it is fixed for the process; reading process.env per request costs).
 */
export function pipelineBudgets(streamRecovery: () => ResilienceSettings["streamRecovery"], heartbeat: number): () => PipelineBudgets {
  return () => {
    const s = streamRecovery();
    return {
      contentStallTimeoutMs: s.contentStallTimeoutMs,
      idleTimeoutMs: s.idleTimeoutMs,
      throughput: s.throughputWatchdog,
      recoveryEnabled: s.enabled,
      midstreamEnabled: s.midstreamEnabled,
      heartbeatMs: heartbeat,
    };
  };
}

/** Session pins and exclusive leases (R7), loaded once from the store, kept in memory and shared with the group (R19.1). */
export function createSessionBooks(store: Store, clock: Clock, settings: () => AppSettings, engine: SessionGatewayDeps["engine"], sharedState: SharedState): SessionGatewayDeps {
  const pins = new SessionPins(store.sessionPins, clock, () => settings().sessionAffinityTtlMs);
  const leases = new LeaseBook(store.leases, clock, LEASE_TTL_MS);
  const keys = connectionKeys(store.connections);
  sharePins(sharedState, pins, keys, clock);
  return {
    pins,
    leases,
    acquireLease: shareLeases(sharedState, leases, keys, clock),
    clock,
    engine,
    connectionById: (id) => store.connections.get(id),
    providerById: (id) => store.providers.get(id),
  };
}

/** R15.1 retention, and prompt logging: off keeps no prompt, on keeps each for its retention. */
export function applyLogSettings(store: Store, settings: AppSettings): void {
  store.logs.setRetention(settings.requestLogRetention);
  store.logs.setPromptRetention(settings.promptLogging ? settings.promptRetentionHours * 3_600_000 : null);
  // R16.4: a shorter responsesRetentionHours applies to the turns already stored; 0 erases them now.
  store.responses.capRetention(settings.responsesRetentionHours * 3_600_000);
}

/**
 * The resilience engine, its runtime writes and breaker saves handed to the group and what the
 * group says applied back to it (R19.1); without Redis the hub is local and nothing leaves.
 */
export function createSharedEngine(deps: {
  store: Store;
  clock: Clock;
  bus: EventBus;
  sharedState: SharedState;
  settings: () => ResilienceSettings;
  appSettings: () => AppSettings;
}) {
  const { store, clock, bus } = deps;
  const sharing = shareEngineState({ shared: deps.sharedState, rows: store.connections, breakers: store.breakers, clock, emit: bus.emit });
  const engine = createResilienceEngine({
    clock,
    breakers: sharing.breakers,
    connections: sharing.connections,
    share: sharing.share,
    getSettings: deps.settings,
    getAppSettings: deps.appSettings,
    emit: bus.emit,
    answers: answerReader,
  });
  sharing.bind(engine, bus.subscribe);
  return engine;
}

/** The Redis a group of Switchyards shares: the settings' URL, else SWITCHYARD_REDIS_URL (R9.6, R19.1). */
export const redisUrlOf = (env: NodeJS.ProcessEnv, appSettings: () => AppSettings) => (): string | null => appSettings().redisUrl ?? env.SWITCHYARD_REDIS_URL ?? null;

/** Admission control (R8, R9) and the Redis it shares limits through (R9.6). */
export function createAdmissionParts(deps: {
  env: NodeJS.ProcessEnv;
  clock: Clock;
  bus: EventBus;
  engine: ReturnType<typeof createResilienceEngine>;
  settings: () => ResilienceSettings;
  appSettings: () => AppSettings;
  sharedState: SharedState;
  keys: ConnectionKeys;
}) {
  const shared = followRedisUrl(redisUrlOf(deps.env, deps.appSettings));
  const control = createAdmissionControl({
    clock: deps.clock,
    settings: deps.settings,
    globalCap: () => deps.appSettings().maxConcurrent,
    shared: shared.current,
    groupSlot: () => deps.sharedState.groupSlot(),
    lockModel: (input) => deps.engine.lockModel(input),
    onChange: (queues) => deps.bus.emit({ type: "queues", queues, at: deps.clock.now() }),
  });
  shareQueuePauses(deps.sharedState, control, deps.keys, deps.clock);
  // A pause learned from a 429 is part of that connection's cooling: when the cooldown ends early, so does it.
  deps.bus.subscribe((e) => {
    if (e.type === "cooldown.cleared") control.resume(e.connectionId);
    if (e.type === "config" && e.entity === "connection" && e.action === "deleted") control.forget(e.id);
  });
  return {
    control,
    /** What the request path admits through: the gates, and the group's one HALF_OPEN probe (R19.2). */
    stage: withGroupProbe(control, {
      shared: deps.sharedState,
      engine: deps.engine,
      probeTtlMs: (provider) => resolveBreakerProfile(deps.settings().providerBreaker[provider.category]).resetTimeoutMs,
    }),
    shared,
    health: () => ({ queues: control.queues(), sharedLimits: shared.state(), sharedState: deps.sharedState.status() }),
    async close() {
      await control.close();
      await shared.close();
    },
  };
}

/**
 * R18.3 quota meters and quotaPreflightCutoff (R10.2): every attempt's quota headers go to the store
 * and to the remaining shares selection reads, live with the setting.
 */
export function quotaParts(
  store: Store,
  bus: EventBus,
  settings: () => ResilienceSettings,
  group: { sharedState: SharedState; clock: Clock },
  logger?: QuotaLogger,
): Pick<PipelineDeps, "quotas"> & { quotaCutoff: QuotaCutoffPort } {
  const remaining = new RemainingQuota();
  shareQuota(group.sharedState, remaining, connectionKeys(store.connections), group.clock);
  return {
    quotas: createQuotaObserver(store, bus, remaining, logger),
    quotaCutoff: {
      cutoffPercent() {
        const cutoff = settings().quotaPreflightCutoff;
        return cutoff.enabled ? cutoff.cutoffPercent : null;
      },
      remaining: (connectionId, now) => remaining.shareOf(connectionId, now),
    },
  };
}

/**
 * The request path's account-level rules beyond the engine's own: the egress-bucketed sibling lock
 * (R12.5) and the usage-wall lane, which reads the engine's per-connection state and the request's
 * own timeout (R12.6).
 */
export function accountRules(
  egress: EgressLockDeps & { engine: { usageWall: UsageWallDeps["book"] } },
  requestTimeoutMs: () => number,
  limitReset: UsageWallDeps["limitReset"],
): { egressLock: EgressLock; usageWall: UsageWallDeps } {
  return {
    egressLock: createEgressLock(egress),
    usageWall: { book: egress.engine.usageWall, clock: egress.clock, random: Math.random, requestTimeoutMs, limitReset },
  };
}

/**
 * R21.2: the row of a login's account, made the first time the login is seen: the template's
 * settings, the digest's name, no secret (the login lives in its requests only).
 */
function loginAccount(store: Store, template: Connection, login: ClientLogin): Connection {
  const id = login.accountId(template.id);
  const found = store.connections.get(id);
  if (found) return found;
  try {
    return store.connections.create({
      id,
      provider: template.provider,
      name: login.accountName(template.name),
      priority: template.priority,
      weight: template.weight,
      active: true,
      maxConcurrent: template.maxConcurrent,
      rateLimitOverrides: template.rateLimitOverrides,
      providerSpecificData: template.providerSpecificData,
      disableCooling: template.disableCooling,
      subscription: template.subscription || login.subscription,
      budget: template.budget,
      credential: "client",
      accountOf: template.id,
    });
  } catch (err) {
    // Made meanwhile by another request of the same login.
    const made = store.connections.get(id);
    if (made) return made;
    throw err;
  }
}

/** One marked copy per stored provider object, so a plan's memo (keyed on identity) holds until a write. */
const marked = new WeakMap<Provider, Provider>();

/** R21.10: the providers, those with a client-login connection marked as serving logins. */
function withLoginPassthrough(store: Store): Provider[] {
  const providers = store.providers.list();
  let logins: Set<string> | null = null;
  for (const c of store.connections.list()) if (c.credential === "client" && c.accountOf === null && c.active) (logins ??= new Set()).add(c.provider);
  if (logins === null) return providers;
  return providers.map((p) => {
    if (!logins.has(p.id)) return p;
    let copy = marked.get(p);
    if (!copy) marked.set(p, (copy = { ...p, servesLogins: true }));
    return copy;
  });
}

/** What the request path reads of the configuration: the catalogue and each provider's connections. */
export function gatewayPorts(store: Store, settings: () => AppSettings): { catalog: CatalogPort; connections: ConnectionsPort } {
  return {
    catalog: {
      providers: () => withLoginPassthrough(store),
      combo: (name) => store.combos.get(name),
      combos: () => store.combos.list(),
      aliases: () => settings().aliases,
    },
    connections: {
      listByProvider: (provider) => store.connections.list({ provider }),
      secret: (id) => store.connections.getSecret(id),
      accountFor: (template, login) => accountView(template, loginAccount(store, template, login)),
    },
  };
}

/** R22.3: the one provenance book of the attempts and the Responses turns, kept in the store and shared with the group. */
export function createProvenanceBook(store: Store, sharedState: SharedState, clock: Clock): ReasoningProvenance {
  const book = new ReasoningProvenance({ keeper: store.reasoningProvenance, now: () => clock.now() });
  shareProvenance(sharedState, book, connectionKeys(store.connections), clock);
  return book;
}

/** R25.1: the context windows of the provider models, the learned ones kept in the store. */
export function createModelWindows(store: Store, clock: Clock): ModelWindows {
  const book = new ContextWindows(store.modelWindows.loadAll());
  book.onChange((row) => store.modelWindows.keep(row));
  return new ModelWindows(book, clock);
}

/** What the request pipeline is built from: the parts buildApp made before it. */
export interface GatewayPipelineParts {
  store: Store;
  bus: EventBus;
  clock: AdjustableClock;
  env: NodeJS.ProcessEnv;
  logger: ReturnType<typeof createLogger>;
  engine: ReturnType<typeof createSharedEngine>;
  usage: ReturnType<typeof createUsageParts>;
  admission: ReturnType<typeof createAdmissionParts>;
  callUpstream: ReturnType<typeof createUpstreamCaller>;
  resilience: ReturnType<typeof createSettingsCache>;
  getAppSettings: () => AppSettings;
  sharedState: SharedState;
  catalog: CatalogPort;
  connections: ConnectionsPort;
  builtinSimulator: ReturnType<typeof createBuiltinSimulator>;
  userAgent: string;
  provenance: ReasoningProvenance;
  modelWindows: ModelWindows;
}

/** The request pipeline (DESIGN.md's one-request flow) over the engine, admission, usage and the group's state. */
export function createGatewayPipeline(parts: GatewayPipelineParts): ReturnType<typeof createPipeline> {
  const { store, bus, clock, env, engine, usage, resilience, sharedState, catalog, connections, builtinSimulator, userAgent } = parts;
  const streamRecovery = () => resilience.get().streamRecovery;
  const codingAgents = resilience.get;
  const rules = accountRules(
    { catalog, connections, history: store.logs, engine, clock },
    () => streamRecovery().attemptDeadlineMs,
    createLimitResetClient({ baseUrlFor: builtinSimulator.baseUrlFor, secret: connections.secret, userAgent }),
  );
  const { quotas, quotaCutoff } = quotaParts(store, bus, resilience.get, { sharedState, clock }, parts.logger);
  const turns = responsesTurnDeps(parts);
  // R22: every capability of a request is a feature, called at its hooks in features/index.ts's order.
  const features = new RequestFeatures([
    responsesTurnsFeature({ "openai-responses": { prepare: (body) => prepareResponsesTurn(turns, body) } }),
    egressFeature(rules.egressLock),
    toolLimitsFeature(sharedToolLimits(sharedState, clock)),
    contextFitFeature(parts.modelWindows, boundaryGuard({ settings: resilience.get })),
    trafficClassesFeature({ settings: codingAgents, classify: trafficClassOf }),
    clientLoginsFeature({ connections: { accountFor: connections.accountFor! } }),
    leaseNarrowingFeature(),
    keyBudgetsFeature(usage.gate),
    leaseHoldersFeature(),
    quotaCutoffFeature(quotaCutoff),
    warmCacheFeature({ settings: codingAgents, warmCaches: new WarmCaches(), clock, blockedForMs: (target, id) => blockedForMs(target, { engine, connections, clock }, id) }),
    billingBoundaryFeature({ settings: resilience.get, connections, providers: () => catalog.providers(), clock, emit: bus.emit, log: parts.logger }),
    continuationFeature(() => streamRecovery().midstreamEnabled === true),
    provenanceFeature({ book: parts.provenance, settings: codingAgents }),
    usageWallFeature(rules.usageWall),
  ]);
  return createPipeline({
    catalog,
    connections,
    requestLog: usage.log,
    usageMeter: usage.meter,
    budgets: usage.gate,
    logger: parts.logger,
    engine,
    admission: parts.admission.stage,
    callUpstream: parts.callUpstream,
    clock,
    emit: bus.emit,
    features,
    routing: createRouting(() => resilience.get(), parts.modelWindows),
    // Read only when a request is about to fail, so a toggle applies to the next one (R10.3).
    emergencyFallback: () => effectiveEmergencyFallback(store.settings.getDocument("settings"), env),
    streamBudgets: pipelineBudgets(streamRecovery, heartbeatMs(env)),
    promptLogging: () => parts.getAppSettings().promptLogging,
    quotas,
    maxHeldWaitMs: () => (codingAgents().waitOrSwitch.enabled ? codingAgents().waitOrSwitch.maxWaitMs : 0),
  });
}

/** R16.4: the stored turns a Responses request continues, and the provenance its reasoning items go to. */
function responsesTurnDeps(parts: GatewayPipelineParts): ResponsesTurnDeps {
  const { store, clock } = parts;
  return { stored: store.responses, retentionHours: () => parts.getAppSettings().responsesRetentionHours, now: () => clock.now(), provenance: parts.provenance };
}
