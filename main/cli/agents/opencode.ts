// opencode (opencode-ai 1.18.33, its native binary): the global config is the first of
// opencode.jsonc, opencode.json, config.json in <XDG_CONFIG_HOME or ~/.config>/opencode (JSON with
// comments); OPENCODE_CONFIG_CONTENT is a config merged over all the others, for one process (and
// with it set opencode writes no global config of its own). A provider names an AI SDK package:
// @ai-sdk/openai-compatible speaks chat completions at <origin>/v1.
import { existsSync } from "node:fs";
import path from "node:path";
import { editJson, readJsonObject, setIn } from "../configText.js";
import type { Gateway } from "../gateway.js";
import { homeOf, PROVIDER_ID } from "./common.js";
import type { AgentRecord } from "./record.js";

function opencodeDir(env: NodeJS.ProcessEnv): string {
  return path.join(env.XDG_CONFIG_HOME || path.join(homeOf(env), ".config"), "opencode");
}

const OPENCODE_FILES = ["opencode.jsonc", "opencode.json", "config.json"];

function opencodeProvider(gateway: Gateway, models: string[]): Record<string, unknown> {
  return {
    npm: "@ai-sdk/openai-compatible",
    name: "Switchyard",
    options: { baseURL: `${gateway.url}/v1`, apiKey: gateway.key },
    models: Object.fromEntries(models.map((m) => [m, {}])),
  };
}

export const opencode: AgentRecord = {
  name: "opencode",
  title: "opencode",
  bin: "opencode",
  async launch({ gateway, env }) {
    const models = await gateway.models();
    const inline = peekJsonText(env.OPENCODE_CONFIG_CONTENT);
    setIn(inline, ["provider", PROVIDER_ID], opencodeProvider(gateway, models));
    inline.model = `${PROVIDER_ID}/${models[0]}`;
    return { env: { OPENCODE_CONFIG_CONTENT: JSON.stringify(inline) }, args: [] };
  },
  async connect({ gateway, env }) {
    const models = await gateway.models();
    const dir = opencodeDir(env);
    const file = OPENCODE_FILES.map((f) => path.join(dir, f)).find((f) => existsSync(f)) ?? path.join(dir, "opencode.json");
    return [
      {
        file,
        edit: (text) =>
          editJson(text, file, (obj) => {
            if (text === null) obj.$schema = "https://opencode.ai/config.json";
            setIn(obj, ["provider", PROVIDER_ID], opencodeProvider(gateway, models));
            obj.model = `${PROVIDER_ID}/${models[0]}`;
          }),
      },
    ];
  },
  configFiles: (env) => OPENCODE_FILES.map((f) => path.join(opencodeDir(env), f)),
};

function peekJsonText(text: string | undefined): Record<string, unknown> {
  try {
    return text ? readJsonObject(text, "OPENCODE_CONFIG_CONTENT") : {};
  } catch {
    return {};
  }
}
