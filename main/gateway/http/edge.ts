// The edge of one client request (issue 26 item 12): what the client routes learn before the
// pipeline takes the request — its id, the client key it proved, the connections it may use, the
// lease it holds and its body — as one typed value, made once per request. The generation routes
// pass it along; express's client routes and the answers find it by the node request, so no
// route keeps request state in res.locals or reads it back with a cast.
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { ApiKeyInfo } from "../../../shared/types.js";
import type { ClientLogin } from "../context/clientLogin.js";

export interface ClientEdge {
  /** Names the answer (X-Switchyard-Request-Id) and the request-log row. */
  readonly requestId: string;
  /** The verified Switchyard client key (R1.7, R18), or null. */
  clientKey: ApiKeyInfo | null;
  /** R1.7, R7.2: the only connections this request may use (null = any). */
  allowedConnections: Set<string> | null;
  /** R7.2: the SHA-256 of the owner of the lease the request is fenced to (null = no lease). */
  leaseOwnerHash: string | null;
  /** The JSON object the body reader parsed (null until it has). */
  body: Record<string, unknown> | null;
  /** The JSON text `body` was parsed from, when it arrived as plain UTF-8 (a decoded body has none). */
  bodyText: string | null;
  /** R21.1: the client's own login (any credential that is not Switchyard's key), or null. */
  login: ClientLogin | null;
}

/** Weak: an edge lives exactly as long as its request. */
const edges = new WeakMap<IncomingMessage, ClientEdge>();

/** The edge of this request, made the first time anything asks for it. */
export function edgeOf(req: IncomingMessage): ClientEdge {
  let edge = edges.get(req);
  if (edge === undefined) {
    edge = { requestId: randomUUID(), clientKey: null, allowedConnections: null, leaseOwnerHash: null, body: null, bodyText: null, login: null };
    edges.set(req, edge);
  }
  return edge;
}

/**
 * The request presented this verified key: its usage and budget count (R18). With `bound` (client
 * keys required, R1.7) a key limited to some connections limits the request to them.
 */
export function keyVerified(edge: ClientEdge, key: ApiKeyInfo, bound: boolean): void {
  edge.clientKey = key;
  if (bound) edge.allowedConnections = key.allowedConnections.length ? new Set(key.allowedConnections) : null;
}

/** R7.2: a fenced lease routes the request to the leased connection alone. */
export function narrowToLease(edge: ClientEdge, ownerHash: string, connectionId: string): void {
  edge.leaseOwnerHash = ownerHash;
  edge.allowedConnections = new Set([connectionId]);
}

/** The body the reader put on the edge; a route that asks without the reader in front of it is a bug. */
export function bodyOf(edge: ClientEdge): Record<string, unknown> {
  if (edge.body === null) throw new Error("the client body was asked for before the body reader ran");
  return edge.body;
}

/** The client key's id, for usage by key and key budgets (R18). */
export function clientKeyIdOf(edge: ClientEdge): string | null {
  return edge.clientKey?.id ?? null;
}
