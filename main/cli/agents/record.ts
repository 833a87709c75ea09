// What `switchyard run` and `switchyard connect` need of a coding agent (R23.2): one record per
// agent, each in its own file beside this one, listed in index.ts.
import type { Gateway } from "../gateway.js";

export interface RunContext {
  gateway: Gateway;
  /** The user's environment (the agent's starts from it). */
  env: NodeJS.ProcessEnv;
  /** The arguments the user gave the agent (after `--`). */
  args: string[];
  /** A path in a private folder (0700) that is removed when the agent exits. */
  scratch(name: string): string;
}

export interface Launch {
  /** Variables set for the agent's process, over the user's environment. */
  env: Record<string, string>;
  /** Arguments put before the user's. */
  args: string[];
  /** Runs once the agent has exited (before the private folder goes); may give a line for the user. */
  after?(): string | null;
}

export interface ConfigEdit {
  file: string;
  /** The new text from the current one (null: no file yet). */
  edit(current: string | null): string;
}

export interface ConnectContext {
  gateway: Gateway;
  env: NodeJS.ProcessEnv;
}

export interface AgentRecord {
  /** The name on the command line (`switchyard run <name>`), the record's key in index.ts. */
  name: string;
  title: string;
  /** The executable's name on PATH. */
  bin: string;
  launch(ctx: RunContext): Promise<Launch>;
  /** The files `connect` writes, in order. */
  connect(ctx: ConnectContext): Promise<ConfigEdit[]>;
  /** Every file `connect` may have written (where `--undo` looks for backups). */
  configFiles(env: NodeJS.ProcessEnv): string[];
  /** What the user should know after `connect` (its traps), if anything; it may depend on the agent's login. */
  note?: string | ((env: NodeJS.ProcessEnv) => string | undefined);
}
