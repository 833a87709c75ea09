// The load generator for throughput and latency under load: wrk (a C program, so the load
// costs the machine little) or, when wrk is not on PATH or BENCH_LOADGEN=autocannon,
// autocannon from node_modules. Both run as child processes, never in the bench's own event
// loop (which hosts the simulated upstream).
import { execFileSync, spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";

export function pickLoadGenerator(root) {
  const wanted = process.env.BENCH_LOADGEN;
  let wrk = null;
  try {
    wrk = execFileSync("sh", ["-c", "command -v wrk"], { encoding: "utf8" }).trim() || null;
  } catch {
    wrk = null;
  }
  const autocannon = path.join(root, "node_modules", "autocannon", "autocannon.js");
  if (wanted === "autocannon" || !wrk) {
    if (!existsSync(autocannon)) throw new Error("neither wrk on PATH nor node_modules/autocannon: no load generator");
    return { name: "autocannon", bin: autocannon };
  }
  return { name: "wrk", bin: wrk };
}

function run(cmd, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
    let out = "";
    let err = "";
    child.stdout.on("data", (c) => (out += c));
    child.stderr.on("data", (c) => (err += c));
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`${path.basename(cmd)} exited ${code}: ${err.slice(-2000)}`))));
  });
}

const luaString = (s) => `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`;

/**
 * Writes the wrk script of one request (POST, its body from a file, its headers). With
 * `sessions`, each request names one of that many client sessions (x-session-id), so session
 * affinity has pins to keep.
 */
export function writeWrkScript(dir, name, req, sessions = 0) {
  const bodyFile = path.join(dir, `${name}.body`);
  writeFileSync(bodyFile, req.body);
  const headers = Object.entries(req.headers)
    .filter(([k]) => k !== "content-length")
    .map(([k, v]) => `wrk.headers[${luaString(k)}] = ${luaString(String(v))}`);
  const script = path.join(dir, `${name}.lua`);
  writeFileSync(
    script,
    [
      'wrk.method = "POST"',
      `local f = io.open(${luaString(bodyFile)}, "rb"); wrk.body = f:read("*a"); f:close()`,
      ...headers,
      ...(sessions > 0 ? [`request = function() wrk.headers["x-session-id"] = "bench-" .. math.random(${sessions}); return wrk.format() end`] : []),
      "done = function(summary, latency, requests)",
      "  local e = summary.errors",
      '  io.write(string.format("WRKJSON {\\"requests\\":%d,\\"durationUs\\":%d,\\"connect\\":%d,\\"read\\":%d,\\"write\\":%d,\\"status\\":%d,\\"timeout\\":%d,\\"p50\\":%d,\\"p90\\":%d,\\"p99\\":%d,\\"max\\":%d}\\n",',
      "    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,",
      "    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))",
      "end",
    ].join("\n"),
  );
  return script;
}

/**
 * One timed run against `url`: {requests, seconds, rps, p50, p90, p99, max (ms), errors}.
 * `req.script` is the wrk script of the request (writeWrkScript).
 */
export async function loadRun(gen, url, req, { connections, seconds }) {
  if (gen.name === "wrk") {
    const out = await run(gen.bin, ["-t1", `-c${connections}`, `-d${seconds}s`, "--timeout", "30s", "-s", req.script, url + req.path]);
    const line = out.split("\n").find((l) => l.startsWith("WRKJSON "));
    if (!line) throw new Error(`wrk printed no summary:\n${out.slice(-2000)}`);
    const r = JSON.parse(line.slice(8));
    const s = r.durationUs / 1e6;
    return {
      requests: r.requests,
      seconds: s,
      rps: r.requests / s,
      p50: r.p50 / 1000,
      p90: r.p90 / 1000,
      p99: r.p99 / 1000,
      max: r.max / 1000,
      errors: r.connect + r.read + r.write + r.status + r.timeout,
    };
  }
  // autocannon sends one fixed request: with sessions, all of them belong to one session.
  const headerArgs = Object.entries({ ...req.headers, ...(req.sessions ? { "x-session-id": "bench-1" } : {}) })
    .filter(([k]) => k !== "content-length")
    .flatMap(([k, v]) => ["-H", `${k}=${v}`]);
  const out = await run(process.execPath, [gen.bin, "-j", "-c", String(connections), "-d", String(seconds), "-m", "POST", "-b", req.body, ...headerArgs, url + req.path]);
  const r = JSON.parse(out);
  const n = r.requests.total;
  return {
    requests: n,
    seconds: r.duration,
    rps: n / r.duration,
    p50: r.latency.p50,
    p90: r.latency.p90,
    p99: r.latency.p99,
    max: r.latency.max,
    errors: r.errors + r.timeouts + r.non2xx,
  };
}
