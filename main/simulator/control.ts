// The simulator's control routes (`/__sim/*`): a test or the simulation sets faults, usage walls,
// subscription windows and stream cuts, moves the window clock, and reads back what was received.
import type { IncomingMessage, ServerResponse } from "node:http";
import { ANY_KEY, InvalidFaultError, parseFault, type FaultBook } from "./faults.js";
import { readBody, sendJson } from "./http.js";
import { isRecord } from "./records.js";
import type { Subscriptions } from "./subscriptions.js";
import type { SimulatedRequest } from "./types.js";
import { parseUsageWall, type UsageWalls } from "./usageWall.js";

const CONTROL_RECENT = 50;

/** What the control routes read and change of a running simulator. */
export interface ControlDeps {
  faults: FaultBook;
  walls: UsageWalls;
  subs: Subscriptions;
  /** The window clock: the base clock moved by the offset. */
  quotaNow(): number;
  clockOffset(): number;
  setClockOffset(ms: number): void;
  /** The recorded requests (the last kept ones) and how many were received in all. */
  requests(): { count: number; requests: SimulatedRequest[] };
  clearRequests(): void;
}

/** A control route's JSON body, which must be an object. */
function controlObject(text: string, shape: string): Record<string, unknown> {
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    throw new InvalidFaultError("body is not valid JSON");
  }
  if (!isRecord(payload)) throw new InvalidFaultError(`body must be ${shape}`);
  return payload;
}

/** The subscription login a control body names (`login`: its name or token). */
function loginOf(payload: Record<string, unknown>): string {
  if (typeof payload.login !== "string" || !payload.login) throw new InvalidFaultError("body must name the login (its name or token)");
  return payload.login;
}

/** POST /__sim/clock: `advanceMs` moves the window clock ahead, `offsetMs` sets its offset. */
function moveClock(deps: ControlDeps, payload: Record<string, unknown>): void {
  if (payload.advanceMs !== undefined) {
    if (typeof payload.advanceMs !== "number" || !Number.isFinite(payload.advanceMs) || payload.advanceMs < 0)
      throw new InvalidFaultError("advanceMs must be a non-negative number");
    deps.setClockOffset(deps.clockOffset() + payload.advanceMs);
  } else if (payload.offsetMs !== undefined) {
    if (typeof payload.offsetMs !== "number" || !Number.isFinite(payload.offsetMs)) throw new InvalidFaultError("offsetMs must be a number");
    deps.setClockOffset(payload.offsetMs);
  } else throw new InvalidFaultError("body must be {advanceMs} or {offsetMs}");
}

export async function control(deps: ControlDeps, req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams | null): Promise<void> {
  const { faults, walls, subs } = deps;
  const method = req.method ?? "GET";
  const text = method === "POST" ? await readBody(req) : "";
  if (path === "/__sim/faults" && method === "POST") {
    const payload = controlObject(text, "{key, fault}");
    const key = typeof payload.key === "string" && payload.key ? payload.key : ANY_KEY;
    faults.add(key, parseFault(payload.fault));
    sendJson(res, 200, { ok: true, key });
  } else if (path === "/__sim/faults" && method === "DELETE") {
    faults.clear(query?.get("key") ?? undefined);
    sendJson(res, 200, { ok: true });
  } else if (path === "/__sim/usage-wall" && method === "POST") {
    const payload = controlObject(text, "{key, wall}");
    if (typeof payload.key !== "string" || !payload.key) throw new InvalidFaultError("body must be {key, wall}");
    walls.set(payload.key, parseUsageWall(payload.wall ?? {}));
    sendJson(res, 200, { ok: true, key: payload.key });
  } else if (path === "/__sim/usage-wall" && method === "DELETE") {
    walls.clear(query?.get("key") ?? undefined);
    sendJson(res, 200, { ok: true });
  } else if (path === "/__sim/subscriptions" && method === "GET") {
    sendJson(res, 200, { now: deps.quotaNow(), logins: subs.states() });
  } else if (path === "/__sim/subscriptions/usage" && method === "POST") {
    const payload = controlObject(text, "{login, window, used?, exhaust?, resetInSeconds?}");
    sendJson(res, 200, { ok: true, login: subs.changeUsage(loginOf(payload), payload) });
  } else if (path === "/__sim/subscriptions/stream-exhaustion" && method === "POST") {
    const payload = controlObject(text, "{login, afterChunks?, window?, as?, times?}");
    const login = loginOf(payload);
    subs.setStreamCut(login, payload);
    sendJson(res, 200, { ok: true, login: subs.states().find((s) => s.name === subs.find(login).name) });
  } else if (path === "/__sim/subscriptions/stream-exhaustion" && method === "DELETE") {
    subs.clearStreamCuts(query?.get("login") ?? undefined);
    sendJson(res, 200, { ok: true });
  } else if (path === "/__sim/clock" && method === "GET") {
    sendJson(res, 200, { now: deps.quotaNow(), offsetMs: deps.clockOffset() });
  } else if (path === "/__sim/clock" && method === "POST") {
    moveClock(deps, controlObject(text, "{advanceMs} or {offsetMs}"));
    sendJson(res, 200, { now: deps.quotaNow(), offsetMs: deps.clockOffset() });
  } else if (path === "/__sim/requests" && method === "GET") {
    const { count, requests } = deps.requests();
    sendJson(res, 200, { count, requests: requests.slice(-CONTROL_RECENT) });
  } else if (path === "/__sim/requests" && method === "DELETE") {
    deps.clearRequests();
    sendJson(res, 200, { ok: true });
  } else {
    sendJson(res, 404, { error: { message: `Unknown simulator control route ${method} ${path}` } });
  }
}
