// DESIGN.md layering: arrows only point down. engine/ and shared/ stay pure; nothing that runs
// under plain Node imports electron; only two files touch ipcMain / ipcRenderer.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "..", "..", "..");

function sources(dir: string): string[] {
  const abs = path.join(root, dir);
  const out: string[] = [];
  for (const entry of readdirSync(abs)) {
    const p = path.join(abs, entry);
    if (statSync(p).isDirectory()) out.push(...sources(path.join(dir, entry)));
    else if (/\.(ts|tsx|cts|mts)$/.test(entry)) out.push(path.join(dir, entry));
  }
  return out;
}

function imports(file: string): string[] {
  const text = readFileSync(path.join(root, file), "utf8");
  const found: string[] = [];
  const re = /(?:import|export)\s[^'"]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|require\(\s*["']([^"']+)["']\s*\)|^\s*import\s*["']([^"']+)["']/gm;
  for (const m of text.matchAll(re)) found.push(m[1] ?? m[2] ?? m[3] ?? m[4]);
  return found;
}

function resolveRel(file: string, spec: string): string {
  return path.normalize(path.join(path.dirname(file), spec));
}

const NODE_OR_IO = /^(node:|fs$|path$|http$|https$|net$|crypto$|os$|child_process$|express|better-sqlite3|undici|electron|pino)/;

describe("layering (DESIGN.md)", () => {
  it("R0.1 main/engine imports no Node, Express, SQLite, undici or Electron module, and no layer above it", () => {
    const offenders: string[] = [];
    for (const f of sources("main/engine")) {
      for (const spec of imports(f)) {
        if (NODE_OR_IO.test(spec)) offenders.push(`${f} -> ${spec}`);
        if (spec.startsWith(".")) {
          const target = resolveRel(f, spec);
          if (!target.startsWith(path.normalize("main/engine")) && !target.startsWith("shared")) offenders.push(`${f} -> ${spec}`);
        }
      }
      const text = readFileSync(path.join(root, f), "utf8");
      if (/\bDate\.now\(|\bset(Timeout|Interval)\(/.test(text)) offenders.push(`${f} reads real time or starts a timer`);
    }
    expect(offenders).toEqual([]);
  });

  it("R14.3 shared/ imports nothing from Node, Electron, the DOM layer or main/", () => {
    const offenders: string[] = [];
    for (const f of sources("shared")) {
      for (const spec of imports(f)) {
        if (NODE_OR_IO.test(spec) || spec === "react" || spec === "react-dom") offenders.push(`${f} -> ${spec}`);
        if (spec.startsWith(".") && !resolveRel(f, spec).startsWith("shared")) offenders.push(`${f} -> ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it("R0.2 nothing outside main/desktop and preload imports electron", () => {
    const offenders: string[] = [];
    for (const dir of ["main", "shared", "renderer/src"]) {
      for (const f of sources(dir)) {
        if (f.startsWith(path.normalize("main/desktop"))) continue;
        if (imports(f).some((s) => s === "electron" || s.startsWith("electron/"))) offenders.push(f);
      }
    }
    expect(offenders).toEqual([]);
  });

  it("R0.1 store, gateway and api never import desktop; engine never imports store, gateway or api", () => {
    const offenders: string[] = [];
    for (const dir of ["main/store", "main/gateway", "main/api", "main/app"]) {
      for (const f of sources(dir)) {
        for (const spec of imports(f)) {
          if (spec.startsWith(".") && resolveRel(f, spec).startsWith(path.normalize("main/desktop"))) offenders.push(`${f} -> ${spec}`);
        }
      }
    }
    for (const dir of ["main/store", "main/gateway", "main/api"]) {
      for (const f of sources(dir)) {
        for (const spec of imports(f)) {
          if (spec.startsWith(".") && resolveRel(f, spec).startsWith(path.normalize("main/app"))) offenders.push(`${f} -> ${spec}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });

  it("R14.3 the renderer reaches the backend only through its transport (no main/ imports)", () => {
    const offenders = sources("renderer/src").flatMap((f) =>
      imports(f)
        .filter((s) => s.startsWith(".") && resolveRel(f, s).startsWith("main"))
        .map((s) => `${f} -> ${s}`),
    );
    expect(offenders).toEqual([]);
  });

  it("R22 the management handlers are api/'s: the composition root holds no *Handlers.ts", () => {
    expect(readdirSync(path.join(root, "main/app")).filter((f) => /Handlers\.ts$/.test(f))).toEqual([]);
    expect(sources("main/api").filter((f) => /(monitoring|quota|resilience|session)Handlers\.ts$/.test(f))).toHaveLength(4);
  });
});
