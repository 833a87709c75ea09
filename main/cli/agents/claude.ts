// Claude Code (@anthropic-ai/claude-code 2.1.332, its native binary): the config folder is
// CLAUDE_CONFIG_DIR or ~/.claude; user settings are <dir>/settings.json, whose `env` object is set
// for every session; a Pro/Max login is <dir>/.credentials.json (Linux) and `oauthAccount` in the
// global config (<CLAUDE_CONFIG_DIR or HOME>/.claude.json, also where macOS keeps the account).
import { existsSync } from "node:fs";
import path from "node:path";
import { isRecord } from "../../../shared/records.js";
import { editJson, getIn, setIn } from "../configText.js";
import { homeOf, peekJson } from "./common.js";
import type { AgentRecord } from "./record.js";

function claudeDir(env: NodeJS.ProcessEnv): string {
  return env.CLAUDE_CONFIG_DIR || path.join(homeOf(env), ".claude");
}

/** True when Claude Code has a login or a key of its own, which `run`/`connect` must keep. */
export function claudeHasLogin(env: NodeJS.ProcessEnv): boolean {
  if (env.ANTHROPIC_API_KEY || env.ANTHROPIC_AUTH_TOKEN || env.CLAUDE_CODE_OAUTH_TOKEN) return true;
  const dir = claudeDir(env);
  if (existsSync(path.join(dir, ".credentials.json"))) return true;
  const global = peekJson(path.join(env.CLAUDE_CONFIG_DIR || homeOf(env), ".claude.json"));
  if (isRecord(global.oauthAccount)) return true;
  const settings = peekJson(path.join(dir, "settings.json"));
  return (
    typeof settings.apiKeyHelper === "string" ||
    typeof getIn(settings, ["env", "ANTHROPIC_API_KEY"]) === "string" ||
    typeof getIn(settings, ["env", "ANTHROPIC_AUTH_TOKEN"]) === "string"
  );
}

/** `X-Switchyard-Key: …` added to whatever custom headers the user already sends (one per line). */
function withSwitchyardHeader(existing: string | undefined, key: string): string {
  const kept = (existing ?? "").split("\n").filter((l) => l.trim() !== "" && !/^\s*x-switchyard-key\s*:/i.test(l));
  return [...kept, `X-Switchyard-Key: ${key}`].join("\n");
}

/**
 * R25.5: Claude Code (2.1.273+) tells a gateway what each request is for in headers
 * (`x-claude-code-request-class`, `x-claude-code-context-compacted`) when this is set. A value the
 * user set already is theirs to keep.
 */
export const GATEWAY_HINTS_VAR = "CLAUDE_CODE_GATEWAY_HINT_HEADERS";

export const claude: AgentRecord = {
  name: "claude",
  title: "Claude Code",
  bin: "claude",
  launch({ gateway, env }) {
    const vars: Record<string, string> = { ANTHROPIC_BASE_URL: gateway.url };
    if (env[GATEWAY_HINTS_VAR] === undefined) vars[GATEWAY_HINTS_VAR] = "1";
    if (!claudeHasLogin(env)) vars.ANTHROPIC_API_KEY = gateway.key;
    else if (gateway.keyRequired) vars.ANTHROPIC_CUSTOM_HEADERS = withSwitchyardHeader(env.ANTHROPIC_CUSTOM_HEADERS, gateway.key);
    return Promise.resolve({ env: vars, args: [] });
  },
  connect({ gateway, env }) {
    const file = path.join(claudeDir(env), "settings.json");
    const login = claudeHasLogin(env);
    return Promise.resolve([
      {
        file,
        edit: (text) =>
          editJson(text, file, (obj) => {
            setIn(obj, ["env", "ANTHROPIC_BASE_URL"], gateway.url);
            if (getIn(obj, ["env", GATEWAY_HINTS_VAR]) === undefined) setIn(obj, ["env", GATEWAY_HINTS_VAR], "1");
            if (!login) setIn(obj, ["env", "ANTHROPIC_API_KEY"], gateway.key);
            else if (gateway.keyRequired) {
              const current = getIn(obj, ["env", "ANTHROPIC_CUSTOM_HEADERS"]);
              setIn(obj, ["env", "ANTHROPIC_CUSTOM_HEADERS"], withSwitchyardHeader(typeof current === "string" ? current : undefined, gateway.key));
            }
          }),
      },
    ]);
  },
  configFiles: (env) => [path.join(claudeDir(env), "settings.json")],
};
