// The narrow ports the request path depends on (issue 8): the composition root adapts the Store
// to them, and unit tests hand in small in-memory versions instead of SQLite.
import type { ClientLogin } from "./clientLogin.js";
import type { AppSettings, Combo, Connection, Provider, RequestLogEntry } from "../../../shared/types.js";

/** What a model name can resolve to: providers, combos and the aliases of the settings. */
export interface CatalogPort {
  providers(): Provider[];
  combo(name: string): Combo | null;
  combos(): Combo[];
  aliases(): AppSettings["aliases"];
}

/** The connections of a provider and their secrets (decrypted only for the call that needs one). */
export interface ConnectionsPort {
  listByProvider(providerId: string): Connection[];
  secret(connectionId: string): string | null;
  /**
   * R21.2: the account of `login` under the client-login connection `template`, made the first time
   * the login is seen (named by its digest; the login itself is never stored).
   */
  accountFor?(template: Connection, login: ClientLogin): Connection;
}

/** Where finished requests go (R15.1); the store batches the writes off the hot path. */
export interface RequestLogSink {
  append(entry: RequestLogEntry): void;
}

/** R18.4: budgets the request path honours before anything goes upstream. */
export interface BudgetPort {
  /** Milliseconds until the key's period ends when its budget is spent, else null. */
  keyOverBudgetMs(keyId: string | null): number | null;
  /** The same for a connection: over budget, it is skipped like a cooldown (reason `budget`). */
  connectionOverBudgetMs(connection: Connection): number | null;
}

/** Where the gateway reports what went wrong inside Switchyard itself (pino's shape; main/app passes the logger). */
export interface ErrorLog {
  error(fields: Record<string, unknown>, message: string): void;
}

/** An error as a log line may carry it: its name, message and stack, nothing else of the object. */
export function describeError(err: unknown): Record<string, unknown> {
  return err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : { message: String(err) };
}
