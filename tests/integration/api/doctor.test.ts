// R23.4: POST /api/providers/:id/doctor over HTTP on a whole gateway: healthy simulator-backed
// providers of every format pass every check; broken upstreams fail the checks they break, each
// with a sentence that says what to fix, and never with the connection's secret.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DoctorCheck, ProviderDoctorReport } from "../../../shared/apiTypes.js";
import type { Simulator } from "../../../main/simulator/index.js";
import { startGateway, startSim, type TestGateway } from "../harness.js";
import { type BrokenUpstream, startBrokenUpstream } from "./brokenUpstream.js";

const CHECKS = ["json", "stream", "tools", "usage", "errors"];
const SECRET = "sk-doctor-SECRET-4242";

describe("R23.4 contract doctor", () => {
  let gw: TestGateway;
  let sim: Simulator;
  const broken: BrokenUpstream[] = [];

  beforeAll(async () => {
    [gw, sim] = await Promise.all([startGateway(), startSim()]);
  });
  afterAll(async () => {
    await Promise.all([gw?.close(), sim?.close(), ...broken.map((b) => b.close())]);
  });

  async function provider(id: string, body: Record<string, unknown>, key = `key-${id}`): Promise<void> {
    const p = await gw.api("POST", "/api/providers", { id, models: ["m1"], ...body });
    expect(p.status, p.text).toBe(201);
    const c = await gw.api("POST", "/api/connections", { id: `${id}-c1`, provider: id, name: `${id} key`, apiKey: key });
    expect(c.status, c.text).toBe(201);
  }

  async function doctor(id: string): Promise<{ status: number; report: ProviderDoctorReport; text: string }> {
    const res = await gw.api<ProviderDoctorReport>("POST", `/api/providers/${id}/doctor`);
    return { status: res.status, report: res.body, text: res.text };
  }

  const byName = (report: ProviderDoctorReport) => Object.fromEntries(report.checks.map((c) => [c.name, c])) as Record<string, DoctorCheck>;
  const failing = (report: ProviderDoctorReport) => report.checks.filter((c) => !c.ok).map((c) => c.name);

  async function brokenUpstream(options: Parameters<typeof startBrokenUpstream>[0]): Promise<BrokenUpstream> {
    const upstream = await startBrokenUpstream(options);
    broken.push(upstream);
    return upstream;
  }

  it.each([
    ["anthropic", (url: string) => url],
    ["openai", (url: string) => `${url}/v1`],
    ["openai-responses", (url: string) => `${url}/v1`],
    ["gemini", (url: string) => `${url}/v1beta`],
    ["simulator", (url: string) => url],
  ] as const)("R23.4 a healthy %s provider on the simulator passes every check, in order, with timings", async (format, baseUrl) => {
    const id = `ok-${format}`;
    await provider(id, { format, baseUrl: baseUrl(sim.url) });
    const { status, report } = await doctor(id);
    expect(status).toBe(200);
    expect(report.checks.map((c) => c.name)).toEqual(CHECKS);
    expect(failing(report), JSON.stringify(report.checks)).toEqual([]);
    expect(report).toMatchObject({ ok: true, connectionId: `${id}-c1`, model: "m1" });
    for (const check of report.checks) expect(check.ms).toBeGreaterThanOrEqual(0);
    // The tools check offered a tool and the simulator called it (an answer in text would say so).
    expect(byName(report).tools.detail).toBeUndefined();
    expect(sim.requests.some((r) => r.key === `key-${id}` && JSON.stringify(r.body).includes("get_weather"))).toBe(true);
  });

  it("R23.4 the built-in simulator (no base URL) passes every check", async () => {
    await provider("builtin", { format: "simulator" });
    const { report } = await doctor("builtin");
    expect(failing(report), JSON.stringify(report.checks)).toEqual([]);
  });

  it("R23.4 a base URL on the wrong path: json says the URL answers 404 and what an Anthropic base URL is; the rest are not run", async () => {
    await provider("wrong-path", { format: "anthropic", baseUrl: `${sim.url}/wrong` });
    const { report } = await doctor("wrong-path");
    expect(report.ok).toBe(false);
    const json = byName(report).json;
    expect(json.ok).toBe(false);
    expect(json.detail).toBe(`the base URL ${sim.url}/wrong answers 404 for /v1/messages; an Anthropic base URL is the origin, e.g. https://api.anthropic.com`);
    for (const name of ["stream", "tools", "usage", "errors"]) {
      expect(byName(report)[name]).toMatchObject({ ok: false, detail: `not run: ${json.detail}`, ms: 0 });
    }
  });

  it("R23.4 an OpenAI base URL on a custom path that is not the API gets OpenAI's convention", async () => {
    await provider("wrong-openai", { format: "openai", baseUrl: `${sim.url}/proxy` });
    const { report } = await doctor("wrong-openai");
    expect(byName(report).json.detail).toBe(
      `the base URL ${sim.url}/proxy answers 404 for /chat/completions; an OpenAI base URL includes the version path, e.g. https://api.openai.com/v1`,
    );
  });

  it("R23.4 a refused key: check its API key; the secret the upstream echoed never reaches the answer", async () => {
    sim.addFault(SECRET, { status: 401, body: JSON.stringify({ type: "error", error: { type: "authentication_error", message: `invalid x-api-key ${SECRET}` } }) });
    await provider("refused", { format: "anthropic", baseUrl: sim.url }, SECRET);
    const { report, text } = await doctor("refused");
    expect(failing(report)).toEqual(CHECKS);
    expect(byName(report).json.detail).toBe('the upstream refused the key of connection "refused key" (401: invalid x-api-key [redacted]): check its API key');
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain("4242");
  });

  it("R23.4 nothing listening at the base URL: could not reach it", async () => {
    const closed = await startBrokenUpstream();
    await closed.close();
    await provider("gone", { format: "openai", baseUrl: `${closed.url}/v1` });
    const { report } = await doctor("gone");
    expect(byName(report).json.detail).toBe(`could not reach ${closed.url}/v1 (ECONNREFUSED): check the base URL's host and port, and that the server is running`);
  });

  it("R23.4 a stream cut short before its closing events fails only the stream check", async () => {
    await provider("cut", { format: "simulator", baseUrl: sim.url, options: { fault: { endAfterChunks: 1 } } });
    const { report } = await doctor("cut");
    expect(failing(report)).toEqual(["stream"]);
    expect(byName(report).stream.detail).toBe(
      "the stream ended without its closing events (a finish_reason, then data: [DONE]): the upstream, or a proxy in between, cut it short",
    );
  });

  it("R23.4 an empty stream fails the stream check", async () => {
    await provider("empty", { format: "simulator", baseUrl: sim.url, options: { fault: { emptyStream: true } } });
    const { report } = await doctor("empty");
    expect(failing(report)).toEqual(["stream"]);
    expect(byName(report).stream.detail).toBe("the event stream carried no events: the upstream ended it at once");
  });

  it("R23.4 an upstream that never streams fails the stream check with 'does not stream'", async () => {
    const upstream = await brokenUpstream({ noStream: true });
    await provider("no-stream", { format: "anthropic", baseUrl: upstream.url });
    const { report } = await doctor("no-stream");
    expect(failing(report)).toEqual(["stream"]);
    expect(byName(report).stream.detail).toBe(
      "asked to stream, the upstream answered with one JSON body instead of an event stream: this server does not stream, and coding agents need it to",
    );
  });

  it("R23.4 an upstream that omits usage fails the usage check", async () => {
    const upstream = await brokenUpstream({ noUsage: true });
    await provider("no-usage", { format: "openai", baseUrl: `${upstream.url}/v1` });
    const { report } = await doctor("no-usage");
    expect(failing(report)).toEqual(["usage"]);
    expect(byName(report).usage.detail).toBe(
      "the answer reports no token usage (usage.prompt_tokens and usage.completion_tokens of OpenAI Chat Completions): Switchyard cannot count this provider's tokens or cost, and budgets cannot see its traffic",
    );
  });

  it("R23.4 an upstream whose streams report no usage (its JSON answers do) fails the usage check for streams", async () => {
    const upstream = await brokenUpstream({ noStreamUsage: true });
    await provider("stream-no-usage", { format: "openai", baseUrl: `${upstream.url}/v1` });
    const { report } = await doctor("stream-no-usage");
    expect(failing(report)).toEqual(["usage"]);
    expect(byName(report).usage.detail).toBe(
      "streamed answers report no token usage although stream_options.include_usage asked for it: Switchyard cannot count the tokens or cost of streamed requests, which is what coding agents send",
    );
  });

  it("R23.4 an upstream answering another format's shape: set the provider's format", async () => {
    const upstream = await brokenUpstream({ answerAs: "openai" });
    await provider("wrong-format", { format: "anthropic", baseUrl: upstream.url });
    const { report } = await doctor("wrong-format");
    expect(failing(report)).toEqual(CHECKS);
    const checks = byName(report);
    expect(checks.json.detail).toBe(
      'the upstream answered in the OpenAI Chat Completions shape, not Anthropic Messages: set the provider\'s format to "openai", or point its base URL at an endpoint that speaks Anthropic Messages',
    );
    expect(checks.tools.detail).toBe(checks.json.detail);
    expect(checks.stream.detail).toMatch(/^the stream carried no text as Anthropic Messages events \(first event: .*\): check the provider's format$/);
    expect(checks.usage.detail).toBe("no answer to read usage from: the json check failed");
    expect(checks.errors.detail).toBe(
      "the error body (400) is in OpenAI's {error: {message, type}} shape, not Anthropic's {type: \"error\", error: {type, message}}: check the provider's format",
    );
  });

  it("R23.4 an unknown provider is 404 in the API's error shape", async () => {
    const res = await gw.api("POST", "/api/providers/nobody/doctor");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { code: "not_found", message: 'provider "nobody" not found' } });
  });

  it("R23.4 a provider without an active connection is 409 no_active_connection", async () => {
    expect((await gw.api("POST", "/api/providers", { id: "lonely", format: "openai", baseUrl: `${sim.url}/v1` })).status).toBe(201);
    const none = await gw.api("POST", "/api/providers/lonely/doctor");
    expect(none.status).toBe(409);
    expect(none.body.error.code).toBe("no_active_connection");
    expect(none.body.error.message).toContain('provider "lonely" has no active connection');

    expect((await gw.api("POST", "/api/connections", { id: "lonely-off", provider: "lonely", apiKey: "k", active: false })).status).toBe(201);
    expect((await gw.api("POST", "/api/providers/lonely/doctor")).status).toBe(409);
    expect((await gw.api("POST", "/api/connections", { id: "lonely-on", provider: "lonely", apiKey: "k2", priority: 5 })).status).toBe(201);
    const checked = await doctor("lonely");
    expect(checked.status).toBe(200);
    expect(checked.report.connectionId).toBe("lonely-on");
  });
});
