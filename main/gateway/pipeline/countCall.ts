// A count's upstream call (R16.5, R17.1, R24.3): the count route of the client's own format, with the
// body the features made of it (beforeAttempt: provenance strip) and through the features that wrap
// the call (send: the usage wall's lane, a login's own headers). A count answer is a few bytes.
import type { RequestContext } from "../context/requestContext.js";
import type { AttemptTarget } from "../features/index.js";
import type { ConnectionsPort } from "../context/ports.js";
import { AUXILIARY_CALL_CEILING_MS, type CallUpstream, type UpstreamCall } from "../upstream/call.js";
import type { AttemptHooks, AttemptOutcome } from "./attempt.js";

/** A count answer is a few bytes; anything larger is not one. */
const COUNT_BODY_LIMIT_BYTES = 64 * 1024;

export interface CountCallDeps {
  connections: ConnectionsPort;
  callUpstream: CallUpstream;
}

export interface Counted {
  status: number | null;
  /** The exact count's JSON text (a 200), or null. */
  text: string | null;
  headers: Record<string, string | string[] | undefined> | null;
  /** A refusal as the features see an attempt's (a login's 401), or null. */
  outcome: Extract<AttemptOutcome, { kind: "upstream_error" }> | null;
}

/** One connection's exact count, or why there is none. */
export async function countOn(deps: CountCallDeps, ctx: RequestContext, { target, connection }: AttemptTarget, hooks: AttemptHooks): Promise<Counted> {
  const shape = ctx.count!;
  const body = shape.upstreamBody(hooks.body(ctx.body), target.model);
  // A login's account holds no secret: its credential is the request's own (features/clientLogins.ts).
  const secret = connection.accountOf === null ? deps.connections.secret(connection.id) : null;
  let call: UpstreamCall;
  try {
    call = await hooks.send((extraHeaders) =>
      deps.callUpstream({
        provider: target.provider,
        upstreamFormat: ctx.format,
        clientFormat: ctx.format,
        secret,
        clientHeaders: ctx.headers,
        path: shape.upstreamPath(target.model),
        body,
        ceilingMs: AUXILIARY_CALL_CEILING_MS,
        signal: ctx.client.departure,
        extraHeaders,
      }),
    );
  } catch {
    // An upstream that cannot count now leaves the count to the next one, or to the estimate.
    return { status: null, text: null, headers: null, outcome: null };
  }
  const { status, headers } = call.response;
  try {
    if (status === 200) return { status, text: await call.bodyText(COUNT_BODY_LIMIT_BYTES), headers, outcome: null };
    const bodyText = await call.errorText();
    return { status, text: null, headers, outcome: { kind: "upstream_error", status, headers, bodyText, upstreamFormat: ctx.format } };
  } catch {
    return { status, text: null, headers, outcome: null };
  }
}
