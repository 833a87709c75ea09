// What every management handler module shares: the dependencies they are built from, input
// parsing for nested documents and config-event emission. Handler signatures come from the
// contract (shared/contract.ts); the adapters have parsed the input before a handler runs.
import type { ZodType } from "zod";
import type { ConnectionTestResult, ProviderDoctorReport } from "../../shared/apiTypes.js";
import type { ContractHandlers, ContractMethod } from "../../shared/contract.js";
import type { Budget, BudgetUsed, Connection, Provider, SwitchyardEvent } from "../../shared/types.js";
import type { Clock } from "../engine/ports.js";
import { fromZodError } from "./errors.js";
import type { ManagementStore, StorePorts } from "./ports.js";

/**
 * The event fan-out the handlers publish to (main/app's bus satisfies it structurally; api sits
 * below app in the layering, so it names the shape instead of importing it).
 */
export interface EventBus {
  emit(event: SwitchyardEvent): void;
  subscribe(listener: (event: SwitchyardEvent) => void): () => void;
}

/** The handlers of some contract methods, each typed by its contract entry. */
export type HandlersFor<M extends ContractMethod> = Pick<ContractHandlers, M>;

/**
 * Checks an imported resilience patch and returns what to store; throws an ApiError (400 with
 * the field path) when it is invalid. Owned by the engine's settings normaliser.
 */
export type ResilienceValidator = (patch: Record<string, unknown>) => Record<string, unknown>;

export interface ManagementDeps {
  store: ManagementStore;
  bus: EventBus;
  clock: Clock;
  testConnection: (connectionId: string) => Promise<ConnectionTestResult>;
  /** R23.4: the contract doctor's checks of a provider, over the connection chosen for them. */
  doctorProvider: (provider: Provider, connection: Connection) => Promise<ProviderDoctorReport>;
  /** Called after settings (general or imported) change, so the gateway reloads them (R10.3). */
  onSettingsChanged?: () => void;
  /** When absent, an imported `resilience` section is stored as the raw patch document. */
  validateResilience?: ResilienceValidator;
  /** R18.4: what a key's or connection's current budget period has used (absent: not shown). */
  budgetUsed?: (scope: "key" | "connection", id: string, budget: Budget | null) => BudgetUsed | null;
}

/** The entity with `budgetUsed` beside its `budget` (API.md "Budgets"). */
export function withBudgetUse<T extends { id: string; budget: Budget | null }>(deps: Pick<ManagementDeps, "budgetUsed">, scope: "key" | "connection", item: T): T {
  if (!deps.budgetUsed) return item;
  return { ...item, budgetUsed: deps.budgetUsed(scope, item.id, item.budget) };
}

/** A handler module's dependencies: the store ports it names, plus the rest of ManagementDeps. */
export type DepsWith<K extends keyof ManagementStore> = Omit<ManagementDeps, "store"> & { store: StorePorts<K> };

export type ConfigEntity = Extract<SwitchyardEvent, { type: "config" }>["entity"];
export type ConfigAction = Extract<SwitchyardEvent, { type: "config" }>["action"];

export interface ConfigChange {
  entity: ConfigEntity;
  id: string;
  action: ConfigAction;
}

export function emitConfigChanges(deps: Pick<ManagementDeps, "bus" | "clock">, changes: readonly ConfigChange[]): void {
  const at = deps.clock.now();
  for (const change of changes) deps.bus.emit({ type: "config", ...change, at });
}

/** For documents checked below the adapter (a config import); `prefix` re-roots error paths. */
export function parseInput<T>(schema: ZodType<T>, input: unknown, prefix = ""): T {
  const result = schema.safeParse(input);
  if (!result.success) throw fromZodError(result.error, prefix);
  return result.data;
}
