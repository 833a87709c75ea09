// Issue 8 item 6: the dashboard's list of stored-only settings stays true. An entry whose field
// request-path code starts to read must leave the list (its "not active yet" marks go with it),
// and each entry covers what it says and nothing live.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { INACTIVE_SETTINGS, inactiveReason, strategyInactiveReason, type InactiveSetting } from "../../../renderer/src/inactiveSettings.js";
import { COMBO_STRATEGIES } from "../../../shared/catalog.js";

const root = path.resolve(__dirname, "..", "..", "..");

/** How code that acts on each setting would read it. */
// Empty since issue 26 made a connection's weight live; a new entry adds how its readers read it.
const READS: Record<InactiveSetting, RegExp> = {};

/** Where behaviour lives: the request path, the engine and the app wiring (not the CRUD handlers that store values). */
function behaviourSources(): Array<{ file: string; text: string }> {
  const out: Array<{ file: string; text: string }> = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(root, dir))) {
      const rel = path.join(dir, entry);
      if (statSync(path.join(root, rel)).isDirectory()) walk(rel);
      else if (entry.endsWith(".ts")) out.push({ file: rel, text: readFileSync(path.join(root, rel), "utf8") });
    }
  };
  for (const dir of ["main/gateway", "main/engine", "main/app"]) walk(dir);
  return out;
}

describe("settings marked not active yet", () => {
  it("no code in main/gateway, main/engine or main/app reads a setting the list marks as not active yet", () => {
    const sources = behaviourSources();
    const readers = Object.entries<RegExp>(READS).flatMap(([setting, pattern]) => sources.filter((s) => pattern.test(s.text)).map((s) => `${setting} read in ${s.file}`));
    expect(readers).toEqual([]);
  });

  it("an entry covers the paths below it and nothing beside it", () => {
    const table = { "connection.weight": "a feature" };
    expect(inactiveReason("connection.weight.x", table)).toBe("a feature");
    expect(inactiveReason("connection.weightless", table)).toBeNull();
    expect(inactiveReason("connection", table)).toBeNull();
    // Issue 26: a connection's weight shares traffic among its provider's connections, so it is live.
    expect(INACTIVE_SETTINGS).toEqual({});
    expect(inactiveReason("connection.weight")).toBeNull();
    // Issue 10: the request queue is live (admission control reads it on every request); R13.3: so is mid-stream continuation.
    expect(inactiveReason("resilience.requestQueue.maxQueueDepth")).toBeNull();
    expect(inactiveReason("resilience.streamRecovery.midstreamEnabled")).toBeNull();
    expect(inactiveReason("resilience.streamRecovery.enabled")).toBeNull();
    expect(inactiveReason("resilience.connectionCooldown.apikey.baseCooldownMs")).toBeNull();
    expect(inactiveReason("key.allowedConnections")).toBeNull();
    // R7.2: the lease route checks the lease:exclusive scope, so scopes are live.
    expect(inactiveReason("key.scopes")).toBeNull();
  });

  it("R11.1 no combo strategy is marked: the gateway routes by every one", () => {
    expect(COMBO_STRATEGIES.filter((s) => strategyInactiveReason(s) !== null)).toEqual([]);
  });
});
