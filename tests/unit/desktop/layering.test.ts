// DESIGN.md: only two files import ipcMain/ipcRenderer, and nothing that runs under plain Node
// imports electron at all (its binary cannot exist here; `npm start` falls back to headless).
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../..", import.meta.url));

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...sources(full));
    else if (/\.(c|m)?tsx?$/.test(name)) out.push(full);
  }
  return out;
}

const files = ["main", "shared", "preload", "renderer/src"].flatMap((d) => sources(path.join(root, d)));
const rel = (f: string) => path.relative(root, f).split(path.sep).join("/");
const importsElectron = /(?:from\s+|import\s*\(\s*|require\s*\(\s*)["']electron["']/;

describe("electron boundaries", () => {
  it("R14.3 ipcMain / ipcRenderer are imported by exactly the preload and the Electron entry", () => {
    const users = files.filter((f) => {
      const text = readFileSync(f, "utf8");
      return importsElectron.test(text) && /\bipc(Main|Renderer)\b/.test(text.match(/import\s*\{[^}]*\}\s*from\s*["']electron["']/)?.[0] ?? "");
    });
    expect(users.map(rel).sort()).toEqual(["main/desktop/electron-main.ts", "preload/index.cts"]);
  });

  it("R0.2 no module outside the preload and the Electron entry imports electron", () => {
    const importers = files
      .filter((f) => importsElectron.test(readFileSync(f, "utf8")))
      .map(rel)
      .sort();
    expect(importers).toEqual(["main/desktop/electron-main.ts", "preload/index.cts"]);
  });
});
