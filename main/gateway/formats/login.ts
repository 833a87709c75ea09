// R21.1: the client's own login as each format carries it. A format lists the headers that carry
// its credential (the first one present wins) and the companion headers that go with it (Codex's
// `chatgpt-account-id`); the client half says whether such a login is a subscription (OAuth or a
// ChatGPT plan). What is read here is sent upstream exactly as the client sent it, to a
// client-login connection of the same format only; nothing else of the request is read.
import { firstHeader, type ClientHeaders, type LoginParts, type LoginShape } from "./adapter.js";

/** OpenAI's formats: a Bearer key, or (Codex on a ChatGPT plan) the plan's token with its account id. */
export const OPENAI_LOGIN: LoginShape = {
  credentialHeaders: ["authorization"],
  companions: ["chatgpt-account-id"],
  subscription: (_header, _credential, companions) => companions["chatgpt-account-id"] !== undefined,
};

/** The login a request carries in this shape, or null; `notLogin` is a value that is Switchyard's own key. */
export function readLogin(shape: LoginShape, headers: ClientHeaders, query: string, notLogin: (value: string) => boolean): LoginParts | null {
  for (const name of shape.credentialHeaders) {
    const raw = firstHeader(headers, name);
    if (!raw) continue;
    const credential = name === "authorization" ? bearerToken(raw) : raw.trim();
    if (!credential || notLogin(credential)) continue;
    const out: Record<string, string> = { [name]: raw };
    const companions: Record<string, string> = {};
    for (const companion of shape.companions) {
      const value = firstHeader(headers, companion);
      if (value) companions[companion] = out[companion] = value;
    }
    return { headers: out, credential, subscription: shape.subscription(name, credential, companions) };
  }
  if (shape.queryKeyHeader && query) {
    const key = new URLSearchParams(query).get("key");
    if (key && !notLogin(key)) return { headers: { [shape.queryKeyHeader]: key }, credential: key, subscription: false };
  }
  return null;
}

function bearerToken(value: string): string {
  return /^bearer\s+/i.test(value) ? value.replace(/^bearer\s+/i, "").trim() : "";
}
