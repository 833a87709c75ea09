// Combos: named multi-target models (R11.1); targets and config are JSON documents.
import type Database from "better-sqlite3";
import type { Combo } from "../../shared/types.js";
import type { Clock } from "../engine/ports.js";
import { cachedRead, type WriteEpoch } from "./readCache.js";
import { StoreConflictError, isUniqueViolation } from "./errors.js";
import { definedOnly, fromJson, toJson } from "./rows.js";
import type { ComboRepo } from "./types.js";

interface ComboRow {
  name: string;
  strategy: string;
  targets: string;
  config: string;
  created_at: number;
  updated_at: number;
}

function toCombo(row: ComboRow): Combo {
  return {
    name: row.name,
    strategy: row.strategy,
    targets: fromJson(row.targets),
    config: fromJson(row.config),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toParams(c: Combo): Record<string, unknown> {
  return {
    name: c.name,
    strategy: c.strategy,
    targets: toJson(c.targets),
    config: toJson(c.config),
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  };
}

export function createComboRepo(db: Database.Database, clock: Clock, epoch: WriteEpoch): ComboRepo {
  const selectAll = db.prepare<[], ComboRow>("SELECT * FROM combos ORDER BY created_at, name");
  const insert = db.prepare(
    `INSERT INTO combos (name, strategy, targets, config, created_at, updated_at)
     VALUES (@name, @strategy, @targets, @config, @created_at, @updated_at)`,
  );
  const replace = db.prepare("UPDATE combos SET strategy = @strategy, targets = @targets, config = @config, updated_at = @updated_at WHERE name = @name");
  const remove = db.prepare<[string]>("DELETE FROM combos WHERE name = ?");

  // resolveModel asks for a combo by name on every request; combos change only by operator edits.
  const all = cachedRead(epoch, () => {
    const list = selectAll.all().map(toCombo);
    return { list, byName: new Map(list.map((c) => [c.name, c])) };
  });
  const get = (name: string): Combo | null => all().byName.get(name) ?? null;

  const update = db.transaction((name: string, patch: Partial<Omit<Combo, "name" | "createdAt" | "updatedAt">>) => {
    const current = get(name);
    if (!current) return null;
    const changes = definedOnly(patch) as Partial<Combo>;
    delete changes.name;
    delete changes.createdAt;
    const next: Combo = { ...current, ...changes, updatedAt: clock.now() };
    replace.run(toParams(next));
    epoch.bump();
    return next;
  });

  return {
    list: () => [...all().list],
    get,
    create(input) {
      const now = clock.now();
      const combo: Combo = {
        name: input.name,
        strategy: input.strategy,
        targets: input.targets ?? [],
        config: input.config ?? {},
        createdAt: now,
        updatedAt: now,
      };
      try {
        insert.run(toParams(combo));
        epoch.bump();
      } catch (err) {
        if (isUniqueViolation(err)) throw new StoreConflictError("combo", input.name);
        throw err;
      }
      return combo;
    },
    update: (name, patch) => update.immediate(name, patch),
    delete: (name) => {
      const removed = remove.run(name).changes > 0;
      epoch.bump();
      return removed;
    },
  };
}
