// R12.6 at the call: wraps one upstream call of a Claude connection that opted into the usage-wall
// handling. A wall 429 first tries the session-limit reset (autoLimitReset), then takes the slow lane
// (lowPriorityMode) and asks the same account again at once; while the lane runs every call carries
// `anthropic-usage-limit: slow`, and slot_busy/529 answers are waited out within the lane's budget.
// Whatever this does not absorb is returned as the call's answer and handled as usual (cooldown...).
import type { Connection, Provider } from "../../../../shared/types.js";
import type { Clock } from "../../../engine/ports.js";
import { jitteredWaitMs, waitBudgetMs, type UsageWallBook } from "../../../engine/usageWall.js";
import { readWallAnswer, SLOW_HEADER, SLOW_VALUE } from "../../formats/anthropic/usageWall.js";
import type { SendCall, UpstreamCall } from "../../upstream/call.js";
import type { LimitResetClient } from "./limitReset.js";

export interface UsageWallDeps {
  book: UsageWallBook;
  clock: Clock;
  /** The request's own upstream timeout (streamRecovery.attemptDeadlineMs; 0 = none). */
  requestTimeoutMs: () => number;
  random: () => number;
  limitReset: LimitResetClient;
}

const SLOW = { [SLOW_HEADER]: SLOW_VALUE };

/** Waits `ms` of real time; false when the client left first. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const done = (ok: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve(ok);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** An answer that is not passed on is read to the end, so its socket goes back to the pool. */
async function discard(call: UpstreamCall): Promise<void> {
  await call.bodyText(64 * 1024).catch(() => "");
}

export function optedIn(connection: Pick<Connection, "providerSpecificData">): { lane: boolean; reset: boolean } {
  const data = connection.providerSpecificData;
  return { lane: data.lowPriorityMode === true, reset: data.autoLimitReset === true };
}

/** `login`: the credential of a login's account (R21.2, R24.5), which claims that login's own reset. */
type WallTarget = { provider: Provider; connection: Connection; signal?: AbortSignal; login?: string | null };

/** The call of an attempt; a connection that opted into neither lane nor reset is sent straight (no extra promise). */
export function callThroughUsageWall(deps: UsageWallDeps | undefined, target: WallTarget, send: SendCall): Promise<UpstreamCall> {
  const opt = optedIn(target.connection);
  if (!deps || (!opt.lane && !opt.reset)) return send(undefined);
  return throughWall(deps, opt, target, send);
}

async function throughWall(deps: UsageWallDeps, opt: { lane: boolean; reset: boolean }, target: WallTarget, send: SendCall): Promise<UpstreamCall> {
  const { book, clock } = deps;
  const id = target.connection.id;
  let resetTried = false;
  let waitedMs = 0;
  for (;;) {
    const slow = opt.lane && book.laneUntil(id, clock.now()) !== null;
    const call = await send(slow ? SLOW : undefined);
    const answer = readWallAnswer(call.response.status, call.response.headers);
    if (answer.kind === "wall" && !slow) {
      if (opt.reset && !resetTried && book.resetMayTry(id, clock.now())) {
        resetTried = true;
        const outcome = await deps.limitReset(target.provider, target.connection, target.signal, target.login ?? null);
        book.noteReset(id, outcome.result, outcome.nextAvailableAt, clock.now());
        if (outcome.result === "reset" || outcome.result === "not_limited") {
          await discard(call);
          continue;
        }
      }
      if (opt.lane && answer.offer && book.enterLane(id, answer.resetAt, clock.now())) {
        await discard(call);
        continue;
      }
      return call;
    }
    if (!slow) return call;
    if (answer.kind === "lane_end") book.endLane(id, answer.reason, clock.now());
    if (answer.kind !== "slot_busy") return call;
    const waitMs = jitteredWaitMs(answer.retryAfterMs, deps.random());
    if (waitMs > waitBudgetMs(answer.maxWaitMs, deps.requestTimeoutMs(), waitedMs)) {
      book.endLane(id, "max_wait", clock.now());
      return call;
    }
    await discard(call);
    // The client left during the wait: the call aborts at once and the attempt records a client abort.
    if (!(await sleep(waitMs, target.signal))) return send(SLOW);
    waitedMs += waitMs;
  }
}
