// Where Switchyard keeps its data, and the admin token that guards /api (API.md).
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";

export function resolveHome(explicit?: string): string {
  const home = explicit ?? process.env.SWITCHYARD_HOME ?? path.join(homedir(), ".switchyard");
  mkdirSync(home, { recursive: true, mode: 0o700 });
  return path.resolve(home);
}

/** SWITCHYARD_ADMIN_TOKEN wins; else generated once and kept in <home>/admin-token (0600). */
export function loadAdminToken(home: string, env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.SWITCHYARD_ADMIN_TOKEN?.trim();
  if (fromEnv) return fromEnv;
  const file = path.join(home, "admin-token");
  if (existsSync(file)) {
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
    const token = readFileSync(file, "utf8").trim();
    if (token) return token;
  }
  const token = randomBytes(24).toString("base64url");
  writeFileSync(file, token + "\n", { mode: 0o600 });
  return token;
}
