// Composition root: build(config) -> {store, engine, gateway, api} (DESIGN.md). No singletons:
// a test builds a whole gateway in-process on an ephemeral port.
import { createServer, type RequestListener, type Server } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { normaliseAppSettings } from "../../shared/schemas/appSettings.js";
import type { ContractHandlers } from "../../shared/contract.js";
import type { ResilienceSettings } from "../../shared/resilienceSettings.js";
import type { AppSettings } from "../../shared/types.js";
import { createApiRouter, createHostGuard, createManagementHandlers, applyConfigDocument, loadConfigFile, sseEventsHandler } from "../api/index.js";
import { hostAcceptor } from "../api/hostGuard.js";
import { ReasoningProvenance } from "../gateway/responses/reasoningProvenance.js";
import { refuseUpgrade } from "../gateway/responses/upgrade.js";
import { createResilienceEngine } from "../engine/index.js";
import { resolveBreakerProfile } from "../engine/breaker.js";
import { LeaseBook } from "../engine/leases.js";
import { RemainingQuota } from "../engine/quotaCutoff.js";
import type { Clock } from "../engine/ports.js";
import { SessionPins } from "../engine/sessionAffinity.js";
import { effectiveEmergencyFallback } from "../gateway/request/fallback.js";
import { createGatewayApp, type SessionGatewayDeps } from "../gateway/server.js";
import { createEgressLock, type EgressLock, type EgressLockDeps } from "../gateway/egress/siblingLock.js";
import type { UsageWallDeps } from "../gateway/usageWall/lane.js";
import { createLimitResetClient } from "../gateway/usageWall/limitReset.js";
import { createPipeline, type PipelineBudgets, type PipelineDeps } from "../gateway/pipeline.js";
import { withGroupProbe } from "../gateway/request/admit.js";
import type { CatalogPort, ConnectionsPort } from "../gateway/ports.js";
import { createAdmissionControl } from "../gateway/admission/control.js";
import { followRedisUrl } from "../gateway/admission/sharedLimits.js";
import { followSharedState, type SharedStateSwitch } from "../gateway/sharedState/follow.js";
import type { SharedState } from "../gateway/sharedState/types.js";
import { connectionKeys, type ConnectionKeys, shareLeases, sharePins, shareQueuePauses, shareQuota, sharedToolLimits } from "../gateway/sharedState/sessionKinds.js";
import { shareEngineState } from "../gateway/sharedState/engineKinds.js";
import { createUpstreamCaller } from "../gateway/upstream/call.js";
import { createUpstreamClient } from "../gateway/upstream/client.js";
import { createRouting } from "../gateway/routing/index.js";
import { createFileKeyCipher, createStore, type SecretCipher, type Store } from "../store/index.js";
import { createClock } from "./clock.js";
import { createConnectionTester } from "./connectionTest.js";
import { createEventBus, type EventBus } from "./eventBus.js";
import { loadAdminToken, resolveHome } from "./home.js";
import { createLogger } from "./logger.js";
import { createMonitoringHandlers } from "./monitoringHandlers.js";
import { createQuotaHandlers, createQuotaObserver } from "./quotaHandlers.js";
import { createUsageParts } from "./usage.js";
import { createGatewayMetrics, engineMetricsSources } from "./metrics.js";
import { createSessionHandlers } from "./sessionHandlers.js";
import { createResilienceHandlers, createSettingsCache } from "./resilienceHandlers.js";
import { createDemoControl, createInstanceHandlers } from "./demoControl.js";
import { createBuiltinSimulator } from "./builtinSimulator.js";
import { VERSION } from "./version.js";
import { clientRouteSettings, planBind, type BindPlan } from "./bind.js";

export interface BuildOptions {
  home?: string;
  /** 0 picks a free port. */
  port: number;
  /** Listen address; anything but loopback must be chosen explicitly and forces client keys. */
  host?: string;
  config?: string;
  demo?: boolean;
  testClock?: boolean;
  cipher?: SecretCipher;
  env?: NodeJS.ProcessEnv;
  quiet?: boolean;
  /** Hears what a long step (the demo) is doing, line by line. */
  onProgress?: (line: string) => void;
}

/** R7.2: how long an exclusive lease lives without a renew. */
const LEASE_TTL_MS = 300_000;

/** Interval of keep-alive frames sent to a streaming client while no content has arrived yet. */
const DEFAULT_STREAM_HEARTBEAT_MS = 15_000;

