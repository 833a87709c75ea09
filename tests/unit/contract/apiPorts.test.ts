// The management handlers depend on narrow store ports (main/api/ports.ts), so their rules run
// here over small in-memory fakes, without SQLite; and they are reached the way the adapters
// reach them, through invokeContract, which parses the input once with the method's schema.
import { describe, expect, it } from "vitest";
import type { Combo, Provider, SwitchyardEvent } from "../../../shared/types.js";
import { createComboHandlers } from "../../../main/api/comboHandlers.js";
import { invokeContract } from "../../../main/api/dispatch.js";
import type { CatalogReader, CombosPort, SettingsPort } from "../../../main/api/ports.js";
import { fakeHandlers } from "../desktop/fakeHandlers.js";

function provider(id: string): Provider {
  return {
    id,
    format: "openai",
    baseUrl: "http://127.0.0.1:9/v1",
    category: "apikey",
    models: ["m1"],
    quotaFamilies: {},
    passthroughModels: false,
    rateLimitCooldownSeconds: null,
    priority: 0,
    options: {},
    createdAt: 1,
    updatedAt: 1,
  };
}

function memoryPorts() {
  const combos = new Map<string, Combo>();
  const documents = new Map<string, unknown>();
  const patches: unknown[] = [];
  const catalog: Omit<CatalogReader, "combos"> = { providers: { list: () => [provider("sim")] }, connections: { list: () => [] } };
  const combosPort: CombosPort = {
    list: () => [...combos.values()],
    get: (name) => combos.get(name) ?? null,
    create: (input) => {
      const combo = { ...input, createdAt: 1, updatedAt: 1 };
      combos.set(input.name, combo);
      return combo;
    },
    update: (name, patch) => {
      patches.push(patch);
      const current = combos.get(name);
      if (!current) return null;
      const next = { ...current, ...patch, updatedAt: 2 };
      combos.set(name, next);
      return next;
    },
    delete: (name) => combos.delete(name),
  };
  const settings: SettingsPort = {
    getDocument: <T>(key: string) => (documents.get(key) ?? null) as T | null,
    setDocument: (key, value) => void documents.set(key, value),
  };
  return { combos, documents, patches, store: { ...catalog, combos: combosPort, settings } };
}

function comboHandlers() {
  const ports = memoryPorts();
  const events: SwitchyardEvent[] = [];
  const handlers = createComboHandlers({
    store: ports.store,
    bus: { emit: (event) => void events.push(event), subscribe: () => () => undefined },
    clock: { now: () => 42 },
    testConnection: async () => ({ ok: true, latencyMs: 0 }),
    doctorProvider: async (_provider, connection) => ({ ok: true, checks: [], connectionId: connection.id, model: "m1" }),
  });
  // The other methods are not under test here.
  return { ...ports, events, table: fakeHandlers(handlers as unknown as Record<string, (input: Record<string, unknown>) => unknown>) };
}

describe("combo handlers over in-memory ports", () => {
  it("R11.1 a combo is created from parsed input, with the default strategy, and announced", async () => {
    const { table, combos, events } = comboHandlers();
    const created = await invokeContract(table, "createCombo", { name: "fast", targets: [{ model: "sim/m1" }] });
    expect(created).toMatchObject({ name: "fast", strategy: "priority", targets: [{ model: "sim/m1" }], config: {} });
    expect(combos.has("fast")).toBe(true);
    expect(events).toEqual([{ type: "config", entity: "combo", id: "fast", action: "created", at: 42 }]);
  });

  it("R11.1 a target on an unknown provider is 400 unknown_provider naming the field, and nothing is stored", async () => {
    const { table, combos } = comboHandlers();
    const failure = await invokeContract(table, "createCombo", { name: "fast", targets: [{ model: "nope/m1" }] }).catch((e: unknown) => e);
    expect(failure).toMatchObject({ status: 400, code: "unknown_provider", path: "targets.0.model" });
    expect(combos.size).toBe(0);
  });

  it("R14.3 input is checked by the method's schema before the handler runs: 400 with the path, the ports untouched", async () => {
    const { table, combos, events } = comboHandlers();
    const failure = await invokeContract(table, "createCombo", { name: "fast", strategy: "fastest", targets: [{ model: "sim/m1" }] }).catch((e: unknown) => e);
    expect(failure).toMatchObject({ status: 400, code: "invalid_request", path: "strategy" });
    expect(combos.size).toBe(0);
    expect(events).toEqual([]);
  });

  it("R1.3 a combo may not take an alias's name: 409 conflict, read through the settings port", async () => {
    const { table, documents } = comboHandlers();
    documents.set("settings", { aliases: { fast: "sim/m1" } });
    const failure = await invokeContract(table, "createCombo", { name: "fast", targets: [{ model: "sim/m1" }] }).catch((e: unknown) => e);
    expect(failure).toMatchObject({ status: 409, code: "conflict", path: "name" });
  });

  it("R11.1 PATCH keeps the name from the path and changes only what the body carries", async () => {
    const { table, patches } = comboHandlers();
    await invokeContract(table, "createCombo", { name: "fast", targets: [{ model: "sim/m1" }] });
    const updated = await invokeContract(table, "updateCombo", { name: "fast", strategy: "weighted" });
    expect(updated).toMatchObject({ name: "fast", strategy: "weighted", targets: [{ model: "sim/m1" }] });
    expect(patches).toEqual([{ strategy: "weighted" }]);
    await expect(invokeContract(table, "updateCombo", { name: "slow", strategy: "weighted" })).rejects.toMatchObject({ status: 404 });
  });
});
