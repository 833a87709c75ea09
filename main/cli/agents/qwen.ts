// Qwen Code (@qwen-code/qwen-code 0.24.4, chunks/): its folder is QWEN_HOME or ~/.qwen, with
// settings.json (`security.auth.selectedType`, `.baseUrl`, `.apiKey`, `model.name`). `--auth-type`
// beats the settings' type; for the OpenAI type the model, key and base URL come from the CLI
// flags, then OPENAI_MODEL / OPENAI_API_KEY / OPENAI_BASE_URL, then the settings.
import path from "node:path";
import { editJson, getIn, setIn } from "../configText.js";
import { hasOption, homeOf, peekJson } from "./common.js";
import type { AgentRecord } from "./record.js";

function qwenSettings(env: NodeJS.ProcessEnv): string {
  return path.join(env.QWEN_HOME || path.join(homeOf(env), ".qwen"), "settings.json");
}

export const qwen: AgentRecord = {
  name: "qwen",
  title: "Qwen Code",
  bin: "qwen",
  async launch({ gateway, env, args }) {
    const vars: Record<string, string> = { OPENAI_BASE_URL: `${gateway.url}/v1`, OPENAI_API_KEY: gateway.key };
    // Without a model of the user's, the first one Switchyard serves (Qwen's own default is not one).
    const hasModel = hasOption(args, "-m", "--model") || env.OPENAI_MODEL || env.QWEN_MODEL || typeof getIn(peekJson(qwenSettings(env)), ["model", "name"]) === "string";
    if (!hasModel) vars.OPENAI_MODEL = (await gateway.models())[0];
    return { env: vars, args: hasOption(args, "--auth-type") ? [] : ["--auth-type", "openai"] };
  },
  async connect({ gateway, env }) {
    const file = qwenSettings(env);
    const models = await gateway.models();
    return [
      {
        file,
        edit: (text) =>
          editJson(text, file, (obj) => {
            setIn(obj, ["security", "auth", "selectedType"], "openai");
            setIn(obj, ["security", "auth", "baseUrl"], `${gateway.url}/v1`);
            setIn(obj, ["security", "auth", "apiKey"], gateway.key);
            if (typeof getIn(obj, ["model", "name"]) !== "string") setIn(obj, ["model", "name"], models[0]);
          }),
      },
    ];
  },
  configFiles: (env) => [qwenSettings(env)],
  note: "OPENAI_BASE_URL or OPENAI_API_KEY set in your shell win over Qwen Code's settings.",
};
