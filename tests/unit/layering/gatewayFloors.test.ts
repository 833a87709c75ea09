// R22, DESIGN.md "Gateway floors": http/ → pipeline/ → features/ → context/ → upstream/ → formats/, the Redis
// adapter as main/group/ beside the store. The same module is the lint rule (eslint.config.js);
// this test walks the tree with it, finds no import cycle, and shows the rule fires on a bad import.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { Linter, type Rule } from "eslint";
import tseslint from "typescript-eslint";
import { describe, expect, it } from "vitest";
import { floorViolation, gatewayFloorsRule, GATEWAY_FLOORS, importTarget } from "./gatewayFloors.mjs";

const root = path.resolve(__dirname, "..", "..", "..");

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(root, dir))) {
    const rel = `${dir}/${entry}`;
    if (statSync(path.join(root, rel)).isDirectory()) out.push(...sources(rel));
    else if (entry.endsWith(".ts")) out.push(rel);
  }
  return out;
}

const IMPORT = /(?:import|export)\s[^'"]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/gm;

function importsOf(file: string): string[] {
  const text = readFileSync(path.join(root, file), "utf8");
  return [...text.matchAll(IMPORT)].flatMap((m) => {
    const target = importTarget(file, m[1] ?? m[2] ?? "");
    return target ? [target] : [];
  });
}

const FILES = [...sources("main/gateway"), ...sources("main/group")];

/** Strongly connected components of more than one file (Tarjan): the import cycles. */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component);
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe("R22 gateway floors (DESIGN.md)", () => {
  it("R22 every gateway file is on one of the six floors", () => {
    const top = new Set(sources("main/gateway").map((f) => f.split("/")[2]));
    expect([...top].sort()).toEqual([...GATEWAY_FLOORS].sort());
  });

  it("R22 imports point down only: no floor imports one above it, the gateway never imports group/store/api/app, the group never the gateway", () => {
    const offenders = FILES.flatMap((file) => importsOf(file).flatMap((target) => floorViolation(file, target) ?? []));
    expect(offenders).toEqual([]);
  });

  it("R22 there is no import cycle in the gateway or the group adapter", () => {
    expect(cycles(new Map(FILES.map((f) => [f, importsOf(f)])))).toEqual([]);
  });

  it("R22 the lint rule reports a back-import and leaves a downward one alone", () => {
    const linter = new Linter({ configType: "flat", cwd: root });
    const config: Linter.Config[] = [
      {
        files: ["**/*.ts"],
        languageOptions: { parser: tseslint.parser },
        plugins: { switchyard: { rules: { "gateway-floors": gatewayFloorsRule as Rule.RuleModule } } },
        rules: { "switchyard/gateway-floors": "error" },
      },
    ];
    const lint = (file: string, code: string) => linter.verify(code, config, path.join(root, file)).map((m) => m.message);
    expect(lint("main/gateway/features/x.ts", 'import { y } from "../pipeline/pipeline.js";')).toEqual([expect.stringContaining("features/ may not import pipeline/")]);
    expect(lint("main/gateway/context/x.ts", 'export { y } from "../http/server.js";')).toEqual([expect.stringContaining("context/ may not import http/")]);
    expect(lint("main/gateway/pipeline/x.ts", 'import { y } from "../../store/index.js";')).toEqual([expect.stringContaining("the gateway may not import main/store/index.ts")]);
    expect(lint("main/group/x.ts", 'import { y } from "../gateway/context/ports.js";')).toEqual([expect.stringContaining("the group adapter may not import")]);
    expect(lint("main/gateway/request/x.ts", 'import { y } from "../formats/index.js";')).toEqual([expect.stringContaining("on no gateway floor")]);
    expect(lint("main/gateway/http/x.ts", 'import { a } from "../pipeline/pipeline.js";\nimport { b } from "../formats/index.js";')).toEqual([]);
  });
});
