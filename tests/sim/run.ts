// One seeded simulation (R24.6): the laptop and the day from the seed, played against the real server
// and simulators, every invariant checked after every request and at rest. The result names each
// failure and the one line that reproduces the first.
import { toHttp, type HttpRequest } from "./clients.js";
import { generateDay, type Step } from "./day.js";
import { checkRequest, type BreakerRead, type Context, type Failure, type Observation } from "./invariants.js";
import { generateLaptop, type Laptop } from "./laptop.js";
import { Prng } from "./prng.js";
import { compareSnapshots, contextCoolsNothing, drained, leasesDrained, secretsKept, snapshot } from "./rest.js";
import { World } from "./world.js";
import { sendOverSocket } from "./socket.js";

type Json = Record<string, any>;

export interface SimOptions {
  seed: number;
  requests: number;
  /** Stop at the first failure (the default keeps going, to count what else breaks). */
  stopAtFirst?: boolean;
  /** Called with each failure as it is found. */
  onFailure?: (f: Failure) => void;
  /** Called after each request with what it was and how it went. */
  onRequest?: (line: string) => void;
}

export interface SimResult {
  seed: number;
  requests: number;
  failures: Failure[];
  /** The first failure of each invariant. */
  firstByInvariant: Failure[];
  reproducer: string | null;
  elapsedMs: number;
  /** Every secret of the laptop, for a caller that holds the server's log lines to check them (I8). */
  secrets: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The index of a failure found at rest, once the day is over. */
const AT_REST = -1;

export function planOf(seed: number, requests: number): { laptop: Laptop; day: Step[] } {
  const rng = new Prng(seed);
  const laptop = generateLaptop(rng.fork("laptop"));
  return { laptop, day: generateDay(rng.fork("day"), laptop, requests) };
}

/**
 * The log rows of these request ids. The log is written in batches off the hot path, so the rows
 * are read together, once they are all there (or a second has passed).
 */
async function rowsOf(world: World, ids: string[]): Promise<Map<string, Json>> {
  const rows = new Map<string, Json>();
  for (let i = 0; i < 20; i++) {
    const list = (await world.gw.api<Json[]>("GET", "/api/logs?limit=1000")).body ?? [];
    for (const r of list) rows.set(r.id as string, r);
    if (ids.every((id) => rows.has(id))) break;
    await sleep(50);
  }
  return rows;
}

function contextOf(world: World): Context {
  return {
    laptop: world.laptop,
    switchyardSecrets: [world.keys.clientKey, ...(world.keys.lease ? [world.keys.lease.key, world.keys.lease.owner] : [])],
    // As they stand when the request is sent: the checks run later, on a batch of rows.
    inactiveLogins: new Set(world.inactiveLogins),
    accountIdOf: (token, format) => world.accountIdOf(token, format),
  };
}

/** No answer within this long is a failure of its own (status 0), not a hung run. */
const ANSWER_TIMEOUT_MS = 60_000;

async function send(http: HttpRequest): Promise<{ status: number; headers: Headers; text: string }> {
  try {
    const res = await fetch(http.url, { method: "POST", headers: http.headers, body: http.body, signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) });
    return { status: res.status, headers: res.headers, text: await res.text() };
  } catch (err) {
    return { status: 0, headers: new Headers(), text: err instanceof Error ? err.message : String(err) };
  }
}

/** The request-log rows of WebSocket turns already named (turns run one at a time). */
const namedSocketRows = new Set<string>();

