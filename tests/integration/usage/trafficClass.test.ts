// Traffic classes in the usage report and /metrics (R20.3, R18.2, R18.5) through a real gateway and
// its built-in simulator: plain requests are the main turn, so the log rows, GET /api/usage and its
// CSV by trafficClass and switchyard_requests_by_class_total all count them as "main"; a shed row
// (errorCode traffic_shed) is counted in switchyard_shed_total by its class.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { UsageReport } from "../../../shared/apiTypes.js";
import type { RequestLogEntry } from "../../../shared/types.js";
import { startGateway, type TestGateway } from "../harness.js";
import { parseExposition, sampleKey } from "./exposition.js";

let gw: TestGateway;
const PLAIN_REQUESTS = 4;

const chat = { model: "sim/sim-model", messages: [{ role: "user", content: "hello classes" }] };
const logs = async () => (await gw.api<RequestLogEntry[]>("GET", "/api/logs?limit=1000")).body;

async function metrics(): Promise<(name: string, labels: Record<string, string>) => number | undefined> {
  const res = await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${gw.token}` } });
  expect(res.status).toBe(200);
  const samples = parseExposition(await res.text());
  return (name, labels) => samples.get(sampleKey(name, labels));
}

/** A finished request's row as the gateway announces it on the bus (what /metrics counts). */
function announced(over: Partial<RequestLogEntry>): RequestLogEntry {
  const base = { clientFormat: "openai" as const, model: "sim/sim-model", combo: null, provider: "sim", connectionId: "sim-1", latencyMs: 3, ttfbMs: null, stream: false };
  return {
    id: `announced-${over.trafficClass ?? "none"}`,
    time: Date.now(),
    status: 429,
    errorCode: "traffic_shed",
    inputTokens: null,
    outputTokens: null,
    attempts: [],
    ...base,
    ...over,
  };
}

beforeAll(async () => {
  gw = await startGateway();
  expect((await gw.api("POST", "/api/providers", { id: "sim", format: "simulator", category: "local", models: ["sim-model"] })).status).toBe(201);
  expect((await gw.api("POST", "/api/connections", { id: "sim-1", provider: "sim", name: "sim-1" })).status).toBe(201);
  for (let i = 0; i < PLAIN_REQUESTS; i++) expect((await gw.post("/v1/chat/completions", chat)).status).toBe(200);
});

afterAll(async () => {
  await gw?.close();
});

describe("traffic classes in the log, the usage report and /metrics (R20.3)", () => {
  it("R20.3 each log row carries its trafficClass; a plain request is the main turn", async () => {
    const rows = await logs();
    expect(rows).toHaveLength(PLAIN_REQUESTS);
    for (const r of rows) expect(r.trafficClass).toBe("main");
    // R20.2: the share is on every row, null when the upstream stated no cache reads.
    for (const r of rows) expect(r).toHaveProperty("cacheReadShare");
  });

  it("R20.3 R18.2 GET /api/usage?groupBy=trafficClass counts the rows under their class, and the CSV says the same", async () => {
    const rows = await logs();
    const res = await gw.api<UsageReport>("GET", "/api/usage?groupBy=trafficClass");
    expect(res.status).toBe(200);
    expect(res.body.groupBy).toBe("trafficClass");
    expect(res.body.series.map((s) => s.key)).toEqual(["main"]);
    expect(res.body.series[0].points.reduce((n, p) => n + p.requests, 0)).toBe(rows.length);
    expect(res.body.totals.inputTokens).toBe(rows.reduce((n, r) => n + (r.inputTokens ?? 0), 0));
    const byProvider = (await gw.api<UsageReport>("GET", "/api/usage?groupBy=provider")).body;
    expect(res.body.totals).toEqual(byProvider.totals);

    const csv = await fetch(`${gw.url}/api/usage.csv?groupBy=trafficClass&bucket=day`, { headers: { authorization: `Bearer ${gw.token}` } });
    expect(csv.status).toBe(200);
    const lines = (await csv.text()).trim().split("\n");
    expect(lines[0]).toBe("time,trafficClass,requests,inputTokens,outputTokens,cacheReadTokens,cacheWriteTokens,reasoningTokens,costUsd");
    const cells = lines.slice(1).map((l) => l.split(","));
    expect(cells.every((c) => c[1] === "main")).toBe(true);
    expect(cells.reduce((n, c) => n + Number(c[2]), 0)).toBe(rows.length);
  });

  it("R20.3 R18.5 /metrics counts requests by class and status, and shed requests by class; rows without a class are not counted", async () => {
    gw.app.bus.emit({ type: "request", entry: announced({ trafficClass: "background" }), at: Date.now() });
    gw.app.bus.emit({ type: "request", entry: announced({ status: 503 }), at: Date.now() });
    const at = await metrics();
    expect(at("switchyard_requests_by_class_total", { traffic_class: "main", status: "200" })).toBe(PLAIN_REQUESTS);
    expect(at("switchyard_requests_by_class_total", { traffic_class: "background", status: "429" })).toBe(1);
    expect(at("switchyard_shed_total", { traffic_class: "background" })).toBe(1);
    expect(at("switchyard_shed_total", { traffic_class: "main" })).toBeUndefined();
    // The row without a class is still in switchyard_requests_total, only not in the class counters.
    expect(at("switchyard_requests_total", { format: "openai", status: "503" })).toBe(1);
    expect(at("switchyard_requests_by_class_total", { traffic_class: "main", status: "503" })).toBeUndefined();
  });
});
