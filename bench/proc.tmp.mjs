// Child processes the bench starts, and what /proc says about them. The bench ends only
// the processes it started, by their PID.
import { spawn, execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

const TAIL_BYTES = 8192;

let clockTicks = 100;
try {
  clockTicks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
} catch {
  // Linux's USER_HZ is 100 almost everywhere; getconf is only a confirmation.
}

/**
 * Spawns `command args` and resolves once a stdout line matches `ready` (its match is
 * returned). Output keeps being drained so the child never blocks on a full pipe; the
 * last few KB of each stream are kept for error messages.
 */
export function startChild(name, command, args, { env = {}, cwd, ready, timeoutMs = 20_000 }) {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  let exited = null;
  const exit = new Promise((resolve) => child.once("exit", (code, signal) => resolve((exited = { code, signal }))));

  const handle = {
    name,
    pid: child.pid,
    get exited() {
      return exited;
    },
    tail: () => `--- ${name} stdout (tail) ---\n${out}\n--- ${name} stderr (tail) ---\n${err}`,
    /** SIGTERM by PID, then SIGKILL if it has not exited within `graceMs`. */
    async stop(graceMs = 5_000) {
      if (exited || child.pid === undefined) return exited;
      try {
        process.kill(child.pid, "SIGTERM");
      } catch {
        return exited;
      }
      const timer = setTimeout(() => {
        if (!exited) {
          try {
            process.kill(child.pid, "SIGKILL");
          } catch {
            // Already gone.
          }
        }
      }, graceMs);
      const result = await exit;
      clearTimeout(timer);
      return result;
    },
    /** Synchronous last resort for process 'exit' handlers. */
    killNow() {
      if (!exited && child.pid !== undefined) {
        try {
          process.kill(child.pid, "SIGKILL");
        } catch {
          // Already gone.
        }
      }
    },
  };

  const started = new Promise(async (resolve, reject) => {
    let line = "";
    let matched = false;
    const timer = setTimeout(() => reject(new Error(`${name} did not print its ready line within ${timeoutMs} ms\n${handle.tail()}`)), timeoutMs);
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    const gcLog = process.env.GCLOG ? (await import("node:fs")).createWriteStream(`${process.env.GCLOG}.${child.pid}`) : null;
    child.stdout.on("data", (chunk) => {
      gcLog?.write(chunk);
      out = (out + chunk).slice(-TAIL_BYTES);
      if (matched) return;
      line += chunk;
      let nl;
      while ((nl = line.indexOf("\n")) >= 0) {
        const m = ready.exec(line.slice(0, nl));
        line = line.slice(nl + 1);
        if (m) {
          matched = true;
          clearTimeout(timer);
          resolve(m);
          return;
        }
      }
    });
    child.stderr.on("data", (chunk) => {
      err = (err + chunk).slice(-TAIL_BYTES);
    });
    child.once("error", (e) => {
      clearTimeout(timer);
      reject(new Error(`${name} could not be started: ${e.message}`));
    });
    // `exit` only ever resolves (on the child's exit event), so this chain cannot reject.
    void exit.then(({ code, signal }) => {
      clearTimeout(timer);
      if (!matched) reject(new Error(`${name} exited (code ${code}, signal ${signal}) before it was ready\n${handle.tail()}`));
    });
  });

  return { handle, started };
}

/** RSS, peak RSS (kB) and CPU time (ms, user+system) of a live process, from /proc. */
export function procStats(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field) => {
    const m = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, "m").exec(status);
    return m ? Number(m[1]) : NaN;
  };
  // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(rest[11]) + Number(rest[12]);
  return { rssKb: kb("VmRSS"), hwmKb: kb("VmHWM"), cpuMs: (ticks * 1000) / clockTicks };
}

/** CPU time (ms) this process has used so far, for the load client and in-process simulator. */
export function selfCpuMs() {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}
