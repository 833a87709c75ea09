// Composition root: build(config) -> {store, engine, gateway, api} (DESIGN.md). No singletons:
// a test builds a whole gateway in-process on an ephemeral port.
import { createServer, type Server } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { normaliseAppSettings } from "../../shared/schemas/appSettings.js";
import type { ContractHandlers } from "../../shared/contract.js";
import type { AppSettings } from "../../shared/types.js";
import {
  applyConfigDocument,
  createApiRouter,
  createHostGuard,
  createManagementHandlers,
  createMonitoringHandlers,
  createQuotaHandlers,
  createResilienceHandlers,
  createSessionHandlers,
  loadConfigFile,
  sseEventsHandler,
} from "../api/index.js";
import { hostAcceptor } from "../api/hostGuard.js";
import { createGatewayApp, type GatewayApp } from "../gateway/http/server.js";
import { isSubscription } from "../gateway/features/billingBoundary.js";
import { followSharedState, type SharedStateSwitch } from "../group/follow.js";
import type { SharedState } from "../engine/sharedState.js";
import { connectionKeys } from "../group/sessionKinds.js";
import { createUpstreamCaller } from "../gateway/upstream/call.js";
import { createUpstreamClient } from "../gateway/upstream/client.js";
import { createFileKeyCipher, createStore, type SecretCipher } from "../store/index.js";
import { createClock } from "./clock.js";
import { createConnectionTester } from "./connectionTest.js";
import { createProviderDoctor, type ProviderDoctor } from "./providerDoctor.js";
import { createEventBus, type EventBus } from "./eventBus.js";
import { loadAdminToken, resolveHome } from "./home.js";
import { createLogger } from "./logger.js";
import { createUsageParts, withBudgetRows } from "./usage.js";
import { createGatewayMetrics, engineMetricsSources } from "./metrics.js";
import { createSettingsCache } from "./settingsCache.js";
import { createDemoControl, createInstanceHandlers } from "./demoControl.js";
import { createBuiltinSimulator } from "./builtinSimulator.js";
import { VERSION } from "./version.js";
import { clientRouteSettings, planBind, type BindPlan } from "./bind.js";
import {
  applyLogSettings,
  createAdmissionParts,
  createGatewayPipeline,
  createProvenanceBook,
  createModelWindows,
  createSessionBooks,
  createSharedEngine,
  gatewayPorts,
  redisUrlOf,
  type GatewayPipelineParts,
} from "./buildParts.js";
import type { SessionGatewayDeps } from "../gateway/http/server.js";

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

