// Client logins (R21.1, R21.2, R24.1, R24.2) as a feature: the request's own login, read at the edge
// in its client format's shape, is served only by client-login connections of that same format,
// each login as an account of its own. Without a login such a connection is passed over
// (`no_client_credential`) and the held keys beside it serve. A model name only a login provider
// takes (its list lacks it) is a target only for a request with a login for that provider, and only
// on that login. The login goes upstream in its own headers, is redacted from what comes back, and
// a 401/403 to it is the vendor's answer to the client: never failed over, nothing cools.
import type { Connection, Provider } from "../../../shared/types.js";
import { ERROR_CODES } from "../../../shared/errorCodes.js";
import type { ClientLogin } from "../context/clientLogin.js";
import type { ConnectionsPort } from "../context/ports.js";
import type { RequestContext } from "../context/requestContext.js";
import type { UpstreamCall } from "../upstream/call.js";
import { redactSecret } from "../upstream/redact.js";
import { upstreamFormatOf } from "../formats/index.js";
import type { OwnAnswer, RequestFeature } from "./feature.js";

export interface ClientLoginsDeps {
  connections: Required<Pick<ConnectionsPort, "accountFor">>;
}

/** The request's login when this provider may receive it: same format only, never translated. */
function loginFor(ctx: RequestContext, provider: Provider): ClientLogin | null {
  const login = ctx.login;
  return login && upstreamFormatOf(provider, login.format) === login.format ? login : null;
}

/** The call's error text with the login redacted too: upstreams echo a refused credential. */
function redacting(call: UpstreamCall, secret: string): UpstreamCall {
  const errorText = call.errorText;
  const redact = call.redact;
  return { ...call, errorText: async (limit) => redactSecret(await errorText(limit), secret), redact: (text) => redactSecret(redact(text), secret) };
}

export function clientLoginsFeature(deps: ClientLoginsDeps): RequestFeature {
  return {
    name: "client-logins",
    planned(ctx, plan) {
      // R24.2: a name the provider's list lacks goes to it only with a login it can serve; a name
      // no provider lists and no login of this request serves is unknown, and reaches no upstream.
      if (!plan.targets.some((t) => t.loginOnly && !loginFor(ctx, t.provider))) return null;
      plan.targets = plan.targets.filter((t) => !t.loginOnly || loginFor(ctx, t.provider));
      if (plan.combo !== null || plan.targets.length > 0) return null;
      return { status: ERROR_CODES.model_not_found.status, code: "model_not_found", message: `Unknown model: ${ctx.model}`, retryAfterMs: null, noRetry: true };
    },
    candidates(ctx, target, list, scope) {
      if (!target.loginOnly && !list.some((c) => c.credential === "client" || c.accountOf !== null)) return list;
      const login = loginFor(ctx, target.provider);
      const out: Connection[] = [];
      let mapped = false;
      for (const c of list) {
        // A login's account is never chosen by itself, only through its connection by its own login.
        if (c.accountOf !== null) continue;
        if (c.credential !== "client") {
          if (!target.loginOnly) out.push(c);
        } else if (login && c.active) {
          out.push(deps.connections.accountFor(c, login));
          mapped = true;
        } else scope.exclude(c, "no_client_credential", null);
      }
      // R24.5: an account has its own priority and weight.
      return mapped && out.length > 1 ? scope.order(out) : out;
    },
    send(ctx, { connection }, next) {
      if (connection.accountOf === null) return next(undefined);
      const login = ctx.login!;
      return next(login.headers).then((call) => redacting(call, login.secret));
    },
    outcome(_ctx, { connection }, outcome): OwnAnswer | null {
      if (connection.accountOf === null || outcome.kind !== "upstream_error" || (outcome.status !== 401 && outcome.status !== 403)) return null;
      const error = { status: outcome.status, code: "unauthorized" as const, message: "The upstream refused the client's own login", retryAfterMs: null, noRetry: true };
      return { error, verdict: "auth_error", upstreamBody: outcome.bodyText.trim().startsWith("{") ? outcome.bodyText : undefined };
    },
  };
}
