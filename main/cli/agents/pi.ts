// pi (@mariozechner/pi-coding-agent 0.73.1, dist/config.js): its folder is PI_CODING_AGENT_DIR or
// ~/.pi/agent, with models.json (custom providers: baseUrl, api, apiKey, models) and settings.json
// (defaultProvider, defaultModel). `-e <file>` loads an extension for one run, which may register
// a provider (`pi.registerProvider`); an apiKey naming a set variable is read from it.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { editJson, setIn } from "../configText.js";
import type { Gateway } from "../gateway.js";
import { hasOption, homeOf, KEY_VAR, PROVIDER_ID } from "./common.js";
import type { AgentRecord } from "./record.js";

function piDir(env: NodeJS.ProcessEnv): string {
  return env.PI_CODING_AGENT_DIR || path.join(homeOf(env), ".pi", "agent");
}

/** pi's own default when Switchyard knows no window of a model. */
const DEFAULT_CONTEXT_WINDOW = 128_000;

/** R25.3: each model's window as Switchyard lists it, so pi compacts before the upstream refuses. */
function piProvider(gateway: Gateway, models: string[], apiKey: string, windows: ReadonlyMap<string, number>): Record<string, unknown> {
  return {
    name: "Switchyard",
    baseUrl: `${gateway.url}/v1`,
    api: "openai-completions",
    apiKey,
    models: models.map((id) => ({
      id,
      name: id,
      reasoning: false,
      input: ["text"],
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      contextWindow: windows.get(id) ?? DEFAULT_CONTEXT_WINDOW,
      maxTokens: 16384,
    })),
  };
}

export const pi: AgentRecord = {
  name: "pi",
  title: "pi",
  bin: "pi",
  async launch({ gateway, args, scratch }) {
    const models = await gateway.models();
    const provider = JSON.stringify(piProvider(gateway, models, KEY_VAR, await gateway.windows()));
    const extension = scratch("switchyard-provider.mjs");
    writeFileSync(
      extension,
      `// Written by switchyard run for this pi process only.\nexport default function (pi) {\n  pi.registerProvider(${JSON.stringify(PROVIDER_ID)}, ${provider});\n}\n`,
      { mode: 0o600 },
    );
    const chosen = hasOption(args, "--provider") ? [] : ["--provider", PROVIDER_ID, ...(hasOption(args, "--model") ? [] : ["--model", models[0]])];
    return { env: { [KEY_VAR]: gateway.key }, args: ["-e", extension, ...chosen] };
  },
  async connect({ gateway, env }) {
    const models = await gateway.models();
    const windows = await gateway.windows();
    const modelsFile = path.join(piDir(env), "models.json");
    const settingsFile = path.join(piDir(env), "settings.json");
    return [
      { file: modelsFile, edit: (text) => editJson(text, modelsFile, (obj) => setIn(obj, ["providers", PROVIDER_ID], piProvider(gateway, models, gateway.key, windows))) },
      {
        file: settingsFile,
        edit: (text) =>
          editJson(text, settingsFile, (obj) => {
            obj.defaultProvider = PROVIDER_ID;
            obj.defaultModel = models[0];
          }),
      },
    ];
  },
  configFiles: (env) => [path.join(piDir(env), "models.json"), path.join(piDir(env), "settings.json")],
};
