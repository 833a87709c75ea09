// The edge of one client request: its RequestContext (context/requestContext.ts), made the first time
// anything asks for it and kept as long as the node request lives. The client routes fill it in turn
// (request id, the client key it proved, the connections it may use, the lease it holds, its login,
// its body), the pipeline answers through it; express's client routes find it by the node request,
// so no route keeps request state in res.locals or reads it back with a cast.
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { ApiKeyInfo } from "../../../shared/types.js";
import { RequestContext } from "../context/requestContext.js";

// The context rides on the node request under a symbol, so it lives exactly as long as the request. Not
// a WeakMap keyed by the request: its ephemeron entries kept each young request alive through the next
// scavenge and had it promoted, and at c32 the main thread spent about twice the GC time of 49f9625
// (measured with --trace-gc: 7 mark-compacts in place of 2, scavenges 1.6x as long).
const CONTEXT = Symbol("switchyard request context");
type WithContext = IncomingMessage & { [CONTEXT]?: RequestContext };

/** The context of this request, made the first time anything asks for it. */
export function contextOf(req: IncomingMessage): RequestContext {
  let ctx = (req as WithContext)[CONTEXT];
  if (ctx === undefined) {
    ctx = new RequestContext(randomUUID(), req);
    (req as WithContext)[CONTEXT] = ctx;
  }
  return ctx;
}

/**
 * The request presented this verified key: its usage and budget count (R18). With `bound` (client
 * keys required, R1.7) a key limited to some connections limits the request to them.
 */
export function keyVerified(ctx: RequestContext, key: ApiKeyInfo, bound: boolean): void {
  ctx.clientKey = key;
  if (bound) ctx.allowed = key.allowedConnections.length ? new Set(key.allowedConnections) : null;
}

/** R7.2: a fenced lease routes the request to the leased connection alone. */
export function narrowToLease(ctx: RequestContext, ownerHash: string, connectionId: string): void {
  ctx.leaseOwnerHash = ownerHash;
  ctx.allowed = new Set([connectionId]);
}