/** The HTTP server on its address: the gateway's requests, and its Responses WebSockets (R26.1). */
async function listen(app: GatewayApp, port: number, host: string): Promise<{ server: Server; port: number }> {
  const server: Server = createServer(app);
  server.on("upgrade", app.upgrade);
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 70_000;
  // Long generations stream for many minutes; node's default request timeout would cut them.
  server.requestTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  // Bound to a host and port (not a pipe), the address is an AddressInfo: `port` 0 gets the one picked.
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error(`listening on ${String(address)}, not on a TCP port`);
  return { server, port: address.port };
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
const DASHBOARD_DIR = here.split(path.sep).includes("dist") ? path.resolve(here, "..", "..", "renderer") : path.resolve(here, "..", "..", "dist", "renderer");

/** What the management API and the tray call (the contract's handlers), over the gateway's parts. */
function createHandlers(
  parts: GatewayPipelineParts,
  extra: {
    testConnection: ReturnType<typeof createConnectionTester>;
    doctorProvider: ProviderDoctor;
    onSettingsChanged: () => void;
    startedAt: number;
    sessions: SessionGatewayDeps;
    demo: ReturnType<typeof createDemoControl>;
    url: () => string;
  },
): ContractHandlers {
  const { store, bus, clock, engine, usage, resilience, admission } = parts;
  return {
    ...createManagementHandlers({
      ...{ store, bus, clock, testConnection: extra.testConnection, doctorProvider: extra.doctorProvider, budgetUsed: usage.budgetUsed },
      ...{ validateResilience: resilience.validate, onSettingsChanged: extra.onSettingsChanged },
    }),
    ...createResilienceHandlers({
      store,
      engine,
      bus,
      clock,
      settings: resilience,
      startedAt: extra.startedAt,
      admission: admission.health,
      budgetRows: (rows, connections, provider) => withBudgetRows(rows, connections, usage.gate, provider),
    }),
    ...createMonitoringHandlers({ store, clock }),
    ...createQuotaHandlers({ store, clock }),
    ...usage.handlers,
    ...createSessionHandlers({ ...extra.sessions, store }),
    ...createInstanceHandlers(extra.demo, extra.url, VERSION),
  };
}

/** The client routes, the dashboard and the management API on one request listener. */
function createServerApp(
  parts: GatewayPipelineParts,
  extra: {
    pipeline: ReturnType<typeof createGatewayPipeline>;
    bind: BindPlan;
    apiRouter: ReturnType<typeof createApiRouter>;
    sessions: SessionGatewayDeps;
    adminToken: string;
    metricsRoute: ReturnType<typeof createGatewayMetrics>["route"];
  },
): GatewayApp {
  const { store, clock, getAppSettings } = parts;
  return createGatewayApp({
    // R16.4: stored Responses API turns, for previous_response_id and GET/DELETE /v1/responses/{id}.
    storedResponses: { port: store.responses, clock, retentionHours: () => getAppSettings().responsesRetentionHours },
    ...{ provenance: parts.provenance, catalog: parts.catalog, connections: parts.connections, engine: parts.engine, clock, pipeline: extra.pipeline },
    windows: parts.modelWindows,
    ...{ callUpstream: parts.callUpstream, appSettings: clientRouteSettings(extra.bind, getAppSettings), version: VERSION, requestLog: parts.usage.log, logger: parts.logger },
    verifyClientKey: (key) => store.apiKeys.verify(key),
    hostGuard: createHostGuard({ allowedHostnames: extra.bind.allowedHostnames }),
    acceptsHost: hostAcceptor({ allowedHostnames: extra.bind.allowedHostnames }),
    // R26.3: a Responses WebSocket's idle limit (the variable lets a test shorten it).
    socketIdleMs: Number(parts.env.SWITCHYARD_WS_IDLE_MS) || undefined,
    // R26.1: permessage-deflate on the socket, for a Switchyard reached over a real network (off on loopback: CPU only).
    socketDeflate: parts.env.SWITCHYARD_WS_DEFLATE === "1",
    // R26.4: Codex's usage view from the pool's windows.
    codexUsage: {
      windows: () => store.quotas.list(),
      pins: extra.sessions.pins,
      boundary: () => parts.resilience.get().billingBoundary.main,
      meteredAvailable: () =>
        parts.catalog.providers().some((p) => parts.connections.listByProvider(p.id).some((c) => c.active && c.credential !== "client" && !isSubscription(c, p))),
      clock,
    },
    ...{ apiRouter: extra.apiRouter, dashboardDir: DASHBOARD_DIR, sessions: extra.sessions },
    metrics: extra.metricsRoute({ adminToken: extra.adminToken, isPublic: () => getAppSettings().metricsPublic }),
  });
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
    upstream,
    baseUrlFor: builtinSimulator.baseUrlFor,
    userAgent,
    timeouts: () => ({ attemptDeadlineMs: streamRecovery().attemptDeadlineMs, idleTimeoutMs: streamRecovery().idleTimeoutMs }),
  });
  const testConnection = createConnectionTester({ store, callUpstream, clock, onPassed: (provider) => engine.connectionTestPassed(provider) });
  const doctorProvider = createProviderDoctor({ callUpstream, secretOf: (id) => store.connections.getSecret(id) });
  const admission = createAdmissionParts({ env, clock, bus, engine, settings: resilience.get, appSettings: getAppSettings, sharedState, keys: connectionKeys(store.connections) });
  const metrics = createGatewayMetrics(bus, engineMetricsSources({ engine, store, queues: () => admission.control.queues() }));
  // Uptime is a real duration; the test clock moves instants, not how long the process has run.
  const startedAt = Date.now();
  const demo = createDemoControl(store, bus, clock, opts.onProgress);
  const { catalog, connections } = gatewayPorts(store, getAppSettings);
  // R16.7, R22.3: the reasoning artifacts relayed, by the connection that issued them (attempts and turns share it).
  const provenance = createProvenanceBook(store, sharedState, clock);
  const modelWindows = createModelWindows(store, clock);
  const parts: GatewayPipelineParts = {
    ...{ store, bus, clock, env, logger, engine, usage, admission, callUpstream, resilience, getAppSettings },
    ...{ sharedState, catalog, connections, builtinSimulator, userAgent, provenance, modelWindows },
  };
  const onSettingsChanged = () => {
    appSettings = normaliseAppSettings(store.settings.getDocument("settings") ?? {});
    applyLogSettings(store, appSettings);
    resilience.reload();
    admission.shared.refresh();
    sharedState.refresh();
  };
  const handlers = createHandlers(parts, { testConnection, doctorProvider, onSettingsChanged, startedAt, sessions, demo, url: () => url });
  const pipeline = createGatewayPipeline(parts);
  const apiRouter = createApiRouter({ handlers, adminToken, bodyLimitBytes: () => getAppSettings().maxBodyMb * 1024 * 1024, events: sseEventsHandler(bus) });
  const bind = planBind(opts.host);
  const app = createServerApp(parts, { pipeline, bind, apiRouter, sessions, adminToken, metricsRoute: metrics.route });
  const { server, port } = await listen(app, opts.port, bind.host);
  const url = `http://${bind.urlHost}:${port}`;

  if (opts.demo) await demo.start();
  logger.debug({ home, port }, "switchyard started");

  let closed = false;
  return {
    url,
    port,
    home,
    adminToken,
    handlers,
    bus,
    sharedState,
    exposureWarning: bind.warning,
    async close() {
      if (closed) return;
      closed = true;
      // Stop accepting, let in-flight requests finish briefly, then cut what is left.
      const drained = new Promise<void>((resolve) => server.close(() => resolve()));
      app.upgrade.closeAll();
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
