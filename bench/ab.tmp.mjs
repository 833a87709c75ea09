// A/B CPU and GC per request between two dists, fixed request counts, alternating batches.
import { startChild, procStats } from "./proc.tmp.mjs";
import { openaiChat, agentLanes, replyText } from "/work/main/bench/payloads.mjs";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Agent, request } from "undici";
const TOKEN = "bench-admin-token-0123456789";
const dists = process.argv[2].split(",");
const lane = process.env.LANE ?? "chat";
const N = Number(process.env.N ?? 4000), ROUNDS = Number(process.env.ROUNDS ?? 5), C = 32;
const { startSimulator } = await import(pathToFileURL("/work/main/dist/main/simulator/index.js").href);
const sim = await startSimulator({ port: 0, recordLimit: 0, replyText: replyText(50) });
async function admin(base, method, p, body) {
  const r = await request(base + p, { method, headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" }, body: body && JSON.stringify(body) });
  const t = await r.body.text(); if (r.statusCode >= 300) throw new Error(p + " " + t); return t ? JSON.parse(t) : null;
}
const servers = [];
for (const d of dists) {
  const home = mkdtempSync(path.join(tmpdir(), "ab-"));
  const args = [...(process.env.NODE_ARGS ? process.env.NODE_ARGS.split(" ") : []), ...(process.env.HEAP ? [`--inspect=127.0.0.1:${9333 + servers.length}`] : []), path.join(d, "main/cli.js"), "serve", "--port", "0", "--home", home];
  const ch = startChild(d, process.execPath, args, { env: { SWITCHYARD_ADMIN_TOKEN: TOKEN }, ready: /^Switchyard listening on (http:\/\/127\.0\.0\.1:\d+)/ });
  const m = await ch.started; const url = m[1];
  if (process.env.GCLOG) { const { spawn } = await import("node:child_process"); }
  await admin(url, "POST", "/api/providers", { id: "sim", format: "openai", baseUrl: `${sim.url}/v1`, category: "apikey", models: ["m"] });
  await admin(url, "POST", "/api/connections", { provider: "sim", apiKey: "k" });
  await admin(url, "POST", "/api/providers", { id: "simA", format: "anthropic", baseUrl: sim.url, category: "apikey", models: ["m"] });
  await admin(url, "POST", "/api/connections", { provider: "simA", apiKey: "k" });
  await admin(url, "POST", "/api/providers", { id: "simL", format: "anthropic", baseUrl: sim.url, category: "oauth", models: ["m"] });
  await admin(url, "POST", "/api/connections", { provider: "simL", name: "bench login", credential: "client" });
  await admin(url, "POST", "/api/providers", { id: "simR", format: "openai-responses", baseUrl: `${sim.url}/v1`, category: "apikey", models: ["m"] });
  await admin(url, "POST", "/api/connections", { provider: "simR", apiKey: "k" });
  await admin(url, "POST", "/api/providers", { id: "simG", format: "gemini", baseUrl: `${sim.url}/v1beta`, category: "apikey", models: ["m"] });
  await admin(url, "POST", "/api/connections", { provider: "simG", apiKey: "k" });
  servers.push({ d, url, ch });
}
const AL = agentLanes({ model: "sim/m", stream: false });
const lanes = {
  chat: () => ({ path: "/v1/chat/completions", body: openaiChat({ model: "sim/m", stream: false }), headers: {} }),
  lchat: () => ({ path: "/v1/chat/completions", body: AL.chat, headers: {} }),
  messages: () => ({ path: "/v1/messages", body: AL.messages, headers: { "anthropic-version": "2023-06-01" } }),
  responses: () => ({ path: "/v1/responses", body: AL.responses, headers: {} }),
  gemini: () => ({ path: "/v1beta/models/sim%2Fm:generateContent", body: AL.gemini, headers: {} }),
  held: () => ({ path: "/v1/messages", body: agentLanes({ model: "simA/m", stream: false }).messages, headers: { "anthropic-version": "2023-06-01" } }),
  login: () => ({ path: "/v1/messages", body: agentLanes({ model: "simL/m", stream: false }).messages, headers: { "anthropic-version": "2023-06-01", "anthropic-beta": "oauth-2025-04-20", authorization: "Bearer sk-ant-oat01-bench-login" } }),
};
const spec = lanes[lane]();
const bodyText = JSON.stringify(spec.body);
async function batch(s, n) {
  const agent = new Agent({ connections: C, pipelining: 1 });
  let i = 0, errors = 0;
  async function worker() { while (i < n) { i++; const r = await request(s.url + spec.path, { method: "POST", dispatcher: agent, headers: { "content-type": "application/json", ...spec.headers }, body: bodyText }); await r.body.text(); if (r.statusCode !== 200) errors++; } }
  const st0 = procStats(s.ch.handle.pid);
  await Promise.all(Array.from({ length: C }, worker));
  const st1 = procStats(s.ch.handle.pid);
  await agent.close();
  return { cpu: (st1.cpuMs - st0.cpuMs) / n, errors };
}
for (const s of servers) await batch(s, 1000); // warm-up
if (process.env.HEAP) {
  const { default: WebSocket } = await import("ws");
  const { writeFileSync } = await import("node:fs");
  for (let k = 0; k < servers.length; k++) {
    const list = await (await fetch(`http://127.0.0.1:${9333 + k}/json/list`)).json();
    const sock = new WebSocket(list[0].webSocketDebuggerUrl);
    await new Promise((r) => sock.once("open", r));
    let id = 0; const pending = new Map();
    sock.on("message", (m) => { const msg = JSON.parse(m); if (msg.id && pending.has(msg.id)) { pending.get(msg.id)(msg); pending.delete(msg.id); } });
    const call = (method, params) => new Promise((r) => { const i = ++id; pending.set(i, r); sock.send(JSON.stringify({ id: i, method, params })); });
    await call("HeapProfiler.enable");
    if (process.env.SNAP) {
      let chunks = [];
      sock.on("message", (m) => { const msg = JSON.parse(m); if (msg.method === "HeapProfiler.addHeapSnapshotChunk") chunks.push(msg.params.chunk); });
      const load = batch(servers[k], N);
      await new Promise((r) => setTimeout(r, 700));
      await call("HeapProfiler.takeHeapSnapshot", { reportProgress: false });
      writeFileSync(`/tmp/snap${k}.heapsnapshot`, chunks.join(""));
      await load;
      continue;
    }
    await call("HeapProfiler.startSampling", { samplingInterval: 1024, includeObjectsCollectedByMajorGC: !process.env.LIVE, includeObjectsCollectedByMinorGC: !process.env.LIVE });
    await batch(servers[k], N);
    const out = await call("HeapProfiler.stopSampling");
    writeFileSync(`/tmp/heap${k}.json`, JSON.stringify(out.result.profile));
    sock.close();
  }
  for (const s of servers) await s.ch.handle.stop();
  process.exit(0);
}
const res = servers.map(() => []);
for (let r = 0; r < ROUNDS; r++) for (let k = 0; k < servers.length; k++) { const b = await batch(servers[k], N); res[k].push(b.cpu); if (b.errors) console.log("errors", servers[k].d, b.errors); }
const med = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
for (let k = 0; k < servers.length; k++) console.log(lane, servers[k].d.padEnd(22), "cpu ms/req median", med(res[k]).toFixed(4), res[k].map((x) => x.toFixed(3)).join(" "));
if (servers.length === 2) console.log(lane, "ratio", (med(res[0]) / med(res[1])).toFixed(3));
for (const s of servers) await s.ch.handle.stop();
await sim.close?.();
process.exit(0);
