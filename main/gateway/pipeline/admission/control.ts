// The admit stage (R8, R9): composite gates global → provider → connection → model taken at once, one queue and
// one wait budget per provider+connection, pacing learned from the upstream, and the job expiration after dispatch.
// The in-process path is synchronous when nothing waits: a request that does not queue pays a few map operations,
// never a timer hop. With SWITCHYARD_REDIS_URL the connection's concurrency, and each model cap of it (R19.1), is also
// taken in a Redis-clustered Bottleneck limiter shared by every Switchyard; learned pauses reach the group via `onLocalPause`.
import { ERROR_CODES } from "../../../../shared/errorCodes.js";
import type { ResilienceSettings } from "../../../../shared/resilienceSettings.js";
import type { Provider } from "../../../../shared/types.js";
import { GateBook, type GateLevel, type GateTicket } from "../../../engine/admission/gateBook.js";
import { resolveAdmissionLimits, type AdmissionLimits } from "../../../engine/admission/limits.js";
import { pacingFromVerdict, pauseFromWindow } from "../../../engine/admission/pacing.js";
import { requestWindowOf } from "../routing/learnedQuota.js";
import { checkQueueAdmission } from "../../../engine/admission/queueAdmission.js";
import type { Clock } from "../../../engine/ports.js";
import type { FinalError } from "../../context/outcome.js";
import { providerAdapterFor } from "../../formats/index.js";
import { releaseOnce, type Admission, type AdmissionRequest, type AdmissionStage, type AttemptObservation } from "../admit.js";
import { GLOBAL_GATE_KEY, providerGateKey, QueueWatch, type QueueRow } from "./queueWatch.js";
import { localLimitError } from "./refusals.js";
import { connectionLimiterId, modelLimiterId, type SharedAcquire, type SharedLimits } from "./sharedLimits.js";
import type { GroupSlot } from "../../../engine/sharedState.js";

/** D9: a semaphore gate refuses one more waiter once this many wait on it. */
export const SEMAPHORE_MAX_WAITERS = 20;

export interface AdmissionControlDeps {
  clock: Clock;
  settings: () => Pick<ResilienceSettings, "requestQueue" | "quotaShareConcurrencyLimit"> & Partial<Pick<ResilienceSettings, "trafficClasses">>;
  /** R8.1: the global gate's cap, the settings' `maxConcurrent` (absent or null = no gate). */
  globalCap?: () => number | null;
  /** R9.4: a long typed retry delay on a per-model limiter becomes a model lockout. */
  lockModel?: (input: { provider: Provider; connectionId: string; model: string; durationMs: number; reason: string }) => void;
  /** R9.6: the Redis-shared limits in force (null = in-process only); may change with the settings. */
  shared?: () => SharedLimits | null;
  /** R19.1: this instance's place in the group, which splits caps into local slices (null = not known now). */
  groupSlot?: () => GroupSlot | null;
  /** Told (throttled) when the queue state changed, for the events stream. */
  onChange?: (rows: QueueRow[]) => void;
}

export interface AdmissionControl extends AdmissionStage {
  queues(): QueueRow[];
  /** The connection's cooldown ended (cleared by the operator, or a success): its learned pauses end too. */
  resume(connectionId: string): void;
  /** The connection was deleted: its row leaves `queues`. */
  forget(connectionId: string): void;
  /** R19.1: hears each pause learned here (its end) or lifted (null), per connection and model (null = the whole connection). */
  onLocalPause(listener: (connectionId: string, model: string | null, until: number | null) => void): void;
  /** A pause another Switchyard learned or lifted (null): held here too, without telling the listener. */
  applySharedPause(connectionId: string, model: string | null, until: number | null): void;
  close(): Promise<void>;
}

/** The wait ended without permits: a local error, or null when the client left. */
type WaitResult = { ok: true } | { ok: false; error: FinalError | null };

const connKey = (id: string) => `c\u0000${id}`;
/** R9.4: the limiter a pause holds: the connection's, or one model's on it when limits are per model. */
const pauseKeyOf = (connectionId: string, model: string | null) => (model === null ? `p\u0000${connectionId}` : `p\u0000${connectionId}\u0000${model}`);
const NO_SHARED_SLOT: SharedAcquire = { ok: true, release: () => undefined };
const CLIENT_GONE: FinalError = { status: ERROR_CODES.client_closed.status, code: "client_closed", message: "The client closed the request", retryAfterMs: null, noRetry: true };

