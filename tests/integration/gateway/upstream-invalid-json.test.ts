// D2's synthesized 502 over real HTTP: an upstream that answers 2xx with a body that is not JSON
// (an HTML error page from a proxy, a truncated body) is a 502 to the client, classified like one,
// and named for what it is — `upstream_invalid_json` — in the error, the request log and the
// connection's error code, not as a plain upstream_error.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, startGateway, startSim, type ApiResult, type TestGateway } from "../harness.js";

let gw: TestGateway;
let sim: Simulator;

const HTML_PAGE = "<html><body>502 Bad Gateway (nginx)</body></html>";

beforeAll(async () => {
  sim = await startSim({ label: "nojson" });
  gw = await startGateway();
});

afterEach(async () => {
  sim.clearFaults();
  await gw.api("POST", "/api/resilience/cooldowns", { all: true });
  await gw.api("POST", "/api/resilience/reset", {});
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

const ask = (model: string) => gw.post("/v1/chat/completions", { model, messages: [{ role: "user", content: "hello" }] });

async function logRow(r: ApiResult): Promise<Record<string, any>> {
  const id = r.headers.get("x-switchyard-request-id");
  for (let i = 0; i < 40; i++) {
    const row = ((await gw.api("GET", "/api/logs?limit=20")).body as Array<Record<string, any>>).find((x) => x.id === id);
    if (row) return row;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no request-log row ${id}`);
}

describe("a 2xx body that is not JSON (D2)", () => {
  it("D2 the synthesized 502 is upstream_invalid_json in the client's error, the log row and the connection", async () => {
    await addProvider(gw, "nj", sim, "openai", ["nj-1"]);
    sim.addFault("nj-1", { body: HTML_PAGE, times: 1 });
    const r = await ask("nj/m1");
    expect(r.status).toBe(502);
    expect(r.body.error.code).toBe("upstream_invalid_json");
    expect(r.body.error.message).toContain("not JSON");
    const row = await logRow(r);
    expect(row).toMatchObject({ status: 502, errorCode: "upstream_invalid_json" });
    expect(row.attempts).toMatchObject([{ connectionId: "nj-c1", status: 502, verdict: "upstream_invalid_json" }]);
    expect((await gw.api("GET", "/api/connections/nj-c1")).body.errorCode).toBe("upstream_invalid_json");
  });

  it("D2 it fails over like any 502, and the answered request's timeline still names the failed attempt", async () => {
    await addProvider(gw, "nf", sim, "openai", ["nf-1", "nf-2"]);
    sim.addFault("nf-1", { body: HTML_PAGE, times: 1 });
    const r = await ask("nf/m1");
    expect(r.status).toBe(200);
    expect(r.body.choices[0].message.content).toContain("key nf-2");
    const row = await logRow(r);
    expect(row.errorCode).toBeNull();
    expect(row.attempts.map((a: { verdict: string | null }) => a.verdict)).toEqual(["upstream_invalid_json", null]);
  });
});
