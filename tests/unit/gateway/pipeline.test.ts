// The request loop as a whole, without SQLite: in-memory ports, the real engine on a fake clock,
// the real simulator as upstream and a real client over loopback.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RequestFeatures } from "../../../main/gateway/features/index.js";
import { RequestContext } from "../../../main/gateway/context/requestContext.js";
import { createPipeline, type PipelineDeps } from "../../../main/gateway/pipeline/pipeline.js";
import { ClientBoundTarget, createAdmission, releaseOnce, type AdmissionRequest, type AdmissionStage } from "../../../main/gateway/pipeline/admit.js";
import { startSimulator, type Simulator } from "../../../main/simulator/index.js";
import { combo, connection, listen, ports, provider, upstreamCaller, type Ports } from "./fixtures.js";

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ port: 0, label: "loop" });
});
afterAll(async () => sim.close());

function rig(admission: AdmissionStage = createAdmission()): { p: Ports; deps: PipelineDeps } {
  const oai = provider({ id: "oai", format: "openai", baseUrl: `${sim.url}/v1`, models: ["m1"] });
  const ant = provider({ id: "ant", format: "anthropic", baseUrl: sim.url, models: ["m1"] });
  const p = ports({
    providers: [oai, ant],
    connections: [connection({ id: "o1", provider: "oai" }), connection({ id: "o2", provider: "oai", priority: 1 }), connection({ id: "a1", provider: "ant" })],
    combos: [combo("both", ["oai/m1", "ant/m1"])],
  });
  for (const id of ["o1", "o2", "a1"]) p.secrets.set(id, `loop-${id}`);
  const deps: PipelineDeps = {
    catalog: p.catalog,
    connections: p.connections,
    requestLog: p.log,
    engine: p.h.engine,
    admission,
    callUpstream: upstreamCaller({ attemptDeadlineMs: 5_000 }).callUpstream,
    clock: p.h.clock,
    emit: (e) => p.events.push(e),
    features: new RequestFeatures([]),
    streamBudgets: () => ({
      contentStallTimeoutMs: 0,
      idleTimeoutMs: 0,
      throughput: { enabled: false, warmupMs: 0, windowMs: 0, minBytesPerSec: 0, minBytes: 0 },
      recoveryEnabled: true,
      heartbeatMs: 15_000,
    }),
  };
  return { p, deps };
}

async function send(deps: PipelineDeps, body: Record<string, unknown>) {
  const pipeline = createPipeline(deps);
  const srv = await listen((req, res) => {
    const ctx = new RequestContext("loop-req", req);
    ctx.bodyRead(body, undefined);
    void pipeline.handle(ctx, res);
  });
  try {
    const r = await fetch(srv.url, { method: "POST" });
    return { status: r.status, headers: r.headers, body: await r.json() };
  } finally {
    await srv.close();
  }
}

const chat = (model: string) => ({ model, messages: [{ role: "user", content: "hi" }] });

