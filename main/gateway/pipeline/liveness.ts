// How a waiting streaming client is kept alive (R16.3): how often, and in which frames.
import type { ClientKind, WireFormat } from "../../../shared/types.js";
import type { NumberedKeepAlive } from "../formats/adapter.js";
import { clientHalf } from "../formats/index.js";

/** Keep-alives at the configured interval, or often enough for a client that tolerates less silence (R16.3). */
export function heartbeatEveryMs(format: WireFormat, configuredMs: number): number {
  const tolerance = clientHalf(format).silenceToleranceMs;
  return tolerance === undefined ? configuredMs : Math.min(configuredMs, Math.floor(tolerance / 2.5));
}

/** R16.3: Codex counts only data events as life, so it gets keep-alive events its format numbers. */
export function keepAliveEvents(format: WireFormat, kind: ClientKind | undefined): NumberedKeepAlive | undefined {
  return kind === "codex-cli" ? clientHalf(format).numberedKeepAlive : undefined;
}
