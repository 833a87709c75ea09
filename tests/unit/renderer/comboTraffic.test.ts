// Issue 9 item 8: the combo page's tally of which target served a combo's last requests.
import { describe, expect, it } from "vitest";
import type { RequestLogEntry } from "../../../shared/types.js";
import { tallyServed, TRAFFIC_WINDOW, withNewEntry } from "../../../renderer/src/pages/combos/traffic.js";

let seq = 0;
function served(target: string | null, status = 200, combo = "duo"): RequestLogEntry {
  const [provider, model] = (target ?? "sim-a/m1").split("/");
  const attempts =
    target === null
      ? []
      : [
          { provider: "sim-x", connectionId: "x", model: "m1", status: 503, verdict: "server_error", latencyMs: 1 },
          { provider, connectionId: "c", model, status, verdict: null, latencyMs: 1 },
        ];
  return {
    id: `r${seq++}`,
    time: seq,
    clientFormat: "openai",
    model: combo,
    combo,
    provider,
    connectionId: "c",
    status,
    errorCode: null,
    latencyMs: 1,
    ttfbMs: 1,
    stream: false,
    inputTokens: null,
    outputTokens: null,
    attempts,
  };
}

describe("combo traffic tally", () => {
  it("counts each served request for the target of its last attempt, busiest first, and failures apart", () => {
    const entries = [served("sim-b/m1"), served("sim-a/m1"), served("sim-a/m1"), served("sim-a/m1", 503), served(null, 499)];
    expect(tallyServed(entries)).toEqual({
      served: [
        { target: "sim-a/m1", count: 2 },
        { target: "sim-b/m1", count: 1 },
      ],
      failed: 2,
      total: 5,
    });
    expect(tallyServed([])).toEqual({ served: [], failed: 0, total: 0 });
  });

  it("a live entry of the combo joins at the top and the window keeps the newest 50; other combos' and repeated entries are ignored", () => {
    let list: RequestLogEntry[] = [];
    for (let i = 0; i < TRAFFIC_WINDOW; i++) list = withNewEntry(list, served("sim-a/m1"), "duo");
    const newest = served("sim-b/m1");
    list = withNewEntry(list, newest, "duo");
    expect(list).toHaveLength(TRAFFIC_WINDOW);
    expect(list[0]).toBe(newest);
    expect(withNewEntry(list, newest, "duo")).toEqual(list);
    expect(withNewEntry(list, served("sim-b/m1", 200, "other"), "duo")).toEqual(list);
  });
});
