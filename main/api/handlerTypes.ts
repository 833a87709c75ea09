// What every management handler module shares: the transport-agnostic handler signature,
// the dependencies they are built from, input parsing and config-event emission.
import type { ZodType } from "zod";
import type { ContractMethod } from "../../shared/contract.js";
import type { SwitchyardEvent } from "../../shared/types.js";
import type { Clock } from "../engine/ports.js";
import type { Store } from "../store/types.js";
import { fromZodError, invalidRequest } from "./errors.js";

/**
 * The event fan-out the handlers publish to (main/app's bus satisfies it structurally; api sits
 * below app in the layering, so it names the shape instead of importing it).
 */
export interface EventBus {
  emit(event: SwitchyardEvent): void;
  subscribe(listener: (event: SwitchyardEvent) => void): () => void;
}

/** `input` = path params merged over the JSON body (or the query string). */
export type Handler = (input: Record<string, unknown>) => unknown | Promise<unknown>;
export type ManagementHandlers = Partial<Record<ContractMethod, Handler>>;

export interface ConnectionTestResult {
  ok: boolean;
  latencyMs: number;
  error?: string;
}

/**
 * Checks an imported resilience patch and returns what to store; throws an ApiError (400 with
 * the field path) when it is invalid. Owned by the engine's settings normaliser.
 */
export type ResilienceValidator = (patch: Record<string, unknown>) => Record<string, unknown>;

export interface ManagementDeps {
  store: Store;
  bus: EventBus;
  clock: Clock;
  testConnection: (connectionId: string) => Promise<ConnectionTestResult>;
  /** Called after settings (general or imported) change, so the gateway reloads them (R10.3). */
  onSettingsChanged?: () => void;
  /** When absent, an imported `resilience` section is stored as the raw patch document. */
  validateResilience?: ResilienceValidator;
}

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

export function parseInput<T>(schema: ZodType<T>, input: unknown, prefix = ""): T {
  const result = schema.safeParse(input);
  if (!result.success) throw fromZodError(result.error, prefix);
  return result.data;
}

/** A path parameter; the HTTP adapter always supplies it, an IPC caller might not. */
export function pathParam(input: Record<string, unknown>, key: string): string {
  const value = input[key];
  if (typeof value !== "string" || value === "") throw invalidRequest(`${key} is required`, key);
  return value;
}