/**
 * R9.1: the job's deadline, enforced by the attempt's own call (no timer or signal here). A class,
 * not an object literal with a getter: each such literal gets a hidden class of its own in V8's
 * old space, which keeps the request's young objects alive through scavenges (issue 12).
 */
class JobDeadline {
  expired = false;
  private readonly expiresAt: number;

  /** `budgetMs`: executionMaxWaitMs; the call raises it to its own deadline when that is longer. */
  constructor(
    private readonly req: AdmissionRequest,
    readonly budgetMs: number,
  ) {
    this.expiresAt = performance.now() + budgetMs;
  }

  remainingMs(): number {
    return this.expiresAt - performance.now();
  }

  /** Written only when the job expired: most attempts never need it. */
  get error(): FinalError {
    return localLimitError(
      "RATE_LIMIT_EXECUTION_TIMEOUT",
      `The request to ${this.req.provider.id} connection ${this.req.connection.id} ran longer than its job expiration of ${this.budgetMs} ms (requestQueue.executionMaxWaitMs)`,
      null,
    );
  }
}

/**
 * R8.1: the gates in the order they are taken, all at once: global → provider → connection → model.
 * With shared limits the model's cap is Redis's (it only counts here), as the connection's is.
 */
function gateLevels(req: AdmissionRequest, limits: AdmissionLimits, connection: GateLevel, modelCap: number, capOf: (cap: number) => number): GateLevel[] {
  const levels: GateLevel[] = [];
  if (limits.globalCap !== null) levels.push({ key: GLOBAL_GATE_KEY, cap: capOf(limits.globalCap) });
  if (limits.providerCap !== null) levels.push({ key: providerGateKey(req.provider.id), cap: capOf(limits.providerCap) });
  levels.push(connection);
  if (limits.modelCap !== null) levels.push({ key: `m\u0000${req.connection.id}\u0000${req.model}`, cap: modelCap });
  return levels;
}

/** R20.3: background work leaves `mainHeadroom` of each gate's slots to the other classes (and always has one). */
function capFor(cap: number, req: AdmissionRequest, classes: ResilienceSettings["trafficClasses"] | undefined): number {
  if (req.trafficClass !== "background" || !classes?.enabled || cap === Infinity) return cap;
  return Math.max(1, cap - classes.mainHeadroom);
}

/** This instance's slice of a group-wide cap: the caps of all the slices add up to it exactly. */
export const sliceOf = (cap: number, slot: GroupSlot): number => Math.floor(cap / slot.count) + (slot.index < cap % slot.count ? 1 : 0);

/**
 * R19.1: how a request's connection and model caps are held. "slice": every cap is at least the
 * group's size, so each instance holds its slice locally and no permit costs a Redis round trip;
 * "redis": a cap smaller than the group (some instance's slice would be 0) is counted in Redis;
 * "local": no Redis, or Redis unreachable (each instance holds the whole cap, R19.3).
 */
function capHolding(limits: AdmissionLimits, shared: SharedLimits | null, slot: GroupSlot | null): "slice" | "redis" | "local" {
  if (shared === null || (limits.connectionCap === null && limits.modelCap === null)) return "local";
  const fits = (cap: number | null) => cap === null || (slot !== null && cap >= slot.count);
  return slot !== null && fits(limits.connectionCap) && fits(limits.modelCap) ? "slice" : "redis";
}

function localCaps(limits: AdmissionLimits, holding: "slice" | "redis" | "local", slot: GroupSlot | null): { connection: number; model: number } {
  const cap = (value: number | null) => (value === null || holding === "redis" ? Infinity : holding === "slice" ? sliceOf(value, slot!) : value);
  return { connection: cap(limits.connectionCap), model: cap(limits.modelCap) };
}

/** What a refusal names: the gate that was full, or the connection's when it was its own. */
function gateName(gate: GateLevel | undefined, req: AdmissionRequest): string {
  const where = `${req.provider.id} connection ${req.connection.id} (model ${req.model})`;
  if (gate?.key === GLOBAL_GATE_KEY) return `the global gate (settings maxConcurrent ${gate.cap}) before ${where}`;
  if (gate && gate.key === providerGateKey(req.provider.id)) return `provider ${req.provider.id}'s gate (maxConcurrent ${gate.cap}) before ${where}`;
  return where;
}

