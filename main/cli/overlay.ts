// A stand-in for an agent's config folder, for one process: every entry of the real folder is a
// symlink to it, except the few files given (written fresh), so the agent reads its own config,
// login and state as usual while those files say something else. What the agent itself creates or
// replaces there (history, session files, a refreshed login written by rename) is moved back into
// the real folder when it exits; the given files are never copied back.
import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";

export interface Overlay {
  /** The stand-in folder. */
  dir: string;
  /** Moves what the agent wrote into the real folder; gives the names of given files the agent changed (their changes are dropped). */
  settle(): string[];
}

export function makeOverlay(realDir: string, dir: string, files: Record<string, string>): Overlay {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const entries = existsSync(realDir) ? readdirSync(realDir) : [];
  for (const name of entries) if (!(name in files)) symlinkSync(path.join(realDir, name), path.join(dir, name));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text, { mode: 0o600 });
  return {
    dir,
    settle() {
      const changed: string[] = [];
      for (const name of readdirSync(dir)) {
        const at = path.join(dir, name);
        if (name in files) {
          if (readFileSync(at, "utf8") !== files[name]) changed.push(name);
          continue;
        }
        if (lstatSync(at).isSymbolicLink()) continue;
        mkdirSync(realDir, { recursive: true });
        cpSync(at, path.join(realDir, name), { recursive: true, force: true });
      }
      return changed;
    },
  };
}