function heartbeatMs(env: NodeJS.ProcessEnv): number {
  const value = Number(env.SWITCHYARD_STREAM_HEARTBEAT_MS);
  return Number.isFinite(value) && value >= 100 ? value : DEFAULT_STREAM_HEARTBEAT_MS;
}

/**
 * The stream budgets of one request: the live streamRecovery settings and a heartbeat read from
 * the environment once (it is fixed for the process; reading process.env per request costs).
 */
function pipelineBudgets(streamRecovery: () => ResilienceSettings["streamRecovery"], heartbeat: number): () => PipelineBudgets {
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

/** The HTTP server on its address: the gateway's requests, and its refusal of WebSocket upgrades (R16.3). */
async function listen(app: RequestListener, bind: BindPlan, port: number): Promise<{ server: Server; port: number }> {
  const server: Server = createServer(app);
  server.on("upgrade", refuseUpgrade(hostAcceptor({ allowedHostnames: bind.allowedHostnames })));
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 70_000;
  // Long generations stream for many minutes; node's default request timeout would cut them.
  server.requestTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, bind.host, () => resolve());
  });
  // Bound to a host and port (not a pipe), the address is an AddressInfo: `port` 0 gets the one picked.
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error(`listening on ${String(address)}, not on a TCP port`);
  return { server, port: address.port };
}

/** Session pins and exclusive leases (R7), loaded once from the store, kept in memory and shared with the group (R19.1). */
function createSessionBooks(store: Store, clock: Clock, settings: () => AppSettings, engine: SessionGatewayDeps["engine"], sharedState: SharedState): SessionGatewayDeps {
  const pins = new SessionPins(store.sessionPins, clock, () => settings().sessionAffinityTtlMs);
  const leases = new LeaseBook(store.leases, clock, LEASE_TTL_MS);
  const keys = connectionKeys(store.connections);
  sharePins(sharedState, pins, keys, clock);
  return {
    pins, leases, acquireLease: shareLeases(sharedState, leases, keys, clock),
    clock, engine,
    connectionById: (id) => store.connections.get(id),
    providerById: (id) => store.providers.get(id),
  };
}

/** R15.1 retention, and prompt logging: off keeps no prompt, on keeps each for its retention. */
function applyLogSettings(store: Store, settings: AppSettings): void {
  store.logs.setRetention(settings.requestLogRetention);
  store.logs.setPromptRetention(settings.promptLogging ? settings.promptRetentionHours * 3_600_000 : null);
  // R16.4: a shorter responsesRetentionHours applies to the turns already stored; 0 erases them now.
  store.responses.capRetention(settings.responsesRetentionHours * 3_600_000);
}

/**
 * The resilience engine, its runtime writes and breaker saves handed to the group and what the
 * group says applied back to it (R19.1); without Redis the hub is local and nothing leaves.
 */
function createSharedEngine(deps: { store: Store; clock: Clock; bus: EventBus; sharedState: SharedState; settings: () => ResilienceSettings; appSettings: () => AppSettings }) {
  const { store, clock, bus } = deps;
  const sharing = shareEngineState({ shared: deps.sharedState, rows: store.connections, breakers: store.breakers, clock, emit: bus.emit });
  const engine = createResilienceEngine({
    clock, breakers: sharing.breakers, connections: sharing.connections, share: sharing.share,
    getSettings: deps.settings, getAppSettings: deps.appSettings, emit: bus.emit,
  });
  sharing.bind(engine, bus.subscribe);
  return engine;
}

/** The Redis a group of Switchyards shares: the settings' URL, else SWITCHYARD_REDIS_URL (R9.6, R19.1). */
const redisUrlOf = (env: NodeJS.ProcessEnv, appSettings: () => AppSettings) => (): string | null => appSettings().redisUrl ?? env.SWITCHYARD_REDIS_URL ?? null;

