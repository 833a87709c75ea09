// `npm run sim -- --seed N --requests M [--stop] [--verbose]`: one seeded day against the real server
// and simulators (R24.6). A passing seed prints a summary; a failing one prints ONE line that
// reproduces it (with --verbose, every failure on stderr too; with --trace, every request and its time). Exit status 1 when an invariant broke.
import type { Failure } from "./invariants.js";
import { planOf, reproducerLine, runSimulation, whenOf } from "./run.js";

export const SECRETS_LINE = "@@sim-secrets ";

function argValue(args: string[], name: string, fallback: number): number {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const n = Number(args[i + 1]);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} needs a non-negative integer`);
  return n;
}

/** The failures by kind: the message with its names, numbers and quoted values left out. */
function kindsOf(failures: Failure[]): Array<[string, number]> {
  const kinds = new Map<string, number>();
  for (const f of failures) {
    const kind = `${f.invariant} ${f.message
      .replace(/"[^"]*"/g, '"…"')
      .replace(/\b(model|name|login) \S+/g, "$1 …")
      .replace(/[\w.~/-]*\d[\w.~/-]*/g, "#")}`;
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  return [...kinds].sort((a, b) => b[1] - a[1]);
}

export async function main(args: string[]): Promise<number> {
  const seed = argValue(args, "--seed", Math.floor(Math.random() * 100_000));
  const requests = argValue(args, "--requests", 200);
  const verbose = args.includes("--verbose");
  const show = args.indexOf("--show");
  if (show >= 0) {
    // The day's steps from request A to B, to read what led to a failure: --show A-B
    const [from, to] = (args[show + 1] ?? "").split("-").map(Number);
    let index = 0;
    for (const step of planOf(seed, requests).day) {
      if (step.kind === "request") index = step.index;
      if (index >= from && index <= to) console.log(JSON.stringify(step));
    }
    return 0;
  }
  const result = await runSimulation({
    seed,
    requests,
    stopAtFirst: args.includes("--stop"),
    onFailure: verbose ? (f) => console.error(`  ${f.invariant} ${whenOf(f)}: ${f.message}`) : undefined,
    onRequest: args.includes("--trace") ? (line) => console.error(line) : undefined,
  });
  // scripts/sim.mjs holds the server's log lines and checks them for these (I8).
  if (process.env.SWITCHYARD_SIM_CHILD === "1") console.log(`${SECRETS_LINE}${JSON.stringify(result.secrets)}`);
  if (!result.reproducer) {
    console.log(`seed ${seed}: ${requests} requests, every invariant held (${(result.elapsedMs / 1000).toFixed(1)} s)`);
    return 0;
  }
  if (verbose) {
    for (const [kind, count] of kindsOf(result.failures)) console.error(`${String(count).padStart(5)} × ${kind}`);
    for (const f of result.firstByInvariant) console.error(`first ${reproducerLine(seed, requests, f)}`);
  }
  console.log(result.reproducer);
  return 1;
}
