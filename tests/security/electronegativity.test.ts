// Issue 13 item 5: @doyensec/electronegativity over main/ and preload/ (copied into one folder so
// its global checks see the navigation and permission handlers in main next to the preload),
// run offline; its exit code is always 0, so the SARIF file is parsed. No finding may come from a
// check that can report high severity. A deliberately insecure window proves the parse can fail.
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { clientPackageDir } from "../clients/locate.js";

const run = promisify(execFile);
const PKG = clientPackageDir("@doyensec/electronegativity");
const ELECTRON_VERSION = (JSON.parse(readFileSync(path.resolve("node_modules/electron/package.json"), "utf8")) as { version: string }).version;
/** Needs release data from the network; offline it can only say "No connectivity?". */
const ONLINE_ONLY_CHECKS = "AvailableSecurityFixesGlobalCheck";
const work = mkdtempSync(path.join(tmpdir(), "switchyard-electronegativity-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface SarifResult {
  ruleId: string;
  level: string;
  locations: Array<{ physicalLocation: { artifactLocation: { uri: string }; region?: { startLine: number } } }>;
}

/** Rule ids whose check can report HIGH severity, read from the installed checks' sources. */
function highSeverityRules(): Set<string> {
  const ids = new Set<string>();
  const walk = (dir: string): void => {
    for (const f of readdirSync(dir)) {
      const p = path.join(dir, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith(".js")) {
        const text = readFileSync(p, "utf8");
        const id = /this\.id = "([A-Z_]+)"/.exec(text)?.[1];
        if (id && text.includes("severity.HIGH")) ids.add(id);
      }
    }
  };
  walk(path.join(PKG, "src/finder/checks"));
  return ids;
}

async function scan(input: string, name: string): Promise<SarifResult[]> {
  const output = path.join(work, `${name}.sarif`);
  await run(
    process.execPath,
    [
      "--require",
      path.resolve("tests/security/offlineDns.cjs"),
      path.join(PKG, "dist/index.js"),
      "-i",
      input,
      "-o",
      output,
      "-r",
      "-v",
      "false",
      "-e",
      ELECTRON_VERSION,
      "-x",
      ONLINE_ONLY_CHECKS,
    ],
    { timeout: 90_000 },
  );
  const sarif = JSON.parse(readFileSync(output, "utf8")) as { runs: Array<{ results: SarifResult[] }> };
  expect(sarif.runs).toHaveLength(1);
  return sarif.runs[0].results;
}

describe("electronegativity", () => {
  it("R0.1 R14.3 finds nothing of high severity in main/ and preload/", { timeout: 120_000 }, async () => {
    const high = highSeverityRules();
    expect(high).toContain("NODE_INTEGRATION_JS_CHECK");
    expect(high).toContain("CONTEXT_ISOLATION_JS_CHECK");
    expect(high).toContain("LIMIT_NAVIGATION_GLOBAL_CHECK");

    const sources = path.join(work, "sources");
    cpSync(path.resolve("main"), path.join(sources, "main"), { recursive: true });
    cpSync(path.resolve("preload"), path.join(sources, "preload"), { recursive: true });
    const insecure = path.join(work, "insecure");
    mkdirSync(insecure);
    writeFileSync(
      path.join(insecure, "main.ts"),
      'import { BrowserWindow } from "electron";\nexport const w = new BrowserWindow({ webPreferences: { nodeIntegration: true, contextIsolation: false, sandbox: false } });\n',
    );

    const [results, control] = await Promise.all([scan(sources, "switchyard"), scan(insecure, "insecure")]);
    // The control proves the SARIF is read and high findings would show.
    expect(control.filter((r) => high.has(r.ruleId)).map((r) => r.ruleId)).toContain("LIMIT_NAVIGATION_GLOBAL_CHECK");
    expect(control.map((r) => r.ruleId)).toContain("SANDBOX_JS_CHECK");
    // The scan really read our sources: the manual-review notes point into main/desktop.
    expect(results.some((r) => r.locations[0]?.physicalLocation.artifactLocation.uri.startsWith("main/desktop/"))).toBe(true);
    const highFindings = results.filter((r) => high.has(r.ruleId));
    expect(highFindings.map((r) => `${r.ruleId} ${r.locations[0]?.physicalLocation.artifactLocation.uri}:${r.locations[0]?.physicalLocation.region?.startLine}`)).toEqual([]);
  });
});
