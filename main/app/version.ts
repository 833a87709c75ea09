// Read once at start-up from package.json, so /health reports what is installed.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isRecord } from "../../shared/records.js";

function readVersion(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    try {
      const pkg: unknown = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
      if (isRecord(pkg) && pkg.name === "switchyard" && typeof pkg.version === "string" && pkg.version) return pkg.version;
    } catch {
      // keep walking up: dist/main/app and main/app sit at different depths
    }
    dir = path.dirname(dir);
  }
  return "0.0.0";
}

export const VERSION = readVersion();
