// The resilience settings document's one validator (R10.1), derived from the defaults and the
// ranges so that a new setting cannot be forgotten. Two readings of the same description:
// - PATCH /api/resilience (and config imports) is strict about types and keys: a wrong type or an
//   unknown key is a 400 naming the field; out-of-range numbers and nulls are accepted.
// - The stored document is read tolerantly: a wrong type falls back to its (env-seeded) default,
//   a number is clamped to its range, an unknown key is dropped; each change is reported, so an
//   operator is never refused for a value of 61 s yet always told what was kept.
import { z } from "zod";
import { isRecord } from "../records.js";
import { parseEnvBoolean, resilienceDefaults } from "../resilienceEnv.js";
import {
  DEFAULT_RESILIENCE_SETTINGS,
  type Env,
  type NormalizedResilience,
  OPTIONAL_SECTIONS,
  RESILIENCE_CHOICES,
  type ResilienceSettings,
  type SettingsChange,
  applyCrossFieldRules,
  clampNumber,
  describeRange,
  joinPath,
  rangeAt,
} from "../resilienceSettings.js";

type DeepPatch<T> = T extends readonly unknown[] ? T | null : T extends object ? { [K in keyof T]?: DeepPatch<T[K]> | null } : T | null;

/** PATCH /api/resilience body: any subset of the document; `null` restores a field's default. */
export type ResiliencePatch = DeepPatch<ResilienceSettings>;

/**
 * An object that refuses unknown keys with the key's own path ("modelLockout.baseCooldwnMs"), so
 * that a 400 names the misspelt field rather than its parent (R10.1, D6).
 */
export function closedObject<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.looseObject(shape).superRefine((value, ctx) => {
    for (const key of Object.keys(value)) {
      if (!(key in shape)) ctx.addIssue({ code: "custom", path: [key], message: "unknown field" });
    }
  });
}

/** The sections of the document at `path`, with the optional ones (absent from the defaults) added. */
function sectionEntries(defaults: object, path: string): Array<[string, unknown, boolean]> {
  const entries = Object.entries(defaults).map(([key, value]): [string, unknown, boolean] => [key, value, false]);
  for (const [optionalPath, profile] of Object.entries(OPTIONAL_SECTIONS)) {
    const key = optionalPath.slice(path ? path.length + 1 : 0);
    if (joinPath(path, key) === optionalPath && !key.includes(".")) entries.push([key, profile, true]);
  }
  return entries;
}

// ---------------------------------------------------------------- the patch (strict)

/** The words a one-of-a-list setting takes (RESILIENCE_CHOICES). */
function choicesAt(path: string): [string, ...string[]] {
  const choices = RESILIENCE_CHOICES[path];
  if (!choices || choices.length === 0) throw new Error(`resilience setting ${path} is a word with no list of choices`);
  return [choices[0], ...choices.slice(1)];
}

function patchNode(sample: unknown, path: string): z.ZodType {
  if (Array.isArray(sample)) return z.array(z.number()).nullable().optional();
  if (typeof sample === "string") return z.enum(choicesAt(path)).nullable().optional();
  if (typeof sample === "boolean") return z.boolean().nullable().optional();
  if (typeof sample === "number" || sample === null) return z.number().nullable().optional();
  const shape: Record<string, z.ZodType> = {};
  for (const [key, value] of sectionEntries(isRecord(sample) ? sample : {}, path)) {
    shape[key] = patchNode(value, joinPath(path, key));
  }
  return closedObject(shape).nullable().optional();
}

function patchSchema(): z.ZodType<ResiliencePatch> {
  const shape: Record<string, z.ZodType> = {};
  for (const [key, value] of Object.entries(DEFAULT_RESILIENCE_SETTINGS)) shape[key] = patchNode(value, key);
  return closedObject(shape);
}

export const resiliencePatchSchema = patchSchema();

// ---------------------------------------------------------------- the stored document (tolerant)

type Log = (change: SettingsChange) => void;

