// DESIGN.md "One request, end to end": the feature hooks are called in one documented order, and
// the documents agree with the code: features/index.ts's HOOK_ORDER is every hook of RequestFeature,
// feature.ts's header documents them in that order, and DESIGN.md's list (when the team folder is
// beside the repo) names them in the same order (a hook the code adds is named in the issue note).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FEATURE_ORDER, HOOK_ORDER } from "../../../main/gateway/features/index.js";

const root = path.resolve(__dirname, "..", "..", "..");
const featureTs = readFileSync(path.join(root, "main/gateway/features/feature.ts"), "utf8");

/** The hooks RequestFeature declares (`name?(ctx…` members of the interface). */
function declaredHooks(): string[] {
  const body = featureTs.slice(featureTs.indexOf("export interface RequestFeature {"));
  return [...body.slice(0, body.indexOf("\n}")).matchAll(/^\s+(\w+)\?\(/gm)].map((m) => m[1]);
}

/** The hooks the header comment documents, in its order (`//   name(…)` lines). */
function documentedHooks(): string[] {
  const header = featureTs.slice(0, featureTs.indexOf("\nimport "));
  return [...header.matchAll(/^\/\/\s{3}(\w+)\(/gm)].map((m) => m[1]);
}

describe("R22 the feature hooks' one order", () => {
  it("R22 HOOK_ORDER is exactly RequestFeature's hooks", () => {
    expect([...HOOK_ORDER].sort()).toEqual(declaredHooks().sort());
  });

  it("R22 feature.ts documents every hook, in HOOK_ORDER", () => {
    expect(documentedHooks()).toEqual([...HOOK_ORDER]);
  });

  it("R22 DESIGN.md's hook list is in the code's order", () => {
    const design = path.join(root, "..", "shared", "DESIGN.md");
    if (!existsSync(design)) return expect(existsSync(design)).toBe(false);
    const text = readFileSync(design, "utf8");
    const line = text.slice(text.indexOf("`arrive` →"), text.indexOf("`finish(ctx, row)`") + 20);
    const named = [...line.matchAll(/`(\w+)/g)].map((m) => m[1]);
    expect(named.length).toBeGreaterThanOrEqual(8);
    // Every hook DESIGN.md names is a hook of the code, in the code's order.
    const positions = named.map((h) => HOOK_ORDER.indexOf(h as (typeof HOOK_ORDER)[number]));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it("R22 FEATURE_ORDER names exactly the features under main/gateway/features", () => {
    const dir = path.join(root, "main/gateway/features");
    const names = readdirSync(dir)
      .filter((f) => f.endsWith(".ts"))
      .flatMap((f) => [...readFileSync(path.join(dir, f), "utf8").matchAll(/^\s+name: "([\w-]+)",$/gm)].map((m) => m[1]));
    expect(names.sort()).toEqual([...FEATURE_ORDER].sort());
  });
});
