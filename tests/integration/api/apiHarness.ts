// A small real-HTTP management server for the API tests: host guard + createApiRouter over a
// real store in a temp home, listening on 127.0.0.1:0. undici.request is used (not fetch) so
// that tests can send any Host / Origin header.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import express from "express";
import { request } from "undici";
import type { ConnectionTestResult } from "../../../shared/apiTypes.js";
import type { ContractHandlers } from "../../../shared/contract.js";
import type { SwitchyardEvent } from "../../../shared/types.js";
import { createEventBus } from "../../../main/app/eventBus.js";
import { type ManagementHandlers, createApiRouter, createHostGuard, createManagementHandlers, sseEventsHandler, unavailableHandlers } from "../../../main/api/index.js";
import { createFileKeyCipher, createStore } from "../../../main/store/index.js";
import type { Store } from "../../../main/store/types.js";

const ENGINE_METHODS = [
  "getResilience",
  "patchResilience",
  "getResilienceSources",
  "resetBreakers",
  "listCooldowns",
  "clearCooldowns",
  "listModelCooldowns",
  "clearModelCooldowns",
  "monitoringHealth",
  "requestStats",
  "setRateLimitProtection",
  "getClock",
  "advanceClock",
  "listSessionPins",
  "unpinSession",
  "listSessionLeases",
  "releaseSessionLease",
  "startDemo",
  "getInstance",
  "getUsage",
  "getUsageCsv",
  "listQuotas",
] as const;

export const ADMIN_TOKEN = "test-admin-token-0123456789";

export interface CallResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: any;
}

export interface ApiServer {
  url: string;
  port: number;
  home: string;
  store: Store;
  events: SwitchyardEvent[];
  handlers: ManagementHandlers;
  settingsChanged: () => number;
  /** Every response body this server sent through `call`, for "no secret anywhere" checks. */
  transcript: string[];
  call(method: string, route: string, body?: unknown, headers?: Record<string, string>): Promise<CallResult>;
  /** Raw bytes of the SQLite files in the home (db + WAL), to prove what is stored at rest. */
  storedBytes(): string;
  close(): Promise<void>;
}

export interface ApiServerOptions {
  bodyLimitBytes?: number | (() => number);
  testConnection?: (id: string) => Promise<ConnectionTestResult>;
}

export async function startApiServer(opts: ApiServerOptions = {}): Promise<ApiServer> {
  const home = mkdtempSync(path.join(tmpdir(), "switchyard-api-"));
  const store = createStore({ dbPath: path.join(home, "switchyard.db"), cipher: createFileKeyCipher(home) });
  const bus = createEventBus();
  const events: SwitchyardEvent[] = [];
  bus.subscribe((event) => events.push(event));
  let settingsChanges = 0;
  const handlers = createManagementHandlers({
    store,
    bus,
    clock: { now: () => Date.now() },
    testConnection: opts.testConnection ?? (async () => ({ ok: true, latencyMs: 7 })),
    // The contract doctor needs a real upstream: tests/integration/api/doctor.test.ts runs it on a whole gateway.
    doctorProvider: async (_provider, connection) => ({ ok: true, checks: [], connectionId: connection.id, model: "m" }),
    onSettingsChanged: () => {
      settingsChanges += 1;
    },
  });
  const app = express();
  app.use(createHostGuard());
  // The engine's methods (resilience, monitoring, rate limits, debug clock) are wired by main/app;
  // here they are explicitly not served, so their routes answer 404 like any unknown path.
  const served: ContractHandlers = { ...handlers, ...unavailableHandlers(ENGINE_METHODS) };
  app.use(createApiRouter({ handlers: served, adminToken: ADMIN_TOKEN, bodyLimitBytes: opts.bodyLimitBytes, events: sseEventsHandler(bus) }));
  app.get("/health", (_req, res) => {
    res.json({ ok: true });
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  const transcript: string[] = [];

  return {
    url,
    port,
    home,
    store,
    events,
    handlers,
    settingsChanged: () => settingsChanges,
    transcript,
    async call(method, route, body, headers = {}) {
      const payload = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
      const res = await request(url + route, {
        method: method as "GET",
        headers: {
          authorization: `Bearer ${ADMIN_TOKEN}`,
          ...(payload !== undefined ? { "content-type": "application/json" } : {}),
          ...headers,
        },
        body: payload,
      });
      const text = await res.body.text();
      transcript.push(text);
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        // YAML and SSE bodies stay text.
      }
      return { status: res.statusCode, headers: res.headers, text, body: parsed };
    },
    storedBytes() {
      store.logs.flush();
      return readdirSync(home)
        .filter((f) => f.startsWith("switchyard.db"))
        .map((f) => readFileSync(path.join(home, f)).toString("latin1"))
        .join("\n");
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      store.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

export const SIM_PROVIDER = { id: "sim", format: "openai", baseUrl: "http://127.0.0.1:9/v1", category: "apikey", models: ["m1", "m2"] };