/** A value of `schema`, or the default when absent (silently) or failing (reported with `reason`). */
function withDefault(schema: z.ZodType, fallback: unknown, path: string, reason: string, log: Log): z.ZodType {
  return schema
    .nullish()
    .catch(({ value }: { value: unknown }) => {
      log({ path, from: value, to: fallback, reason });
      return null;
    })
    .transform((value) => value ?? structuredClone(fallback));
}

function storedNumber(fallback: unknown, path: string, log: Log): z.ZodType {
  const range = rangeAt(path);
  const clamped = z.number().transform((value) => {
    const within = clampNumber(value, range);
    if (within !== value) log({ path, from: value, to: within, reason: describeRange(range) });
    return within;
  });
  return withDefault(clamped, fallback, path, "expected a finite number", log);
}

const statusCode = z.number().int().min(100).max(599);

/** D5: codes outside 100-599 are dropped; a list left empty restores the default. */
function storedStatusCodes(fallback: number[], path: string, log: Log): z.ZodType {
  const codes = z.array(z.unknown()).transform((raw) => {
    const kept = [...new Set(raw.filter((code): code is number => statusCode.safeParse(code).success))];
    if (kept.length === 0) {
      log({ path, from: raw, to: fallback, reason: "no status code within 100-599; default restored" });
      return [...fallback];
    }
    if (kept.length !== raw.length) log({ path, from: raw, to: kept, reason: "codes outside 100-599 dropped" });
    return kept;
  });
  return withDefault(codes, fallback, path, "expected an array of HTTP status codes", log);
}

function storedSection(fallback: object, path: string, log: Log): z.ZodType {
  const shape: Record<string, z.ZodType> = {};
  for (const [key, value, optional] of sectionEntries(fallback, path)) {
    const node = storedNode(value, joinPath(path, key), log);
    // An optional section is kept only when the document has it.
    shape[key] = optional ? z.union([z.null().transform(() => undefined), node]).optional() : node;
  }
  const asObject = (raw: unknown): Record<string, unknown> => {
    if (isRecord(raw)) return raw;
    if (raw !== undefined && raw !== null) log({ path, from: raw, to: fallback, reason: "expected an object" });
    return {};
  };
  return z.preprocess(
    asObject,
    z.looseObject(shape).transform((doc) => {
      for (const [key, value] of Object.entries(doc)) {
        if (!(key in shape)) log({ path: joinPath(path, key), from: value, to: undefined, reason: "unknown key dropped" });
        if (!(key in shape) || value === undefined) delete doc[key];
      }
      return doc;
    }),
  );
}

function storedNode(fallback: unknown, path: string, log: Log): z.ZodType {
  if (Array.isArray(fallback))
    return storedStatusCodes(
      fallback.filter((code) => typeof code === "number"),
      path,
      log,
    );
  if (isRecord(fallback)) return storedSection(fallback, path, log);
  if (typeof fallback === "boolean") return withDefault(z.boolean(), fallback, path, "expected a boolean", log);
  if (typeof fallback === "string") return withDefault(z.enum(choicesAt(path)), fallback, path, `expected one of ${choicesAt(path).join(", ")}`, log);
  return storedNumber(fallback, path, log);
}

/** R10.1: clamps every number to its range, restores defaults for wrong types, reports each change. */
export function normalizeResilienceSettings(raw: unknown, env: Env): NormalizedResilience {
  const changes: SettingsChange[] = [];
  const log: Log = (change) => changes.push(change);
  const defaults = resilienceDefaults(env, changes);
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- the schema is built from `defaults`, node by node, so it outputs their shape
  const settings = storedSection(defaults, "", log).parse(raw) as ResilienceSettings;
  applyCrossFieldRules(settings, changes);
  const forced = parseEnvBoolean(env.RATE_LIMIT_AUTO_ENABLE); // R9.5: the one env var that beats the stored value
  if (forced !== undefined && forced !== settings.requestQueue.autoEnableApiKeyProviders) {
    changes.push({
      path: "requestQueue.autoEnableApiKeyProviders",
      from: settings.requestQueue.autoEnableApiKeyProviders,
      to: forced,
      reason: "RATE_LIMIT_AUTO_ENABLE overrides the stored value",
    });
    settings.requestQueue.autoEnableApiKeyProviders = forced;
  }
  return { settings, changes };
}