export function createAdmissionControl(deps: AdmissionControlDeps): AdmissionControl {
  const book = new GateBook(deps.clock);
  const globalCap = deps.globalCap ?? (() => null);
  const waiting = new Map<GateTicket, (granted: boolean) => void>();
  const sharedLimits = deps.shared ?? (() => null);
  const watch = new QueueWatch(book, deps.clock, deps.onChange, sharedLimits);
  let wakeTimer: NodeJS.Timeout | null = null;
  let wakeAt = Infinity;

  function wake(): void {
    for (const ticket of book.grant()) {
      const resolve = waiting.get(ticket);
      waiting.delete(ticket);
      resolve?.(true);
    }
    scheduleWake();
  }

  /** A pause ends without any release: the earliest paused waiter needs a timer to go. */
  function scheduleWake(): void {
    let next = Infinity;
    for (const ticket of waiting.keys()) {
      const ms = book.pausedMs(ticket.pauseKey);
      if (ms > 0) next = Math.min(next, ms);
    }
    if (next === Infinity) return;
    const at = deps.clock.now() + next;
    if (wakeTimer && at >= wakeAt) return;
    if (wakeTimer) clearTimeout(wakeTimer);
    wakeAt = at;
    wakeTimer = setTimeout(() => {
      wakeTimer = null;
      wakeAt = Infinity;
      wake();
    }, next + 1);
  }

  /** The pauses of a connection: those its requests met here, and those another Switchyard told of. */
  function pauseKeysOf(connectionId: string): Set<string> {
    const own = pauseKeyOf(connectionId, null);
    const keys = new Set(watch.pauseKeysOf(connectionId));
    for (const key of book.activeKeys()) if (key === own || key.startsWith(`${own}\u0000`)) keys.add(key);
    return keys;
  }

  function freeTicket(ticket: GateTicket | null): void {
    if (ticket) book.release(ticket.levels);
    if (waiting.size > 0) wake();
    watch.changed();
  }

  /** The gate that holds a waiting ticket back: the first of its levels with no room. */
  function blockingGate(ticket: GateTicket): GateLevel | undefined {
    return ticket.levels.find((l) => l.cap !== Infinity && book.inFlight(l.key) >= l.cap);
  }

  function timeoutError(req: AdmissionRequest, limits: AdmissionLimits, ticket: GateTicket, gate: GateLevel | undefined): FinalError {
    const where = gateName(gate, req);
    const pausedMs = book.pausedMs(ticket.pauseKey);
    if (limits.protected) {
      return localLimitError("RATE_LIMIT_QUEUE_TIMEOUT", `Waited ${limits.maxWaitMs} ms in the local request queue of ${where} (requestQueue.maxWaitMs)`, pausedMs || 1_000);
    }
    return localLimitError("SEMAPHORE_TIMEOUT", `Waited ${limits.maxWaitMs} ms for a concurrency permit of ${where}`, 1_000);
  }

  /** Refusals decided before waiting: a full queue, a full semaphore, a pause longer than the budget. */
  function refuseAtOnce(req: AdmissionRequest, limits: AdmissionLimits, ticket: GateTicket): FinalError | null {
    const scope = { provider: req.provider.id, connectionId: req.connection.id, model: req.model };
    const queued = book.queuedIn(ticket.queueKey) + (sharedLimits()?.queued(req.connection.id) ?? 0);
    const depth = checkQueueAdmission(queued, limits.maxQueueDepth, scope);
    if (!depth.admit) return localLimitError(depth.code, depth.message, 1_000);
    // D9: the semaphores this request would wait on (no room for it) refuse a 21st waiter.
    const full = limits.protected
      ? undefined
      : ticket.levels.find((l) => l.cap !== Infinity && book.inFlight(l.key) >= l.cap && book.waitingOnGate(l.key) >= SEMAPHORE_MAX_WAITERS);
    if (full) return localLimitError("SEMAPHORE_QUEUE_FULL", `${SEMAPHORE_MAX_WAITERS} requests already wait for a concurrency permit of ${gateName(full, req)}`, 1_000);
    const pausedMs = book.pausedMs(ticket.pauseKey);
    if (limits.maxWaitMs > 0 && pausedMs > limits.maxWaitMs) {
      // R9.4: the budget ends before the pause does; waiting would only end in a timeout.
      return localLimitError(
        "RATE_LIMIT_QUEUE_TIMEOUT",
        `${scope.provider} connection ${scope.connectionId} is paused for ${pausedMs} ms, longer than its queue budget of ${limits.maxWaitMs} ms`,
        pausedMs,
      );
    }
    return null;
  }

  function waitForGates(req: AdmissionRequest, limits: AdmissionLimits, ticket: GateTicket): Promise<WaitResult> {
    const early = refuseAtOnce(req, limits, ticket);
    if (early) return Promise.resolve({ ok: false, error: early });
    book.enqueue(ticket);
    watch.changed();
    return new Promise<WaitResult>((resolve) => {
      let timer: NodeJS.Timeout | null = null;
      const giveUp = (error: FinalError | null) => {
        if (!book.drop(ticket)) return;
        finish({ ok: false, error });
        freeTicket(null);
      };
      const onAbort = () => giveUp(null);
      const finish = (result: WaitResult) => {
        waiting.delete(ticket);
        if (timer) clearTimeout(timer);
        req.signal.removeEventListener("abort", onAbort);
        resolve(result);
      };
      waiting.set(ticket, () => finish({ ok: true }));
      if (limits.maxWaitMs > 0) timer = setTimeout(() => giveUp(timeoutError(req, limits, ticket, blockingGate(ticket))), limits.maxWaitMs);
      req.signal.addEventListener("abort", onAbort, { once: true });
      if (req.signal.aborted) onAbort();
      scheduleWake();
    });
  }

  function observe(req: AdmissionRequest, limits: AdmissionLimits, pauseKey: string | null, observed: AttemptObservation | undefined): void {
    if (!observed || pauseKey === null) return;
    const now = deps.clock.now();
    // Like a stated retry (R9.4), an exhausted window paces only within the queue budget; a longer
    // one is left to the upstream's 429 and its cooldown, which lets selection fail over.
    const fromHeaders = observed.headers ? pauseFromWindow(requestWindowOf(observed.headers, now), now) : null;
    if (fromHeaders !== null && (limits.maxWaitMs === 0 || fromHeaders - now <= limits.maxWaitMs)) book.pause(pauseKey, fromHeaders);
    const decision = pacingFromVerdict(observed.verdict, limits.maxWaitMs, limits.perModel, now);
    if (decision?.kind === "pause") book.pause(pauseKey, decision.until);
    if (decision?.kind === "lockout")
      deps.lockModel?.({ provider: req.provider, connectionId: req.connection.id, model: req.model, durationMs: decision.durationMs, reason: "rate_limit" });
  }

  function admitted(req: AdmissionRequest, limits: AdmissionLimits, ticket: GateTicket | null, sharedRelease?: () => void): Admission {
    const managed = limits.protected || limits.connectionCap !== null || limits.modelCap !== null || limits.providerCap !== null || limits.globalCap !== null;
    if (!managed) return { admitted: true, release: releaseOnce(() => freeTicket(ticket)) };
    const release = releaseOnce((observed?: AttemptObservation) => {
      observe(req, limits, ticket?.pauseKey ?? null, observed);
      sharedRelease?.();
      freeTicket(ticket);
    });
    return { admitted: true, release, execution: new JobDeadline(req, limits.executionMaxWaitMs) };
  }

  /** What admitting one request decided before it may have to wait. */
  interface Pending {
    req: AdmissionRequest;
    limits: AdmissionLimits;
    ticket: GateTicket;
    failOpen: boolean;
    shared: SharedLimits | null;
    startedAt: number;
  }

  /** Admits at once when every gate has room (no promise, the common case); otherwise waits. */
  function admit(req: AdmissionRequest): Admission | Promise<Admission> {
    const settings = deps.settings();
    const limits = resolveAdmissionLimits(settings.requestQueue, req.provider, req.connection, req.model, globalCap(), providerAdapterFor(req.provider.format).limitsPerModel);
    const sharedNow = limits.connectionCap !== null || limits.modelCap !== null ? sharedLimits() : null;
    const reachable = sharedNow?.available() === true ? sharedNow : null;
    const slot = reachable ? (deps.groupSlot?.() ?? null) : null;
    const holding = capHolding(limits, reachable, slot);
    const shared = holding === "redis" ? reachable : null;
    const caps = localCaps(limits, holding, slot);
    // The connection's gate always counts its requests in flight (health); it holds the cap, or its slice, unless Redis does.
    const capOf = (cap: number) => capFor(cap, req, settings.trafficClasses);
    const connection: GateLevel = { key: connKey(req.connection.id), cap: capOf(caps.connection) };
    const pauseKey = !limits.protected ? null : pauseKeyOf(req.connection.id, limits.perModel ? req.model : null);
    // R9.3: whichever gate holds it, a waiter counts in its connection's queue.
    const background = req.trafficClass === "background" && settings.trafficClasses?.enabled === true;
    const ticket: GateTicket = { levels: gateLevels(req, limits, connection, caps.model, capOf), pauseKey, queueKey: connection.key, background };
    watch.know(req.provider.id, req.connection.id, limits, pauseKey);
    watch.knowGates(req.provider.id, limits.globalCap, limits.providerCap);
    // R8.2: a quota-share dispatch never fails on the gate: a full queue or a timeout goes without a slot.
    const failOpen = req.quotaShare === true && settings.quotaShareConcurrencyLimit.enabled;
    const pending: Pending = { req, limits, ticket, failOpen, shared, startedAt: deps.clock.now() };
    // First come, first served: a waiter whose gate opened without a release (a pause ended) goes first.
    if (waiting.size > 0) wake();
    if (!book.tryEnter(ticket)) return admitAfterWait(pending);
    watch.changed();
    return shared ? admitShared(pending) : admitted(req, limits, ticket);
  }

  async function admitAfterWait(p: Pending): Promise<Admission> {
    const waited = await waitForGates(p.req, p.limits, p.ticket);
    if (!waited.ok) return p.failOpen && waited.error ? admitted(p.req, p.limits, null) : { admitted: false, refusal: waited.error ?? CLIENT_GONE };
    watch.changed();
    return p.shared ? admitShared(p) : admitted(p.req, p.limits, p.ticket);
  }

  /** What is left of the queue budget (0 = none). */
  function budgetLeft(limits: AdmissionLimits, startedAt: number): number {
    return limits.maxWaitMs === 0 ? 0 : Math.max(1, limits.maxWaitMs - (deps.clock.now() - startedAt));
  }

  /**
   * The shared permits a request needs: its model's first, then its connection's. Everywhere in the
   * same order, so two Switchyards never hold one each while waiting for the other's.
   */
  async function sharedSlots({ req, limits, shared, startedAt }: Pending): Promise<SharedAcquire> {
    // R19.1: named by the group-stable connection key, as the Switchyards of a group agree on it.
    const modelLimiter = modelLimiterId(`${req.provider.id}/${req.connection.name}`, req.model);
    const model = limits.modelCap === null ? NO_SHARED_SLOT : await shared!.acquire(req.connection.id, limits.modelCap, budgetLeft(limits, startedAt), req.signal, modelLimiter);
    if (!model.ok || limits.connectionCap === null) return model;
    const slot = await shared!.acquire(
      req.connection.id,
      limits.connectionCap,
      budgetLeft(limits, startedAt),
      req.signal,
      connectionLimiterId(`${req.provider.id}/${req.connection.name}`),
    );
    if (!slot.ok) {
      model.release();
      return slot;
    }
    return {
      ok: true,
      release: () => {
        slot.release();
        model.release();
      },
    };
  }

  /** The local gates are passed; the connection's and the model's caps are Redis's (shared across Switchyards). */
  async function admitShared(pending: Pending): Promise<Admission> {
    const { req, limits, ticket, failOpen } = pending;
    const slot = await sharedSlots(pending);
    if (slot.ok) return admitted(req, limits, ticket, slot.release);
    freeTicket(ticket);
    if (slot.gone) return { admitted: false, refusal: CLIENT_GONE };
    const error = timeoutError(req, limits, ticket, undefined);
    return failOpen ? admitted(req, limits, null) : { admitted: false, refusal: error };
  }

  return {
    admit,
    queues: () => watch.rows(),
    forget: (connectionId) => watch.forget(connectionId),
    resume(connectionId) {
      const keys = pauseKeysOf(connectionId);
      if (![...keys].some((key) => book.pausedMs(key) > 0)) return;
      for (const key of keys) book.resume(key);
      wake();
      watch.changed();
    },
    onLocalPause(listener) {
      book.onLocalPause((key, until) => {
        const [, connectionId, model] = key.split("\u0000");
        listener(connectionId, model ?? null, until);
      });
    },
    applySharedPause(connectionId, model, until) {
      if (!book.applyPause(pauseKeyOf(connectionId, model), until)) return;
      // A lift lets waiters go now; a new pause re-arms the wake-up at its end.
      wake();
      watch.changed();
    },
    async close() {
      if (wakeTimer) clearTimeout(wakeTimer);
      watch.close();
    },
  };
}