/** Admission control (R8, R9) and the Redis it shares limits through (R9.6). */
function createAdmissionParts(deps: {
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
    clock: deps.clock, settings: deps.settings, globalCap: () => deps.appSettings().maxConcurrent, shared: shared.current, groupSlot: () => deps.sharedState.groupSlot(), lockModel: (input) => deps.engine.lockModel(input),
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
      shared: deps.sharedState, engine: deps.engine,
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
function quotaParts(store: Store, bus: EventBus, settings: () => ResilienceSettings, group: { sharedState: SharedState; clock: Clock }): Pick<PipelineDeps, "quotas" | "quotaCutoff"> {
  const remaining = new RemainingQuota();
  shareQuota(group.sharedState, remaining, connectionKeys(store.connections), group.clock);
  return {
    quotas: createQuotaObserver(store, bus, remaining),
    quotaCutoff: {
      cutoffPercent() {
        const cutoff = settings().quotaPreflightCutoff;
        return cutoff.enabled ? cutoff.cutoffPercent : null;
      },
      remaining: (connectionId, now) => remaining.shareOf(connectionId, now),
    },
  };
}

export interface SwitchyardApp {
  url: string;
  port: number;
  home: string;
  adminToken: string;
  handlers: ContractHandlers;
  bus: EventBus;
  /** R19: the resilience state this instance shares with its group (local without Redis). */
  sharedState: SharedState;
  /** Set when the port is reachable from other machines (a non-loopback host was chosen). */
  exposureWarning: string | null;
  close(): Promise<void>;
}

const here = path.dirname(fileURLToPath(import.meta.url));
/** The Vite build output: dist/main/app -> dist/renderer; from sources (tests) main/app -> dist/renderer. */
const DASHBOARD_DIR = here.split(path.sep).includes("dist")
  ? path.resolve(here, "..", "..", "renderer")
  : path.resolve(here, "..", "..", "dist", "renderer");

/**
 * The request path's account-level rules beyond the engine's own: the egress-bucketed sibling lock
 * (R12.5) and the usage-wall lane, which reads the engine's per-connection state and the request's
 * own timeout (R12.6).
 */
function accountRules(
  egress: EgressLockDeps & { engine: { usageWall: UsageWallDeps["book"] } },
  requestTimeoutMs: () => number,
  limitReset: UsageWallDeps["limitReset"],
): { egressLock: EgressLock; usageWall: UsageWallDeps } {
  return {
    egressLock: createEgressLock(egress),
    usageWall: { book: egress.engine.usageWall, clock: egress.clock, random: Math.random, requestTimeoutMs, limitReset },
  };
}

/** What the request path reads of the configuration: the catalogue and each provider's connections. */
function gatewayPorts(store: Store, settings: () => AppSettings): { catalog: CatalogPort; connections: ConnectionsPort } {
  return {
    catalog: {
      providers: () => store.providers.list(),
      combo: (name) => store.combos.get(name),
      combos: () => store.combos.list(),
      aliases: () => settings().aliases,
    },
    connections: {
      listByProvider: (provider) => store.connections.list({ provider }),
      secret: (id) => store.connections.getSecret(id),
    },
  };
}

export async function buildApp(opts: BuildOptions): Promise<SwitchyardApp> {
  const env = opts.env ?? process.env;
  const home = resolveHome(opts.home);
  const logger = createLogger(opts.quiet ? "warn" : undefined);
  const clock = createClock(Boolean(opts.testClock || env.SWITCHYARD_TEST_CLOCK === "1"));
  const cipher = opts.cipher ?? createFileKeyCipher(home);
  const store = createStore({ dbPath: path.join(home, "switchyard.db"), cipher, clock, logWriter: "worker" });
  const bus = createEventBus();
  const adminToken = loadAdminToken(home, env);

  let appSettings: AppSettings = normaliseAppSettings(store.settings.getDocument("settings") ?? {});
  applyLogSettings(store, appSettings);
  const getAppSettings = () => appSettings;
  const resilience = createSettingsCache(store, env);
  if (opts.config) {
    applyConfigDocument(store, loadConfigFile(opts.config), env, { validateResilience: resilience.validate });
    resilience.reload();
    appSettings = normaliseAppSettings(store.settings.getDocument("settings") ?? {});
    applyLogSettings(store, appSettings);
  }
  const usage = createUsageParts({ store, bus, clock, logger });
  const sharedState: SharedStateSwitch = followSharedState(redisUrlOf(env, getAppSettings), { now: () => clock.now() });
  const engine = createSharedEngine({ store, clock, bus, sharedState, settings: resilience.get, appSettings: getAppSettings });
  const sessions = createSessionBooks(store, clock, getAppSettings, engine, sharedState);
  const upstream = createUpstreamClient();
  const builtinSimulator = createBuiltinSimulator();
  const userAgent = `switchyard/${VERSION}`;
  const streamRecovery = () => resilience.get().streamRecovery;
  const callUpstream = createUpstreamCaller({
    upstream, baseUrlFor: builtinSimulator.baseUrlFor, userAgent,
    timeouts: () => ({ attemptDeadlineMs: streamRecovery().attemptDeadlineMs, idleTimeoutMs: streamRecovery().idleTimeoutMs }),
  });
  const testConnection = createConnectionTester({ store, callUpstream, clock, onPassed: (provider) => engine.connectionTestPassed(provider) });
  const admission = createAdmissionParts({ env, clock, bus, engine, settings: resilience.get, appSettings: getAppSettings, sharedState, keys: connectionKeys(store.connections) });
  const metrics = createGatewayMetrics(bus, engineMetricsSources({ engine, store, queues: () => admission.control.queues() }));
  // Uptime is a real duration; the test clock moves instants, not how long the process has run.
  const startedAt = Date.now();
  const demo = createDemoControl(store, bus, clock, opts.onProgress);
  const handlers: ContractHandlers = {
    ...createManagementHandlers({
      store, bus, clock, testConnection, budgetUsed: usage.budgetUsed,
      validateResilience: resilience.validate,
      onSettingsChanged: () => {
        appSettings = normaliseAppSettings(store.settings.getDocument("settings") ?? {});
        applyLogSettings(store, appSettings);
        resilience.reload();
        admission.shared.refresh();
        sharedState.refresh();
      },
    }),
    ...createResilienceHandlers({ store, engine, bus, clock, settings: resilience, startedAt, admission: admission.health, budgets: usage.gate }),
    ...createMonitoringHandlers({ store, clock }),
    ...createQuotaHandlers({ store }),
    ...usage.handlers,
    ...createSessionHandlers({ ...sessions, store }),
    ...createInstanceHandlers(demo, () => url, VERSION),
  };

  const { catalog, connections } = gatewayPorts(store, getAppSettings);
  // R16.7: the reasoning artifacts relayed, by the connection that issued them (attempts and turns share it).
  const provenance = new ReasoningProvenance();
  const pipeline = createPipeline({
    catalog, connections, requestLog: usage.log, usageMeter: usage.meter, budgets: usage.gate, logger, engine, admission: admission.stage, callUpstream, clock, emit: bus.emit, routing: createRouting(() => resilience.get()),
    // Read only when a request is about to fail, so a toggle applies to the next one (R10.3).
    emergencyFallback: () => effectiveEmergencyFallback(store.settings.getDocument("settings"), env),
    toolLimits: sharedToolLimits(sharedState, clock),
    streamBudgets: pipelineBudgets(streamRecovery, heartbeatMs(env)),
    ...accountRules({ catalog, connections, history: store.logs, engine, clock }, () => streamRecovery().attemptDeadlineMs, createLimitResetClient({ baseUrlFor: builtinSimulator.baseUrlFor, secret: connections.secret, userAgent })),
    promptLogging: () => getAppSettings().promptLogging,
    provenance, ...quotaParts(store, bus, resilience.get, { sharedState, clock }),
  });
  const apiRouter = createApiRouter({ handlers, adminToken, bodyLimitBytes: () => getAppSettings().maxBodyMb * 1024 * 1024, events: sseEventsHandler(bus) });
  const bind = planBind(opts.host);
  const app = createGatewayApp({
    // R16.4: stored Responses API turns, for previous_response_id and GET/DELETE /v1/responses/{id}.
    storedResponses: { port: store.responses, clock, retentionHours: () => getAppSettings().responsesRetentionHours }, provenance,
    catalog, connections, engine, clock, pipeline, callUpstream, appSettings: clientRouteSettings(bind, getAppSettings), version: VERSION, requestLog: usage.log, logger,
    verifyClientKey: (key) => store.apiKeys.verify(key),
    hostGuard: createHostGuard({ allowedHostnames: bind.allowedHostnames }), apiRouter, dashboardDir: DASHBOARD_DIR, sessions,
    metrics: metrics.route({ adminToken, isPublic: () => getAppSettings().metricsPublic }),
  });

  const { server, port } = await listen(app, bind, opts.port);
  const url = `http://${bind.urlHost}:${port}`;

  if (opts.demo) await demo.start();
  logger.debug({ home, port }, "switchyard started");

  let closed = false;
  return {
    url, port, home, adminToken, handlers, bus, sharedState, exposureWarning: bind.warning,
    async close() {
      if (closed) return;
      closed = true;
      // Stop accepting, let in-flight requests finish briefly, then cut what is left.
      const drained = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), 5_000);
      timer.unref();
      await drained;
      clearTimeout(timer);
      await upstream.close().catch(() => undefined);
      await admission.close();
      await sharedState.close();
      await demo.close();
      await builtinSimulator.close();
      metrics.close();
      store.close();
    },
  };
}
