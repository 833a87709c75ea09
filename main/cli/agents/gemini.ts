// Gemini CLI (@google/gemini-cli 0.61.0, bundle/): its folder is <GEMINI_CLI_HOME or HOME>/.gemini
// with settings.json (JSON with comments) and .env. GOOGLE_GEMINI_BASE_URL alone selects the
// "gateway" auth type that -p refuses, so `security.auth.selectedType` must be "gemini-api-key"
// (CLIENTS.md), and that auth wants GEMINI_API_KEY. No variable or flag sets the auth type, and
// system settings (which override the user's) are read only from root-owned folders; so where the
// user's settings select another type, `run` gives this one process a stand-in folder
// (GEMINI_CLI_HOME, overlay.ts) whose settings.json is the user's with that one line changed.
// ~/.gemini/.env is read only in trusted folders, and only when the project has no .env.
import { existsSync, symlinkSync } from "node:fs";
import path from "node:path";
import { dotenvValue, editJson, getIn, setDotenv, setIn } from "../configText.js";
import { makeOverlay } from "../overlay.js";
import { homeOf, peekJson } from "./common.js";
import type { AgentRecord } from "./record.js";

function geminiHome(env: NodeJS.ProcessEnv): string {
  return env.GEMINI_CLI_HOME || homeOf(env);
}

const API_KEY_AUTH = "gemini-api-key";

export const gemini: AgentRecord = {
  name: "gemini",
  title: "Gemini CLI",
  bin: "gemini",
  launch({ gateway, env, scratch }) {
    const vars: Record<string, string> = {
      GOOGLE_GEMINI_BASE_URL: gateway.url,
      GEMINI_API_KEY: gateway.keyRequired ? gateway.key : env.GEMINI_API_KEY || gateway.key,
    };
    const realDir = path.join(geminiHome(env), ".gemini");
    const settings = peekJson(path.join(realDir, "settings.json"));
    if (getIn(settings, ["security", "auth", "selectedType"]) === API_KEY_AUTH) return Promise.resolve({ env: vars, args: [] });
    setIn(settings, ["security", "auth", "selectedType"], API_KEY_AUTH);
    const home = scratch("gemini-home");
    const overlay = makeOverlay(realDir, path.join(home, ".gemini"), { "settings.json": JSON.stringify(settings, null, 2) + "\n" });
    // The home's own .env, which the CLI falls back to, stays visible.
    const dotenv = path.join(geminiHome(env), ".env");
    if (existsSync(dotenv)) symlinkSync(dotenv, path.join(home, ".env"));
    return Promise.resolve({
      env: { ...vars, GEMINI_CLI_HOME: home },
      args: [],
      after: () =>
        overlay.settle().length > 0 ? `settings changed during this run were not kept: Gemini CLI ran with a stand-in of ${path.join(realDir, "settings.json")}` : null,
    });
  },
  connect({ gateway, env }) {
    const settings = path.join(geminiHome(env), ".gemini", "settings.json");
    const dotenv = path.join(geminiHome(env), ".gemini", ".env");
    return Promise.resolve([
      { file: settings, edit: (text) => editJson(text, settings, (obj) => setIn(obj, ["security", "auth", "selectedType"], API_KEY_AUTH)) },
      {
        file: dotenv,
        edit: (text) => {
          const values: Record<string, string> = { GOOGLE_GEMINI_BASE_URL: gateway.url };
          if (gateway.keyRequired || !dotenvValue(text, "GEMINI_API_KEY")) values.GEMINI_API_KEY = gateway.key;
          return setDotenv(text, values);
        },
      },
    ]);
  },
  configFiles: (env) => [path.join(geminiHome(env), ".gemini", "settings.json"), path.join(geminiHome(env), ".gemini", ".env")],
  note: "The Gemini CLI reads ~/.gemini/.env in trusted folders only, and not where the project has a .env of its own; GOOGLE_GEMINI_BASE_URL or GEMINI_API_KEY set in your shell win over it.",
};
