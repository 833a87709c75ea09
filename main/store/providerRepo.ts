// Providers: one upstream service each. Deleting one takes its connections
// (FK cascade) and its persisted breaker with it.
import type Database from "better-sqlite3";
import type { Provider } from "../../shared/types.js";
import type { Clock } from "../engine/ports.js";
import { cachedRead, type WriteEpoch } from "./readCache.js";
import { StoreConflictError, isUniqueViolation } from "./errors.js";
import { definedOnly, fromFlag, fromJson, toFlag, toJson } from "./rows.js";
import type { ProviderInput, ProviderRepo } from "./types.js";

interface ProviderRow {
  id: string;
  format: Provider["format"];
  base_url: string;
  category: Provider["category"];
  models: string;
  quota_families: string;
  passthrough_models: number;
  rate_limit_cooldown_seconds: number | null;
  priority: number;
  max_concurrent: number | null;
  options: string;
  created_at: number;
  updated_at: number;
}

// modelInfo rides in the options JSON column under this key, so it needed no schema migration.
const MODEL_INFO_KEY = "modelInfo";

function toProvider(row: ProviderRow): Provider {
  const { [MODEL_INFO_KEY]: modelInfo, ...options } = fromJson<Record<string, unknown>>(row.options);
  return {
    id: row.id,
    format: row.format,
    baseUrl: row.base_url,
    category: row.category,
    models: fromJson(row.models),
    quotaFamilies: fromJson(row.quota_families),
    passthroughModels: fromFlag(row.passthrough_models),
    rateLimitCooldownSeconds: row.rate_limit_cooldown_seconds,
    priority: row.priority,
    maxConcurrent: row.max_concurrent,
    options,
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- written by this repo from a value the config schema parsed
    ...(modelInfo ? { modelInfo: modelInfo as Provider["modelInfo"] } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toParams(p: Provider): Record<string, unknown> {
  return {
    id: p.id,
    format: p.format,
    base_url: p.baseUrl,
    category: p.category,
    models: toJson(p.models),
    quota_families: toJson(p.quotaFamilies),
    passthrough_models: toFlag(p.passthroughModels),
    rate_limit_cooldown_seconds: p.rateLimitCooldownSeconds,
    priority: p.priority,
    max_concurrent: p.maxConcurrent ?? null,
    options: toJson(p.modelInfo && Object.keys(p.modelInfo).length ? { ...p.options, [MODEL_INFO_KEY]: p.modelInfo } : p.options),
    created_at: p.createdAt,
    updated_at: p.updatedAt,
  };
}

export function createProviderRepo(db: Database.Database, clock: Clock, epoch: WriteEpoch): ProviderRepo {
  const selectAll = db.prepare<[], ProviderRow>("SELECT * FROM providers ORDER BY created_at, id");
  const insert = db.prepare(
    `INSERT INTO providers (id, format, base_url, category, models, quota_families, passthrough_models,
       rate_limit_cooldown_seconds, priority, max_concurrent, options, created_at, updated_at)
     VALUES (@id, @format, @base_url, @category, @models, @quota_families, @passthrough_models,
       @rate_limit_cooldown_seconds, @priority, @max_concurrent, @options, @created_at, @updated_at)`,
  );
  const replace = db.prepare(
    `UPDATE providers SET format = @format, base_url = @base_url, category = @category, models = @models,
       quota_families = @quota_families, passthrough_models = @passthrough_models,
       rate_limit_cooldown_seconds = @rate_limit_cooldown_seconds, priority = @priority, max_concurrent = @max_concurrent, options = @options, updated_at = @updated_at
     WHERE id = @id`,
  );
  const remove = db.prepare<[string]>("DELETE FROM providers WHERE id = ?");
  const removeBreaker = db.prepare<[string]>("DELETE FROM domain_circuit_breakers WHERE provider = ?");

  const all = cachedRead(epoch, () => {
    const list = selectAll.all().map(toProvider);
    return { list, byId: new Map(list.map((p) => [p.id, p])) };
  });
  const get = (id: string): Provider | null => all().byId.get(id) ?? null;

  const update = db.transaction((id: string, patch: Partial<ProviderInput>): Provider | null => {
    const current = get(id);
    if (!current) return null;
    const changes = definedOnly(patch);
    delete changes.id;
    const next: Provider = { ...current, ...changes, id, updatedAt: clock.now() };
    replace.run(toParams(next));
    epoch.bump();
    return next;
  });

  const del = db.transaction((id: string): boolean => {
    removeBreaker.run(id);
    const removed = remove.run(id).changes > 0;
    epoch.bump();
    return removed;
  });

  return {
    list: () => [...all().list],
    get,
    create(input) {
      const now = clock.now();
      const provider: Provider = {
        id: input.id,
        format: input.format,
        baseUrl: input.baseUrl,
        category: input.category,
        models: input.models ?? [],
        quotaFamilies: input.quotaFamilies ?? {},
        passthroughModels: input.passthroughModels ?? false,
        rateLimitCooldownSeconds: input.rateLimitCooldownSeconds ?? null,
        priority: input.priority ?? 0,
        maxConcurrent: input.maxConcurrent ?? null,
        options: input.options ?? {},
        ...(input.modelInfo ? { modelInfo: input.modelInfo } : {}),
        createdAt: now,
        updatedAt: now,
      };
      try {
        insert.run(toParams(provider));
        epoch.bump();
      } catch (err) {
        if (isUniqueViolation(err)) throw new StoreConflictError("provider", input.id);
        throw err;
      }
      return provider;
    },
    update: (id, patch) => update.immediate(id, patch),
    delete: (id) => del.immediate(id),
  };
}
