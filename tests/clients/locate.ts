// Where the tests find the real coding agents and SDKs they drive. They live in this folder's own
// package (package.json + package-lock.json, exact versions), installed into
// tests/clients/node_modules by `npm test` (scripts/ensure.mjs, ensureTestClients) and by vitest's
// global setup, never by `npm start`: the app neither runs nor builds with them.
//
// - A client program: `clientBin("claude")`, the path of tests/clients/node_modules/.bin/claude.
// - An SDK: import it by its name as usual (`import OpenAI from "openai"`). vitest.config.ts
//   resolves each name in CLIENT_SDKS to this folder's copy, and tsconfig.tests.json's `paths`
//   does the same for the types. A new SDK goes into this folder's package.json, CLIENT_SDKS and
//   those `paths`.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const CLIENTS_DIR = path.dirname(fileURLToPath(import.meta.url));
export const CLIENT_MODULES = path.join(CLIENTS_DIR, "node_modules");

/** The SDKs tests import by package name (exact names only; a subpath import is not mapped). */
export const CLIENT_SDKS = ["openai", "@anthropic-ai/sdk", "@google/genai", "ai", "@ai-sdk/openai", "@ai-sdk/anthropic"] as const;

/** The programs this folder's packages put in node_modules/.bin. */
export type ClientProgram = "claude" | "codex" | "gemini" | "opencode" | "qwen" | "pi" | "electronegativity";

const NOT_INSTALLED = "the test clients are not installed: `npm test` installs them, or `node scripts/ensure.mjs --clients`";

/** The path of a client program; throws, saying how to install it, when it is missing. */
export function clientBin(name: ClientProgram): string {
  const bin = path.join(CLIENT_MODULES, ".bin", name);
  if (!existsSync(bin)) throw new Error(`${bin} is missing: ${NOT_INSTALLED}`);
  return bin;
}

/** The folder of an installed package of this folder (e.g. "@doyensec/electronegativity"). */
export function clientPackageDir(name: string): string {
  const dir = path.join(CLIENT_MODULES, name);
  if (!existsSync(path.join(dir, "package.json"))) throw new Error(`${dir} is missing: ${NOT_INSTALLED}`);
  return dir;
}

/** The installed version of one of this folder's packages. */
export function clientVersion(name: string): string {
  return (JSON.parse(readFileSync(path.join(clientPackageDir(name), "package.json"), "utf8")) as { version: string }).version;
}