describe("the request loop", () => {
  it("R11.3 fails over from a 500 to the next connection, answers once and logs one entry with both attempts", async () => {
    const { p, deps } = rig();
    sim.addFault("loop-o1", { status: 500, times: 1 });
    const r = await send(deps, chat("oai/m1"));
    expect(r.status).toBe(200);
    expect(r.headers.get("x-switchyard-attempts")).toBe("2");
    expect(r.headers.get("x-omniroute-selected-connection-id")).toBe("o2");
    expect(r.body.choices[0].message.content).toContain("loop-o2");
    expect(p.log.entries).toHaveLength(1);
    expect(p.log.entries[0]).toMatchObject({
      id: "loop-req",
      status: 200,
      connectionId: "o2",
      attempts: [
        { connectionId: "o1", status: 500 },
        { connectionId: "o2", status: 200 },
      ],
    });
    expect(p.events.filter((e) => e.type === "request")).toHaveLength(1);
  });

  it("R1.4 a combo goes on to its next target in another format when the first target is exhausted", async () => {
    const { p, deps } = rig();
    sim.addFault("loop-o1", { status: 503, times: 1 });
    sim.addFault("loop-o2", { status: 503, times: 1 });
    const r = await send(deps, chat("both"));
    expect(r.status).toBe(200);
    expect(r.headers.get("x-omniroute-selected-connection-id")).toBe("a1");
    expect(p.log.entries[0]).toMatchObject({ combo: "both", provider: "ant" });
  });

  it("R1.5 an unknown model is a 404 in the client's format, logged", async () => {
    const { p, deps } = rig();
    const r = await send(deps, chat("nobody/m"));
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe("model_not_found");
    expect(p.log.entries[0]).toMatchObject({ status: 404, errorCode: "model_not_found", attempts: [] });
  });

  it("issue26 a failure inside the pipeline is logged with the request id, answered 500 in the client's format and gets its log row", async () => {
    const { p, deps } = rig();
    const lines: Array<{ fields: Record<string, unknown>; message: string }> = [];
    const broken: PipelineDeps = {
      ...deps,
      catalog: {
        ...deps.catalog,
        providers: () => {
          throw new Error("catalog broke: secret internals");
        },
      },
      logger: { error: (fields, message) => void lines.push({ fields, message }) },
    };
    const r = await send(broken, chat("oai/m1"));
    expect(r.status).toBe(500);
    expect(r.body.error.code).toBe("internal_error");
    expect(JSON.stringify(r.body)).not.toContain("secret internals");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ fields: { requestId: "loop-req", err: { message: "catalog broke: secret internals" } } });
    expect(p.log.entries).toHaveLength(1);
    expect(p.log.entries[0]).toMatchObject({ id: "loop-req", status: 500, errorCode: "internal_error" });
  });

  it("admission releases what it acquired exactly once per attempt", async () => {
    let acquired = 0;
    let released = 0;
    const counting: AdmissionStage = {
      async admit() {
        acquired++;
        return { admitted: true, release: releaseOnce(() => released++) };
      },
    };
    const { deps } = rig(counting);
    sim.addFault("loop-o1", { status: 500, times: 1 });
    expect((await send(deps, chat("oai/m1"))).status).toBe(200);
    expect([acquired, released]).toEqual([2, 2]);
  });

  it("issue 12: admission gets the attempt's connection with no per-request accessor; the client's signal is made only when read", async () => {
    const seen: AdmissionRequest[] = [];
    const recording: AdmissionStage = {
      admit(req) {
        seen.push(req);
        return { admitted: true, release: () => {} };
      },
    };
    const { deps } = rig(recording);
    expect((await send(deps, chat("oai/m1"))).status).toBe(200);
    const [req] = seen;
    expect(req).toBeInstanceOf(ClientBoundTarget);
    expect(req).toMatchObject({ model: "m1", connection: { id: "o1" }, quotaShare: false });
    // An object literal with a getter gets an old-space hidden class of its own on every request.
    expect(Object.values(Object.getOwnPropertyDescriptors(req)).filter((d) => d.get || d.set)).toEqual([]);
  });

  it("issue 12: a ClientBoundTarget reads the client's signal only when a stage asks for it", () => {
    let made = 0;
    const client = {
      get signal() {
        made++;
        return new AbortController().signal;
      },
    };
    const target = new ClientBoundTarget(provider(), connection(), "m", client, true);
    expect(made).toBe(0);
    expect(target.signal).toBeInstanceOf(AbortSignal);
    expect(made).toBe(1);
    expect(target.quotaShare).toBe(true);
  });

  it("an admission refusal answers with its typed error and sends nothing upstream", async () => {
    const refusing: AdmissionStage = {
      async admit() {
        return { admitted: false, refusal: { status: 429, code: "RATE_LIMIT_QUEUE_FULL", message: "queue full", retryAfterMs: 2_000, noRetry: false } };
      },
    };
    const { p, deps } = rig(refusing);
    const before = sim.requests.length;
    const r = await send(deps, chat("oai/m1"));
    expect(r.status).toBe(429);
    expect(r.body.error).toMatchObject({ code: "RATE_LIMIT_QUEUE_FULL", retry_after: 2 });
    expect(sim.requests.length).toBe(before);
    expect(p.log.entries[0]).toMatchObject({ status: 429, errorCode: "RATE_LIMIT_QUEUE_FULL" });
  });
});
