// `switchyard connect <agent> [--url URL]` writes the agent's own config for good, each file's
// original kept beside it, and `switchyard connect <agent> --undo` puts every file back byte for
// byte (removing those that did not exist, and the folders made for them) (R23.2).
//
// Beside each file F: F.switchyard-backup (a copy of F before the first connect) or
// F.switchyard-none (F did not exist; it lists the folders connect made, to remove on undo). A
// second connect keeps the first backup, so undo always returns to the state before Switchyard.
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { isRecord } from "../../shared/records.js";
import { AGENTS, type AgentName } from "./agents/index.js";
import { CliError } from "./remote.js";
import type { Gateway } from "./gateway.js";

export const BACKUP_SUFFIX = ".switchyard-backup";
export const NONE_SUFFIX = ".switchyard-none";

function readOrNull(file: string): string | null {
  return existsSync(file) ? readFileSync(file, "utf8") : null;
}

/** The folders `mkdir -p` would create for `dir`, outermost first. */
function missingDirs(dir: string): string[] {
  const missing: string[] = [];
  for (let d = path.resolve(dir); !existsSync(d); d = path.dirname(d)) {
    missing.unshift(d);
    if (path.dirname(d) === d) break;
  }
  return missing;
}

/** Writes through a temporary file and a rename, keeping the file's mode (new files: 0600, they may hold a key). */
function writeAtomically(file: string, text: string): void {
  const mode = existsSync(file) ? statSync(file).mode & 0o777 : 0o600;
  const temp = `${file}.switchyard-tmp-${process.pid}`;
  writeFileSync(temp, text, { mode });
  chmodSync(temp, mode);
  renameSync(temp, file);
}

export interface ConnectResult {
  /** Each file written, with its original's copy (null: there was no file before connect). */
  written: { file: string; backup: string | null }[];
  note?: string;
}

export async function connectAgent(name: AgentName, gateway: Gateway, env: NodeJS.ProcessEnv): Promise<ConnectResult> {
  const agent = AGENTS[name];
  const edits = await agent.connect({ gateway, env });
  // Every new text is made before anything is written: a file that cannot be read as its format
  // stops the command with all files as they were.
  const planned = edits.map((e) => {
    const current = readOrNull(e.file);
    try {
      return { file: e.file, current, next: e.edit(current) };
    } catch (err) {
      throw new CliError(err instanceof Error ? err.message : String(err));
    }
  });
  const written: ConnectResult["written"] = [];
  for (const { file, current, next } of planned) {
    const backup = file + BACKUP_SUFFIX;
    const none = file + NONE_SUFFIX;
    const made = missingDirs(path.dirname(file));
    mkdirSync(path.dirname(file), { recursive: true });
    if (!existsSync(backup) && !existsSync(none)) {
      if (current === null) writeFileSync(none, JSON.stringify({ createdDirs: made }) + "\n", { mode: 0o600 });
      else {
        copyFileSync(file, backup);
        chmodSync(backup, statSync(file).mode & 0o777);
      }
    }
    writeAtomically(file, next);
    written.push({ file, backup: existsSync(backup) ? backup : null });
  }
  return { written, note: typeof agent.note === "function" ? agent.note(env) : agent.note };
}

export interface UndoResult {
  restored: string[];
  removed: string[];
}

/** The folders a connect made for a file that did not exist (listed in its F.switchyard-none). */
function createdDirs(none: string): string[] {
  try {
    const parsed: unknown = JSON.parse(readFileSync(none, "utf8"));
    if (isRecord(parsed) && Array.isArray(parsed.createdDirs)) return parsed.createdDirs.filter((d): d is string => typeof d === "string");
  } catch {
    // No folder list: the file alone is removed.
  }
  return [];
}

export function undoConnect(name: AgentName, env: NodeJS.ProcessEnv): UndoResult {
  const agent = AGENTS[name];
  const result: UndoResult = { restored: [], removed: [] };
  const madeDirs: string[] = [];
  for (const file of agent.configFiles(env)) {
    const backup = file + BACKUP_SUFFIX;
    const none = file + NONE_SUFFIX;
    if (existsSync(backup)) {
      // A rename keeps the original's bytes and mode exactly.
      renameSync(backup, file);
      rmSync(none, { force: true });
      result.restored.push(file);
    } else if (existsSync(none)) {
      madeDirs.push(...createdDirs(none));
      rmSync(file, { force: true });
      rmSync(none, { force: true });
      result.removed.push(file);
    }
  }
  // Innermost first, once every file is gone; a folder that holds anything else (the agent's own files) stays.
  for (const dir of [...new Set(madeDirs)].sort((a, b) => b.length - a.length)) {
    try {
      rmdirSync(dir);
    } catch {
      // Not empty, or already gone.
    }
  }
  if (result.restored.length === 0 && result.removed.length === 0)
    throw new CliError(`nothing to undo: no ${BACKUP_SUFFIX} or ${NONE_SUFFIX} beside ${agent.title}'s config (${agent.configFiles(env).join(", ")})`);
  return result;
}
