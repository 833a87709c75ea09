// Codex CLI (@openai/codex 0.171.0, its Rust binary): CODEX_HOME or ~/.codex holds config.toml and
// the login, auth.json. `-c key=value` (a TOML value) overrides the config for one run. A custom
// provider speaks only the Responses API; `requires_openai_auth = true` makes it send the login
// (API key or ChatGPT tokens, with `chatgpt-account-id`); `env_key` names the variable of a key;
// `env_http_headers` maps a header to a variable (so no secret goes on the command line).
import path from "node:path";
import { isRecord } from "../../../shared/records.js";
import { setTomlProvider, tomlString } from "../configText.js";
import type { Gateway } from "../gateway.js";
import { homeOf, KEY_VAR, peekJson, PROVIDER_ID } from "./common.js";
import type { AgentRecord } from "./record.js";

function codexHome(env: NodeJS.ProcessEnv): string {
  return env.CODEX_HOME || path.join(homeOf(env), ".codex");
}

/** Codex's own login, if any: an OpenAI API key, or a ChatGPT plan's tokens (auth.json `auth_mode`). */
export type CodexLogin = "apikey" | "chatgpt" | null;

export function codexLogin(env: NodeJS.ProcessEnv): CodexLogin {
  const auth = peekJson(path.join(codexHome(env), "auth.json"));
  const apiKey = typeof auth.OPENAI_API_KEY === "string" && auth.OPENAI_API_KEY !== "";
  // auth.json names its mode ("chatgpt", "apikey"); older files have tokens only for a ChatGPT login.
  if (auth.auth_mode === "chatgpt" || (auth.auth_mode === undefined && isRecord(auth.tokens) && !apiKey)) return "chatgpt";
  return apiKey || isRecord(auth.tokens) ? "apikey" : null;
}

/**
 * Where Codex's requests go. A ChatGPT login is a subscription that only ChatGPT's Codex backend
 * serves, so Codex keeps speaking that backend's paths (`<base>/responses`, `<base>/models`) to
 * Switchyard, which forwards them with the login to a client-login connection (R21.1, R21.8); an
 * API key or no login speaks the OpenAI API's /v1.
 */
export function codexBaseUrl(origin: string, login: CodexLogin): string {
  return login === "chatgpt" ? `${origin}/backend-api/codex` : `${origin}/v1`;
}

/** The provider block's settings, as [key, TOML value] pairs. */
function codexProvider(gateway: Gateway, login: CodexLogin, keyFrom: "env" | "file"): [string, string][] {
  const pairs: [string, string][] = [
    ["name", tomlString("Switchyard")],
    ["base_url", tomlString(codexBaseUrl(gateway.url, login))],
    ["wire_api", tomlString("responses")],
    // R26.1: Codex's Responses WebSocket (one socket per session, each turn only its new input).
    ["supports_websockets", "true"],
  ];
  if (login) {
    // The agent's login goes to Switchyard as it would to OpenAI; a required Switchyard key rides beside it.
    pairs.push(["requires_openai_auth", "true"]);
    if (gateway.keyRequired)
      pairs.push(
        keyFrom === "env" ? ["env_http_headers", `{ "X-Switchyard-Key" = ${tomlString(KEY_VAR)} }`] : ["http_headers", `{ "X-Switchyard-Key" = ${tomlString(gateway.key)} }`],
      );
  } else if (keyFrom === "env") pairs.push(["env_key", tomlString(KEY_VAR)]);
  else pairs.push(["experimental_bearer_token", tomlString(gateway.key)]);
  return pairs;
}

/**
 * R26.4: the top-level settings beside the provider: on a ChatGPT login, `chatgpt_base_url` points
 * Codex's own ChatGPT calls (its usage view, `<base>/wham/usage`) at Switchyard, which answers from the pool.
 */
function codexTop(gateway: Gateway, login: CodexLogin): [string, string][] {
  return login === "chatgpt" ? [["chatgpt_base_url", tomlString(`${gateway.url}/backend-api/`)]] : [];
}

export const codex: AgentRecord = {
  name: "codex",
  title: "Codex CLI",
  bin: "codex",
  launch({ gateway, env }) {
    const login = codexLogin(env);
    const pairs = codexProvider(gateway, login, "env");
    const top = codexTop(gateway, login).map(([k, v]) => `${k}=${v}`);
    const args = [`model_provider=${tomlString(PROVIDER_ID)}`, ...top, ...pairs.map(([k, v]) => `model_providers.${PROVIDER_ID}.${k}=${v}`)].flatMap((c) => ["-c", c]);
    return Promise.resolve({ env: { [KEY_VAR]: gateway.key }, args });
  },
  connect({ gateway, env }) {
    const file = path.join(codexHome(env), "config.toml");
    const login = codexLogin(env);
    const lines = codexProvider(gateway, login, "file").map(([k, v]) => `${k} = ${v}`);
    return Promise.resolve([{ file, edit: (text) => setTomlProvider(text, PROVIDER_ID, lines, codexTop(gateway, login)) }]);
  },
  configFiles: (env) => [path.join(codexHome(env), "config.toml")],
  note: (env) =>
    codexLogin(env) === "chatgpt"
      ? "Codex is logged in with ChatGPT: it now sends its login to Switchyard on ChatGPT's Codex backend paths (/backend-api/codex), which a provider at https://chatgpt.com/backend-api/codex with a client-login connection serves (Connect page: Use your subscription)."
      : undefined,
};
