// The serving processes' V8 flags (issue 12): applied through V8's own setter, and each one a flag
// this node's V8 knows (V8 ignores an unknown flag silently, so a renamed one would do nothing).
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { applyServingHeapPolicy, SERVING_V8_FLAGS } from "../../../main/app/heapPolicy.js";

function run(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (c) => (out += c));
    child.stderr.on("data", (c) => (out += c));
    child.once("error", reject);
    child.once("exit", (code) => resolve({ code, out }));
  });
}

describe("serving heap policy", () => {
  it("issue 12: turns V8's allocation-site pretenuring off, through the flag setter", () => {
    const set: string[] = [];
    applyServingHeapPolicy((flag) => set.push(flag));
    expect(set).toEqual(["--no-allocation-site-pretenuring"]);
  });

  it("issue 12: every serving flag is one this node's V8 lists and starts with", async () => {
    const options = await run(["--v8-options"]);
    for (const flag of SERVING_V8_FLAGS) {
      const name = flag.replace(/^--no-/, "--");
      expect(options.out).toContain(`${name} (`);
      const started = await run([flag, "-e", "process.stdout.write('ok')"]);
      expect(started).toEqual({ code: 0, out: "ok" });
    }
  });
});
