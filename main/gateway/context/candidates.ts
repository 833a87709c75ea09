// What a `candidates` hook sees of one target's selection (DESIGN.md "features as hooks"): the
// connections come to the hooks in the engine's try order; a hook filters them, orders them, or
// puts the account a request's credential chooses in place of a connection (R21.2), and says
// why it passed one over, so the final error and the timeline can tell (R11.5).
import type { Connection } from "../../../shared/types.js";
import type { ConnectionExclusion } from "../../engine/ports.js";
import type { SelectionLog } from "./attempt.js";
import type { Exclusion } from "./outcome.js";

export interface CandidateScope {
  /** The selection log of the request's current pass over its targets. */
  readonly log: SelectionLog;
  /** `<provider>/<model>`, as exclusions name the target. */
  readonly label: string;
  /** The gateway's clock, read once for the target. */
  readonly now: number;
  /** What the engine excludes a connection for now (cooldown, lockout, terminal), or null. */
  excludedBy(connection: Connection): ConnectionExclusion | null;
  /** Notes that the selection passed over this connection, and why. */
  exclude(connection: Connection, reason: Exclusion["reason"], remainingMs: number | null): void;
  /** The engine's try order of these connections (a hook that put connections of other priorities or weights in place asks again). */
  order(list: Connection[]): Connection[];
}
