import type { FaultSpec, WireFormat } from "./types.js";
import { isRecord } from "./records.js";

/** Any key: a fault programmed for "*" applies to requests with no FIFO of their own. */
export const ANY_KEY = "*";

export class InvalidFaultError extends Error {
  readonly code = "invalid_fault";
}

const NUMBER_FIELDS = [
  "retryAfter",
  "retryAfterMs",
  "latencyMs",
  "resetAfterChunks",
  "stallAfterChunks",
  "endAfterChunks",
  "garbleAfterChunks",
  "errorEventAfterChunks",
  "errorEventStatus",
  "trickleMs",
  "pingEveryMs",
  "reasoningOnlyMs",
  "times",
  "maxTools",
  "contextWindow",
] as const;
const BOOLEAN_FIELDS = ["reset", "stallBeforeContent", "emptyStream"] as const;

/** Validates an untrusted fault (from `x-sim-fault` or the control endpoint) into a fresh FaultSpec. */
export function parseFault(value: unknown): FaultSpec {
  if (!isRecord(value)) throw new InvalidFaultError("fault must be a JSON object");
  const fault: FaultSpec = {};
  for (const name of NUMBER_FIELDS) {
    const v = value[name];
    if (v === undefined) continue;
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0) {
      throw new InvalidFaultError(`fault.${name} must be a non-negative number`);
    }
    fault[name] = v;
  }
  for (const name of BOOLEAN_FIELDS) {
    const v = value[name];
    if (v === undefined) continue;
    if (typeof v !== "boolean") throw new InvalidFaultError(`fault.${name} must be a boolean`);
    fault[name] = v;
  }
  if (value.status !== undefined) {
    const s = value.status;
    if (typeof s !== "number" || !Number.isInteger(s) || s < 200 || s > 599) {
      throw new InvalidFaultError("fault.status must be an HTTP status between 200 and 599");
    }
    fault.status = s;
  }
  if (value.body !== undefined) {
    if (typeof value.body !== "string") throw new InvalidFaultError("fault.body must be a string");
    fault.body = value.body;
  }
  if (value.headers !== undefined) {
    if (!isRecord(value.headers)) throw new InvalidFaultError("fault.headers must be an object of strings");
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(value.headers)) {
      if (typeof v !== "string") throw new InvalidFaultError(`fault.headers.${k} must be a string`);
      headers[k] = v;
    }
    fault.headers = headers;
  }
  return fault;
}

interface QueuedFault {
  fault: FaultSpec;
  remaining: number;
}

/** Programmed faults: one FIFO per API key; the head applies until its `times` run out. */
export class FaultBook {
  private readonly queues = new Map<string, QueuedFault[]>();

  add(key: string, fault: FaultSpec): void {
    const copy = parseFault(fault);
    const remaining = copy.times ?? Number.POSITIVE_INFINITY;
    if (remaining <= 0) return;
    let queue = this.queues.get(key);
    if (!queue) {
      queue = [];
      this.queues.set(key, queue);
    }
    queue.push({ fault: copy, remaining });
  }

  clear(key?: string): void {
    if (key === undefined) this.queues.clear();
    else this.queues.delete(key);
  }

  /** The fault for one request presenting `key`, consuming one use of it; the key's own FIFO wins over "*". */
  take(key: string | null): FaultSpec | undefined {
    if (this.queues.size === 0) return undefined;
    return (key !== null ? this.takeFrom(key) : undefined) ?? this.takeFrom(ANY_KEY);
  }

  private takeFrom(key: string): FaultSpec | undefined {
    const queue = this.queues.get(key);
    if (!queue) return undefined;
    const head = queue[0];
    if (!head) return undefined;
    head.remaining -= 1;
    if (head.remaining <= 0) {
      queue.shift();
      if (queue.length === 0) this.queues.delete(key);
    }
    return head.fault;
  }
}

/** Tools a request declares: OpenAI and Anthropic list them, Gemini groups function declarations. */
function toolCount(format: WireFormat, body: unknown): number {
  if (!isRecord(body) || !Array.isArray(body.tools)) return 0;
  if (format !== "gemini") return body.tools.length;
  return body.tools.reduce<number>((n, group) => n + (isRecord(group) && Array.isArray(group.functionDeclarations) ? group.functionDeclarations.length : 1), 0);
}

/** R11.7: the refusal text of an upstream that accepts at most `fault.maxTools` tools, or null when the request is within it. */
export function toolLimitRefusal(fault: FaultSpec | undefined, format: WireFormat, body: unknown): string | null {
  if (fault?.maxTools === undefined) return null;
  const sent = toolCount(format, body);
  return sent > fault.maxTools ? `Too many tools: the maximum number of tools is ${fault.maxTools}, got ${sent} (simulated)` : null;
}
