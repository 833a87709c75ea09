// In-memory ports, the real engine on a fake clock, and real loopback HTTP for the gateway's
// stage tests: nothing here opens SQLite.
import { createServer, IncomingMessage, ServerResponse, type Server } from "node:http";
import { Socket } from "node:net";
import { RequestContext } from "../../../main/gateway/context/requestContext.js";
import type { RequestSession } from "../../../main/gateway/context/requestSession.js";
import { RequestFeatures } from "../../../main/gateway/features/index.js";
import { leaseHoldersFeature, leaseNarrowingFeature } from "../../../main/gateway/features/leaseNarrowing.js";
import type { SelectionRequest } from "../../../main/gateway/pipeline/select.js";
import type { AddressInfo } from "node:net";
import type { Combo, Connection, Provider, RequestLogEntry, SwitchyardEvent, WireFormat } from "../../../shared/types.js";
import type { CatalogPort, ConnectionsPort, RequestLogSink } from "../../../main/gateway/context/ports.js";
import { ClientResponse } from "../../../main/gateway/context/clientResponse.js";
import { createUpstreamCaller, type UpstreamTimeouts } from "../../../main/gateway/upstream/call.js";
import { createUpstreamClient, type UpstreamClient } from "../../../main/gateway/upstream/client.js";
import { harness, type Harness } from "../engine/fixtures.js";

export { connection, provider, T0 } from "../engine/fixtures.js";

export interface Ports {
  h: Harness;
  catalog: CatalogPort & { list: Provider[]; combos_: Combo[]; aliases_: Record<string, string> };
  connections: ConnectionsPort;
  secrets: Map<string, string>;
  log: RequestLogSink & { entries: RequestLogEntry[] };
  events: SwitchyardEvent[];
}

export function ports(opts: { providers?: Provider[]; connections?: Connection[]; combos?: Combo[]; aliases?: Record<string, string>; settings?: unknown } = {}): Ports {
  const h = harness({ connections: opts.connections, settings: opts.settings });
  const list = opts.providers ?? [];
  const combos = opts.combos ?? [];
  const aliases = opts.aliases ?? {};
  const secrets = new Map<string, string>();
  const entries: RequestLogEntry[] = [];
  return {
    h,
    secrets,
    catalog: {
      list,
      combos_: combos,
      aliases_: aliases,
      providers: () => list,
      combo: (name) => combos.find((c) => c.name === name) ?? null,
      combos: () => combos,
      aliases: () => aliases,
    },
    // Reads the engine's own runtime rows, so cooldowns it records are what selection sees next.
    connections: {
      listByProvider: (id) => h.store.list().filter((c) => c.provider === id),
      secret: (id) => secrets.get(id) ?? null,
    },
    log: { entries, append: (entry) => void entries.push(entry) },
    events: [],
  };
}

export function combo(name: string, models: string[]): Combo {
  return { name, strategy: "priority", targets: models.map((model) => ({ model })), config: {}, createdAt: 0, updatedAt: 0 };
}

/** A real node:http server on loopback; `handle` gets each request. */
export async function listen(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface ClientSide {
  client: ClientResponse;
  /** The client's view: status, headers and the whole body once the response ends. */
  response: Promise<{ status: number; headers: Headers; text: string }>;
  /** The client hangs up. */
  hangUp(): void;
  close(): Promise<void>;
}

/** A ClientResponse bound to a real server response, with a real fetch() as its client. */
export async function clientSide(p: Ports, opts: { format?: WireFormat; stream?: boolean; requestId?: string; model?: string } = {}): Promise<ClientSide> {
  let resolveClient!: (c: ClientResponse) => void;
  const ready = new Promise<ClientResponse>((resolve) => (resolveClient = resolve));
  const srv = await listen((_req, res) =>
    resolveClient(
      new ClientResponse(res, {
        format: opts.format ?? "openai",
        requestId: opts.requestId ?? "req-1",
        model: opts.model ?? "p/m",
        stream: opts.stream ?? false,
        clock: p.h.clock,
        log: p.log,
        emit: (e) => p.events.push(e),
      }),
    ),
  );
  const caller = new AbortController();
  const response = fetch(srv.url, { method: "POST", body: "{}", signal: caller.signal }).then(async (r) => ({ status: r.status, headers: r.headers, text: await r.text() }));
  // Tests that never finish the response close the server under it; only an awaited rejection counts.
  response.catch(() => undefined);
  const client = await ready;
  return { client, response, hangUp: () => caller.abort(), close: srv.close };
}

export function upstreamCaller(timeouts: Partial<UpstreamTimeouts> = {}, upstream: UpstreamClient = createUpstreamClient()) {
  return {
    upstream,
    callUpstream: createUpstreamCaller({
      upstream,
      userAgent: "switchyard-test",
      baseUrlFor: async (provider) => provider.baseUrl,
      timeouts: () => ({ attemptDeadlineMs: 600_000, idleTimeoutMs: 300_000, ...timeouts }),
    }),
  };
}

/**
 * What selection reads of a request (its features' `candidates` hooks and its context), for a
 * request that may use `allowed` connections only (null = any) under `session`: the lease features
 * of a built gateway, on a context over a response nobody reads.
 */
export function selectionRequest(p: Ports, allowed: Set<string> | null, session: RequestSession | null = null): SelectionRequest {
  const req = new IncomingMessage(new Socket());
  const ctx = new RequestContext("req-1", req);
  ctx.client = new ClientResponse(new ServerResponse(req), {
    format: "openai",
    requestId: "req-1",
    model: "m1",
    stream: false,
    clock: p.h.clock,
    log: p.log,
    emit: (e) => p.events.push(e),
  });
  ctx.allowed = allowed;
  ctx.session = session;
  return { features: new RequestFeatures([leaseNarrowingFeature(), leaseHoldersFeature()]), ctx };
}