/** The row of the WebSocket turn that just ended (R26.1): the newest socket row not named before (a turn's frames do not carry its id). */
async function newestSocketRow(world: World): Promise<string | null> {
  for (let tries = 0; tries < 20; tries++) {
    const rows = (await world.gw.api<Json[]>("GET", "/api/logs?limit=5")).body ?? [];
    const id = rows.find((r) => r.transport === "websocket" && !namedSocketRows.has(String(r.id)))?.id as string | undefined;
    if (id) return (namedSocketRows.add(id), id);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return null;
}

async function playRequest(world: World, step: Extract<Step, { kind: "request" }>, accountsBefore: Set<string>): Promise<Observation> {
  const http = toHttp(step.plan, world.gw.url, world.laptop.requireClientKey, world.keys);
  const exhaustedLogins = world.exhaustedLogins();
  const leaseHeld = world.keys.lease !== null && world.laptop.leaseConnection !== null;
  const lease = leaseHeld ? { connectionId: world.laptop.leaseConnection!, owned: http.headers["x-omniroute-lease-owner"] !== undefined } : null;
  const before = await breakersOf(world);
  const mark = world.mark();
  const { status, headers, text } = step.plan.transport === "websocket" ? await sendOverSocket(http, () => newestSocketRow(world), ANSWER_TIMEOUT_MS) : await send(http);
  const calls = world.callsSince(mark);
  world.heard(calls);
  const accounts = (await world.accountRows()).map((c) => c.id as string);
  const newAccounts = accounts.filter((id) => !accountsBefore.has(id));
  const breakers = { before, after: await breakersOf(world) };
  return { index: step.index, plan: step.plan, status, headers, text, calls, row: null, newAccounts, exhaustedLogins, lease, breakers };
}

/** I13: each provider breaker's state and failure count, as monitoring health shows them. */
async function breakersOf(world: World): Promise<Map<string, BreakerRead>> {
  const health = (await world.gw.api<{ providerBreakers?: Array<BreakerRead & { provider: string }> }>("GET", "/api/monitoring/health")).body;
  return new Map((health?.providerBreakers ?? []).map((b) => [b.provider, { state: b.state, failureCount: b.failureCount }]));
}

/** I8 on the answer itself: no secret of the laptop in its body or headers. */
function answerSecret(world: World, o: Observation): string | null {
  const all = o.text + JSON.stringify([...o.headers]);
  const found = [...world.secrets].find((s) => s && all.includes(s));
  return found ? `the answer to ${o.plan.shape} shows a secret (${found.slice(0, 12)}…)` : null;
}

class Runner {
  readonly failures: Failure[] = [];
  private accounts = new Set<string>();
  private lastIndex = 0;
  /** Answered requests whose rows are read in the next batch. */
  private pending: Array<{ o: Observation; ctx: Context }> = [];

  constructor(
    private readonly world: World,
    private readonly opts: SimOptions,
  ) {}

  fail(invariant: string, message: string | null): void {
    if (message) this.failAt({ invariant, index: this.lastIndex, message });
  }

  private failAt(f: Failure): void {
    this.failures.push(f);
    this.opts.onFailure?.(f);
  }

  get stopped(): boolean {
    return this.opts.stopAtFirst === true && this.failures.length > 0;
  }

  async request(step: Extract<Step, { kind: "request" }>): Promise<void> {
    this.lastIndex = step.index;
    const started = Date.now();
    const o = await playRequest(this.world, step, this.accounts);
    const { plan } = step;
    this.opts.onRequest?.(
      `#${step.index} ${plan.shape} ${plan.operation} ${plan.model}${plan.stream ? " stream" : ""} → ${o.status} via ${o.calls.map((c) => `${c.provider.id}:${c.req.model}:${c.req.status ?? "reset"}`).join(",") || "-"} in ${Date.now() - started} ms`,
    );
    for (const id of o.newAccounts) this.accounts.add(id);
    this.fail("I8", answerSecret(this.world, o));
    this.fail("I5", await drained(this.world));
    if (o.calls.some((c) => c.req.contextRefused === true)) this.fail("I14", await contextCoolsNothing(this.world));
    this.pending.push({ o, ctx: contextOf(this.world) });
    if (this.pending.length >= 40) await this.settle();
  }

  /** Reads the pending requests' rows and checks them. */
  async settle(): Promise<void> {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    const idOf = (o: Observation) => o.headers.get("x-switchyard-request-id") ?? "";
    const rows = await rowsOf(
      this.world,
      batch.map(({ o }) => idOf(o)),
    );
    for (const { o, ctx } of batch) {
      o.row = rows.get(idOf(o)) ?? null;
      for (const f of checkRequest(o, ctx)) this.failAt(f);
    }
  }

  async restart(): Promise<void> {
    await this.settle();
    const before = await snapshot(this.world);
    await this.world.restart();
    this.fail("I6", compareSnapshots(before, await snapshot(this.world)));
  }

  async step(step: Step): Promise<void> {
    if (step.kind === "request") return this.request(step);
    if (step.kind === "restart") return this.restart();
    await this.world.play(step);
    if (step.kind === "lease" && step.action === "release") this.fail("I5", await leasesDrained(this.world));
    if (step.kind === "editAccount") this.accounts = new Set((await this.world.accountRows()).map((c) => c.id as string));
  }

  async atRest(): Promise<void> {
    await this.settle();
    this.lastIndex = AT_REST;
    this.fail("I5", await drained(this.world));
    const held = this.world.laptop.providers.flatMap((p) => p.held.map((h) => h.key));
    this.fail("I8", await secretsKept(this.world, held));
  }
}

export async function runSimulation(opts: SimOptions): Promise<SimResult> {
  const started = Date.now();
  const { laptop, day } = planOf(opts.seed, opts.requests);
  const world = new World(laptop);
  const runner = new Runner(world, opts);
  try {
    await world.start();
    for (const step of day) {
      await runner.step(step);
      if (runner.stopped) break;
    }
    if (!runner.stopped) await runner.atRest();
  } catch (err) {
    runner.fail("I0", `the run itself broke: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    await world.close();
  }
  const firsts = new Map<string, Failure>();
  for (const f of runner.failures) if (!firsts.has(f.invariant)) firsts.set(f.invariant, f);
  const first = runner.failures[0];
  return {
    seed: opts.seed,
    requests: opts.requests,
    failures: runner.failures,
    firstByInvariant: [...firsts.values()],
    reproducer: first ? reproducerLine(opts.seed, opts.requests, first) : null,
    elapsedMs: Date.now() - started,
    secrets: [...world.secrets].filter((s) => s.length > 0),
  };
}

/** Where in the day a failure was found. */
export const whenOf = (f: Failure): string => (f.index === AT_REST ? "at the end of the day" : `at request ${f.index}`);

export function reproducerLine(seed: number, requests: number, f: Failure): string {
  return `npm run sim -- --seed ${seed} --requests ${requests}  # ${f.invariant} ${f.message} ${whenOf(f)}`;
}
