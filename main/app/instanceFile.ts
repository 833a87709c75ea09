// How the CLI finds a running instance: `serve` writes <home>/instance.json (mode 0600) once it
// listens and removes it on a clean stop. The admin token is not in it: that stays where API.md
// puts it (SWITCHYARD_ADMIN_TOKEN, else <home>/admin-token).
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { errorCode, isRecord } from "../../shared/records.js";

export interface InstanceInfo {
  url: string;
  pid: number;
  startedAt: number;
  version: string;
}

export const INSTANCE_FILE = "instance.json";

export function writeInstanceFile(home: string, info: InstanceInfo): void {
  writeFileSync(path.join(home, INSTANCE_FILE), JSON.stringify(info) + "\n", { mode: 0o600 });
}

/** Removes the file only if it still describes this process (a newer instance may have replaced it). */
export function removeInstanceFile(home: string, pid: number = process.pid): void {
  const info = readInstanceFile(home);
  if (info && info.pid === pid) rmSync(path.join(home, INSTANCE_FILE), { force: true });
}

export function readInstanceFile(home: string): InstanceInfo | null {
  const file = path.join(home, INSTANCE_FILE);
  if (!existsSync(file)) return null;
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
    if (!isRecord(parsed) || typeof parsed.url !== "string" || typeof parsed.pid !== "number") return null;
    return { url: parsed.url, pid: parsed.pid, startedAt: Number(parsed.startedAt) || 0, version: typeof parsed.version === "string" ? parsed.version : "" };
  } catch {
    return null;
  }
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else; still running.
    return errorCode(err) === "EPERM";
  }
}

/** The token a CLI on this machine uses: the environment's, else the home's file; never generated here. */
export function readAdminToken(home: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const fromEnv = env.SWITCHYARD_ADMIN_TOKEN?.trim();
  if (fromEnv) return fromEnv;
  const file = path.join(home, "admin-token");
  if (!existsSync(file)) return null;
  return readFileSync(file, "utf8").trim() || null;
}
