// D13 heap driver: runs the BUILT gateway and simulator in this process (started with
// `node --expose-gc`), streams requests through it and prints one JSON line:
// {before, after, growthMb, requests, failures, sampleFailure}. Usage:
//   node --expose-gc tests/integration/heap/heapDriver.mjs [measured=500] [warmup=50] [concurrency=10]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";

if (typeof globalThis.gc !== "function") {
  console.error("heapDriver: run with node --expose-gc");
  process.exit(2);
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const { buildApp } = await import(path.join(root, "dist/main/app/build.js"));
const { startSimulator } = await import(path.join(root, "dist/main/simulator/index.js"));

const [measured = 500, warmup = 50, concurrency = 10] = process.argv.slice(2).map(Number);
const ADMIN = "t";
const home = mkdtempSync(path.join(tmpdir(), "switchyard-heap-"));
const app = await buildApp({ port: 0, home, quiet: true, env: { SWITCHYARD_ADMIN_TOKEN: ADMIN } });
const sim = await startSimulator({ port: 0, label: "heap", recordLimit: 0 });

async function admin(route, body) {
  const r = await fetch(app.url + route, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (r.status !== 201) throw new Error(`${route}: ${r.status} ${await r.text()}`);
}

const BASE_URL = { openai: `${sim.url}/v1`, anthropic: sim.url, gemini: `${sim.url}/v1beta` };
for (const format of ["openai", "anthropic", "gemini"]) {
  await admin("/api/providers", { id: `p-${format}`, format, baseUrl: BASE_URL[format], category: "apikey", models: ["m"] });
  await admin("/api/connections", { provider: `p-${format}`, apiKey: `k-${format}` });
}

const TOOL = { name: "lookup", description: "Look something up", schema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } };

/** Request kinds, cycled: same-format passthrough and cross-format translation, text and tool calls. */
const KINDS = [
  { client: "openai", upstream: "openai", tool: false },
  { client: "anthropic", upstream: "anthropic", tool: false },
  { client: "anthropic", upstream: "openai", tool: true },
  { client: "openai", upstream: "anthropic", tool: false },
  { client: "anthropic", upstream: "gemini", tool: false },
  { client: "openai", upstream: "gemini", tool: true },
  { client: "openai", upstream: "anthropic", tool: true },
  { client: "anthropic", upstream: "openai", tool: false },
];

function requestFor(i) {
  const kind = KINDS[i % KINDS.length];
  const model = `p-${kind.upstream}/m`;
  const text = `${kind.tool ? "Please use tool lookup." : "Say something."} Request ${i}. ${"padding ".repeat(i % 40)}`;
  if (kind.client === "openai") {
    return {
      url: `${app.url}/v1/chat/completions`,
      terminator: "data: [DONE]",
      body: {
        model,
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: "user", content: text }],
        ...(kind.tool ? { tools: [{ type: "function", function: { name: TOOL.name, description: TOOL.description, parameters: TOOL.schema } }] } : {}),
      },
    };
  }
  return {
    url: `${app.url}/v1/messages`,
    terminator: "event: message_stop",
    body: {
      model,
      max_tokens: 128,
      stream: true,
      messages: [{ role: "user", content: text }],
      ...(kind.tool ? { tools: [{ name: TOOL.name, description: TOOL.description, input_schema: TOOL.schema }] } : {}),
    },
  };
}

let failures = 0;
let sampleFailure = null;

async function one(i) {
  const { url, body, terminator } = requestFor(i);
  try {
    const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" }, body: JSON.stringify(body) });
    const text = await r.text();
    if (r.status !== 200 || !text.includes(terminator)) {
      failures += 1;
      sampleFailure ??= { i, status: r.status, text: text.slice(0, 300) };
    }
  } catch (err) {
    failures += 1;
    sampleFailure ??= { i, error: String(err) };
  }
}

async function run(count, offset) {
  let next = 0;
  const workers = Array.from({ length: concurrency }, async () => {
    while (next < count) {
      const i = next++;
      await one(offset + i);
    }
  });
  await Promise.all(workers);
}

async function settledHeap() {
  // Let sockets close and the request-log batch flush before collecting.
  await sleep(200);
  globalThis.gc();
  await sleep(50);
  globalThis.gc();
  return process.memoryUsage().heapUsed;
}

await run(warmup, 0);
const warmupFailures = failures;
const before = await settledHeap();
await run(measured, warmup);
const after = await settledHeap();

await sim.close();
await app.close();
rmSync(home, { recursive: true, force: true });

console.log(
  JSON.stringify({
    before,
    after,
    growthMb: (after - before) / (1024 * 1024),
    requests: measured,
    warmup,
    failures,
    warmupFailures,
    sampleFailure,
  }),
);
