// Issue 26 item 7: a combo's config.targetTimeoutMs as the attempt's cancellation: it stops the
// attempt only while nothing of its answer has reached the client, and reports that it did.
import { describe, expect, it } from "vitest";
import { TargetDeadline, targetDeadlineFor, type AttemptClient } from "../../../main/gateway/pipeline/targetDeadline.js";
import { Cancellation } from "../../../main/gateway/upstream/cancellation.js";
import type { Combo } from "../../../shared/types.js";

function client(): AttemptClient & { leave(): void; outputStarted: boolean } {
  const departure = new Cancellation();
  return { outputStarted: false, departure, leave: () => departure.abort() };
}

const combo = (config: Combo["config"]): Combo => ({ name: "c", strategy: "priority", targets: [], config, createdAt: 0, updatedAt: 0 });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("combo target deadline", () => {
  it("R11.3 targetTimeoutMs stops an attempt that has not begun answering, once, and says so", async () => {
    const c = client();
    const deadline = new TargetDeadline(c, 30);
    let stopped = 0;
    deadline.subscribe(() => stopped++);
    expect(deadline.aborted).toBe(false);
    await sleep(60);
    expect([deadline.expired, deadline.aborted, stopped]).toEqual([true, true, 1]);
    deadline.end();
  });

  it("R11.3 targetTimeoutMs never cuts an answer that began, and the client leaving is not the deadline", async () => {
    const started = client();
    const late = new TargetDeadline(started, 30);
    let stopped = 0;
    late.subscribe(() => stopped++);
    started.outputStarted = true;
    await sleep(60);
    expect([late.expired, stopped]).toEqual([false, 0]);
    const leaving = client();
    const deadline = new TargetDeadline(leaving, 1_000);
    deadline.subscribe(() => stopped++);
    leaving.leave();
    expect([deadline.expired, deadline.aborted, stopped]).toEqual([false, true, 1]);
    deadline.end();
  });

  it("R11.3 targetTimeoutMs 0 or absent sets no deadline", () => {
    expect(targetDeadlineFor(combo({}), client())).toBeNull();
    expect(targetDeadlineFor(combo({ targetTimeoutMs: 0 }), client())).toBeNull();
    expect(targetDeadlineFor(undefined, client())).toBeNull();
    const d = targetDeadlineFor(combo({ targetTimeoutMs: 500 }), client());
    expect(d?.ms).toBe(500);
    d?.end();
  });
});
