// What several agents' records share: where home is, reading their config files without failing
// a run, the user's own options, and the names Switchyard adds to an agent's config.
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { readJsonObject } from "../configText.js";

/** The provider id `run` and `connect` add where an agent names its providers. */
export const PROVIDER_ID = "switchyard";

/** The variable the key travels in, where an agent reads a key from a variable it is told to (Codex's env_key, pi's apiKey). */
export const KEY_VAR = "SWITCHYARD_API_KEY";

export const homeOf = (env: NodeJS.ProcessEnv) => env.HOME || homedir();

function readText(file: string): string | null {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return null;
  }
}

/** A JSON(C) file's object, or {} when it is missing or unreadable (for look-ups that must not fail a run). */
export function peekJson(file: string): Record<string, unknown> {
  try {
    return readJsonObject(readText(file), file);
  } catch {
    return {};
  }
}

/** Whether the user's arguments already carry one of these options (`--x v` or `--x=v`). */
export function hasOption(args: string[], ...names: string[]): boolean {
  return args.some((a) => names.some((n) => a === n || a.startsWith(`${n}=`)));
}
