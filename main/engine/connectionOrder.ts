// The order in which a target's connections are tried (R11.2; issue 26: connection weight and the
// R4.10 signal inside one provider). The rule, in full:
// 1. A connection with weight 0 is a standby: it comes after every connection with a positive
//    weight, whatever the priorities, so it is chosen only while no positive one is eligible.
// 2. Then lower priority first; equal priorities keep the order given (the store's: creation).
// 3. Among positive-weight connections of one priority:
//    - when the request's combo routes by p2c with `p2cLatency.weight` > 0 (R4.10), power of two
//      choices: two of those left are drawn at random and the better of their latency/error
//      windows (connection+model, else connection; ≥ 3 samples each) goes next; a duel the signal
//      cannot decide goes to the earlier one. Weights then play no part beyond rule 1;
//    - otherwise, when their weights differ, weighted sampling without replacement: the next is
//      each one with probability weight / sum of those left, so failover follows the weights too;
//    - when their weights are all equal (every connection has the default 1), the order given:
//      nothing is shared unequally, and a provider keeps using its first key as it always did.
// The caller skips ineligible connections as it walks the order, so "eligible" in rule 1 and 3
// holds. The common case (sorted, equal weights, no p2c) is one pass and returns the list itself.
import type { Connection } from "../../shared/types.js";
import { recentSamples } from "./strategies/rank.js";
import { latencyWeight, P2C_MIN_SAMPLES, signalPoints } from "./strategies/p2c.js";
import type { ConnectionWindows, LatencySample } from "./strategies/types.js";

/** How a request chooses among connections of the same priority. */
export interface ConnectionChoice {
  /** Draws for the weighted choice and the p2c pairs, in [0, 1); a seeded generator in tests. */
  random: () => number;
  /** R4.10: set when the request's combo routes by p2c with the latency signal on; else null. */
  latency: ConnectionLatency | null;
}

export interface ConnectionLatency {
  /** `p2cLatency.weight` (clamped to 0–20; 0 is the same as no signal). */
  weight: number;
  /** The combo's windows (its RoutingStatsBook). */
  windows: ConnectionWindows;
}

const positive = (c: Connection): boolean => c.weight > 0;

/** Stable by priority; the list itself when it already is (the store lists them that way). */
export function inPriorityOrder(connections: Connection[]): Connection[] {
  let sorted = true;
  for (let i = 1; i < connections.length && sorted; i++) sorted = connections[i - 1].priority <= connections[i].priority;
  if (sorted) return connections;
  return connections
    .map((c, index) => ({ c, index }))
    .sort((a, b) => a.c.priority - b.c.priority || a.index - b.index)
    .map(({ c }) => c);
}

/** Sorted by priority, equal weights within each priority, and no standby next to a positive weight. */
function plainOrder(connections: readonly Connection[]): boolean {
  if (connections.length < 2) return true;
  const standby = !positive(connections[0]);
  for (let i = 1; i < connections.length; i++) {
    const a = connections[i - 1];
    const b = connections[i];
    if (b.priority < a.priority || (b.priority === a.priority && b.weight !== a.weight) || positive(b) === standby) return false;
  }
  return true;
}

/** The order to try `connections` for `model` in (rules at the top of this file). */
export function connectionTryOrder(connections: Connection[], model: string, choice: ConnectionChoice, now: number): Iterable<Connection> {
  const latency = choice.latency && latencyWeight(choice.latency.weight) > 0 ? choice.latency : null;
  if (latency === null && plainOrder(connections)) return connections;
  return walkGroups(inPriorityOrder(connections), model, choice.random, latency, now);
}

function* walkGroups(ordered: Connection[], model: string, random: () => number, latency: ConnectionLatency | null, now: number): Generator<Connection> {
  for (const standby of [false, true]) {
    let group: Connection[] = [];
    for (const c of ordered) {
      if (positive(c) === standby) continue;
      if (group.length > 0 && group[0].priority !== c.priority) {
        yield* groupOrder(group, standby, model, random, latency, now);
        group = [];
      }
      group.push(c);
    }
    if (group.length > 0) yield* groupOrder(group, standby, model, random, latency, now);
  }
}

function groupOrder(group: Connection[], standby: boolean, model: string, random: () => number, latency: ConnectionLatency | null, now: number): Iterable<Connection> {
  if (group.length < 2 || standby) return group;
  if (latency) return duels(group, model, random, latency, now);
  return group.every((c) => c.weight === group[0].weight) ? group : weightedOrder(group, random);
}

/** Efraimidis–Spirakis: sorting by -ln(1 − u) / weight is weighted sampling without replacement. */
function weightedOrder(group: readonly Connection[], random: () => number): Connection[] {
  const keyed = group.map((c, index) => ({ c, index, key: -Math.log(1 - random()) / c.weight }));
  keyed.sort((a, b) => a.key - b.key || a.index - b.index);
  return keyed.map((k) => k.c);
}

/** One duel per place, drawn only when the caller asks for the next connection. */
function* duels(group: readonly Connection[], model: string, random: () => number, latency: ConnectionLatency, now: number): Generator<Connection> {
  // Positions in the group: the earlier position wins a duel the signal leaves even.
  const left = group.map((_, i) => i);
  while (left.length > 1) {
    const i = Math.min(left.length - 1, Math.floor(random() * left.length));
    let j = Math.min(left.length - 2, Math.floor(random() * (left.length - 1)));
    if (j >= i) j++;
    const [pi, pj] = duelPoints(group[left[i]], group[left[j]], model, latency, now);
    const w = pi < pj || (pi === pj && left[i] < left[j]) ? i : j;
    yield group[left[w]];
    left[w] = left[left.length - 1];
    left.pop();
  }
  yield group[left[0]];
}

function windowPair(a: Connection, b: Connection, model: string | null, windows: ConnectionWindows, now: number): [LatencySample[], LatencySample[]] | null {
  const sa = recentSamples(windows.connectionWindow(a.id, model), now);
  if (sa.length < P2C_MIN_SAMPLES) return null;
  const sb = recentSamples(windows.connectionWindow(b.id, model), now);
  return sb.length < P2C_MIN_SAMPLES ? null : [sa, sb];
}

/** R4.10 points of two connections: per connection+model when both have enough, else per connection. */
function duelPoints(a: Connection, b: Connection, model: string, latency: ConnectionLatency, now: number): [number, number] {
  const pair = windowPair(a, b, model, latency.windows, now) ?? windowPair(a, b, null, latency.windows, now);
  return pair ? signalPoints(pair, latencyWeight(latency.weight)) : [0, 0];
}
