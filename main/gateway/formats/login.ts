// R21.1: the client's own login as each format carries it. A format lists the headers that carry
// its credential (the first login found wins) and the companion headers that go with it (Codex's
// `chatgpt-account-id`); the client half says which credentials have its vendor's own shape (R24.1)
// and whether such a login is a subscription (OAuth or a ChatGPT plan). What is read here is sent
// upstream exactly as the client sent it, to a client-login connection of the same format only;
// nothing else of the request is read.
//
// R24.1: only a credential in the vendor's own shape is a login. Clients with no login of their own
// send whatever their config names (Switchyard's placeholder `switchyard`, `dummy`, an empty value,
// a Switchyard key): sent upstream as a login, it drew the vendor's 401 (a refused login never fails
// over, so the held key beside it was never tried) and made an account row per placeholder.
import { firstHeader, type ClientHeaders, type LoginParts, type LoginShape } from "./adapter.js";

/** Characters of a vendor key or token body (base64url and the dashes vendors put in prefixes). */
export const KEY_BODY = "[A-Za-z0-9_-]";

/** A ChatGPT access token: a JWT, three base64url parts (header.claims.signature). */
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** An OpenAI API key (`sk-…`, `sk-proj-…`, `sk-svcacct-…`): not Anthropic's `sk-ant-`, nor Switchyard's own `sk-sy-`. */
const OPENAI_KEY = new RegExp(`^sk-(?!ant-|sy-)${KEY_BODY}{20,}$`);

/** OpenAI's formats: an `sk-…` key, or (Codex on a ChatGPT plan) the plan's JWT with its account id. */
export const OPENAI_LOGIN: LoginShape = {
  credentialHeaders: ["authorization"],
  companions: ["chatgpt-account-id"],
  accepts: (_header, credential, companions) => OPENAI_KEY.test(credential) || (JWT.test(credential) && companions["chatgpt-account-id"] !== undefined),
  subscription: (_header, _credential, companions) => companions["chatgpt-account-id"] !== undefined,
};

/** The login a request carries in this shape, or null; `notLogin` is a value that is Switchyard's own key. */
export function readLogin(shape: LoginShape, headers: ClientHeaders, query: string, notLogin: (value: string) => boolean): LoginParts | null {
  for (const name of shape.credentialHeaders) {
    const raw = firstHeader(headers, name);
    if (!raw) continue;
    const credential = name === "authorization" ? bearerToken(raw) : raw.trim();
    if (!credential || notLogin(credential)) continue;
    const companions: Record<string, string> = {};
    for (const companion of shape.companions) {
      const value = firstHeader(headers, companion);
      if (value) companions[companion] = value;
    }
    if (!shape.accepts(name, credential, companions)) continue;
    return { headers: { [name]: raw, ...companions }, credential, subscription: shape.subscription(name, credential, companions) };
  }
  if (shape.queryKeyHeader && query) {
    const key = new URLSearchParams(query).get("key");
    if (key && !notLogin(key) && shape.accepts(shape.queryKeyHeader, key, {})) return { headers: { [shape.queryKeyHeader]: key }, credential: key, subscription: false };
  }
  return null;
}

function bearerToken(value: string): string {
  return /^bearer\s+/i.test(value) ? value.replace(/^bearer\s+/i, "").trim() : "";
}
