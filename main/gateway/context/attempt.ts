// What one attempt is and leaves, as every floor above sees it (R22): the plan of targets, what
// selection has seen, an attempt's outcome and its classification. Types and one record class only:
// the stages that make them are the pipeline's (pipeline/), the features read them (features/).
import type { AttemptFault, Combo, WireFormat } from "../../../shared/types.js";
import type { ConnectionChoice } from "../../engine/connectionOrder.js";
import type { TransportFailure } from "../../engine/failure.js";
import type { Verdict } from "../../engine/ports.js";
import type { UsageSummary } from "../formats/index.js";
import type { Exclusion } from "./outcome.js";
import type { Target } from "./resolve.js";
import type { UpstreamResponse } from "../upstream/client.js";

export type StreamOutcome =
  | { kind: "completed" }
  | { kind: "client_gone" }
  /** Nothing reached the client: the caller may fail over. */
  | { kind: "failed_before_output"; code: StreamFailureCode; detail: string }
  /** The client already has bytes: the caller ends the stream with an error event. */
  | { kind: "failed_after_output"; code: StreamFailureCode; detail: string };

export type StreamFailureCode =
  | "STREAM_EARLY_EOF"
  | "stream_content_stall"
  | "stream_idle_timeout"
  | "stream_attempt_deadline"
  | "STREAM_THROUGHPUT_TOO_LOW"
  | "stream_transport_error"
  /** R13.3: a continuation turned into a tool call or reasoning, which a prefix cannot stitch. */
  | "stream_continuation_refused"
  /** R21.4: the stream ended on the account's used-up usage window (`detail`: the event's error body). */
  | "window_exhausted"
  /** R25.4: the upstream sent an error event (`detail`: its data), a failure of the class it names. */
  | "stream_error_event";

/**
 * R4.10: when the upstream's response head (status line and headers) arrived, by the gateway's
 * clock: the attempt's time to first byte. Absent when no response came.
 */
type FirstByte = { firstByteAt?: number };

export type AttemptOutcome = FirstByte &
  (
    | { kind: "transport_failure"; failure: TransportFailure }
    | { kind: "upstream_error"; status: number; headers: UpstreamResponse["headers"]; bodyText: string; upstreamFormat: WireFormat }
    /** D2: a 2xx (`status`) whose body is not JSON. */
    | { kind: "invalid_json"; status: number; headers: UpstreamResponse["headers"] }
    /** `body` is the answer for the client, or its JSON text when that is ready (a same-format pass-through). */
    | { kind: "json"; status: number; body: Record<string, unknown> | string; usage: UsageSummary; headers?: UpstreamResponse["headers"] }
    | (StreamOutcome & { usage: UsageSummary; headers?: UpstreamResponse["headers"] })
  );

/** `fault`: whose fault the attempt's end was (R25.4); the pipeline's results always carry it. */
export type AttemptResult =
  | { kind: "success"; fault?: "none" }
  /** The client left: the attempt counts for nothing (R13: a disconnect never blames the provider). */
  | { kind: "client_gone"; fault?: "client" }
  | { kind: "failure"; verdict: Verdict; fault?: AttemptFault };

export interface RequestPlan {
  targets: Target[];
  /** The combo the model named, if any (logged with the request). */
  combo: string | null;
  /** Its definition: strategy and config (the cooldown-wait opt-out). */
  comboDef?: Combo;
  /** How each target's connections of one priority are chosen (absent: by weight). */
  connectionChoice?: ConnectionChoice;
}

/** How a request recovers from a stream that failed before content (R13.2). */
export interface RecoveryPolicy {
  /** R13.2: fail over on a stream failure before any client-visible content. */
  recoveryEnabled: boolean;
  /** An early EOF is retried on another connection once, not on every one. */
  earlyEofRetries: { spent: number };
}

export interface QuotaPassOver {
  provider: string;
  target: string;
  connectionId: string;
  remainingMs: number | null;
}

/** What a request's selection has seen so far, across its targets. */
export class SelectionLog {
  readonly exclusions: Exclusion[] = [];
  readonly connectionCounts = new Map<string, number>();
  readonly triedProviders = new Set<string>();
  /** Free by every other measure but held by another session's lease (R7.2): the timeline shows them. */
  readonly leased: Array<{ provider: string; target: string; connectionId: string }> = [];
  /** Passed over for quotaPreflightCutoff while a sibling had more (tried after them): the timeline shows them. */
  readonly quotaCutoff: QuotaPassOver[] = [];
  private readonly tried = new Set<string>();

  /** What earlier passes of the same request skipped (a combo that waited and dispatched again). */
  constructor(readonly earlier: readonly SelectionLog[] = []) {}

  /** A fresh log for the next pass; the decisions start over, the record of this pass is kept. */
  nextPass(): SelectionLog {
    return new SelectionLog([...this.earlier, this]);
  }

  claim(connectionId: string, target: Target): boolean {
    const key = `${connectionId}\u0000${target.model}`;
    if (this.tried.has(key)) return false;
    this.tried.add(key);
    this.triedProviders.add(target.provider.id);
    return true;
  }
}
