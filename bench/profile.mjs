// Summarises a V8 .cpuprofile (from BENCH_SY_NODE_ARGS="--cpu-prof --cpu-prof-dir=D") by self
// time: the top functions, and the share of each area (project code by folder, node internals,
// each dependency, GC), so a change to the hot path can be judged by where the time went.
//   node bench/profile.mjs D/CPU.*.cpuprofile [top=25]
import { readFileSync } from "node:fs";

function area(url, name) {
  if (name === "(garbage collector)") return "gc";
  if (name === "(idle)" || name === "(program)" || name === "(root)") return name;
  if (!url) return "native/builtin";
  const dep = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (dep) return `dep:${dep[1]}`;
  if (url.startsWith("node:")) return `node:${url.slice(5).split("/")[0]}`;
  const own = /dist\/(main\/[^/]+(?:\/[^/]+)?)\//.exec(url);
  if (own) return own[1];
  return url.split("/").slice(-2).join("/");
}

export function summariseProfile(file, top = 25) {
  const prof = JSON.parse(readFileSync(file, "utf8"));
  const dt = new Map();
  for (let i = 0; i < prof.samples.length; i++) dt.set(prof.samples[i], (dt.get(prof.samples[i]) ?? 0) + (prof.timeDeltas[i] ?? 0));
  const byFn = new Map();
  const byArea = new Map();
  let total = 0;
  let idle = 0;
  for (const node of prof.nodes) {
    const us = dt.get(node.id) ?? 0;
    if (!us) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const name = functionName || "(anonymous)";
    if (name === "(idle)") {
      idle += us;
      continue;
    }
    total += us;
    const key = `${name} ${url.split("/").slice(-2).join("/")}:${lineNumber + 1}`;
    byFn.set(key, (byFn.get(key) ?? 0) + us);
    const a = area(url, name);
    byArea.set(a, (byArea.get(a) ?? 0) + us);
  }
  const pct = (us) => ((100 * us) / total).toFixed(1).padStart(5) + " %";
  const lines = [`busy ${(total / 1000).toFixed(0)} ms, idle ${(idle / 1000).toFixed(0)} ms`, "", "by area (self time):"];
  for (const [a, us] of [...byArea].sort((x, y) => y[1] - x[1]).slice(0, top)) lines.push(`${pct(us)}  ${a}`);
  lines.push("", "top functions (self time):");
  for (const [f, us] of [...byFn].sort((x, y) => y[1] - x[1]).slice(0, top)) lines.push(`${pct(us)}  ${f}`);
  return lines.join("\n");
}

if (process.argv[2]) console.log(summariseProfile(process.argv[2], Number(process.argv[3] ?? 25)));
