// Stored Responses API turns (R16.4) through the gateway's functions and routes, on a real store:
// previous_response_id turns the earlier turn into history, store:false and storage off keep
// nothing, and GET/DELETE /v1/responses/{id} and its input_items answer as OpenAI's API does.
import express, { type RequestHandler } from "express";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { expandPreviousResponse, recordServedResponse, type StoredResponsesPort } from "../../../main/gateway/features/responses/storedResponses.js";
import { storedResponseRoutes } from "../../../main/gateway/http/storedResponseRoutes.js";
import { applySettingsPatch } from "../../../main/api/settingsDocument.js";
import { defaultAppSettings } from "../../../shared/appSettings.js";
import { normaliseAppSettingsWithReport, settingsPatchSchema } from "../../../shared/schemas/appSettings.js";
import { openHarness, type StoreHarness } from "../store/storeFixture.js";

const HOUR = 3_600_000;

const userText = (text: string) => ({ type: "message", role: "user", content: [{ type: "input_text", text }] });
const answerItem = (text: string) => ({ id: "msg_1", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] });

function served(id: string, text: string): Record<string, unknown> {
  return { id, object: "response", status: "completed", model: "sim/m1", output: [answerItem(text)] };
}

describe("setting responsesRetentionHours", () => {
  it("R16.4 defaults to 24, is patched as a whole number of hours and clamped to 0–8760", () => {
    expect(defaultAppSettings().responsesRetentionHours).toBe(24);
    expect(settingsPatchSchema.safeParse({ responsesRetentionHours: 0 }).success).toBe(true);
    expect(settingsPatchSchema.safeParse({ responsesRetentionHours: 1.5 }).success).toBe(false);
    expect(applySettingsPatch(defaultAppSettings(), { responsesRetentionHours: 0 }).responsesRetentionHours).toBe(0);
    expect(applySettingsPatch(defaultAppSettings(), { responsesRetentionHours: 100_000 }).responsesRetentionHours).toBe(8_760);
    expect(normaliseAppSettingsWithReport({ responsesRetentionHours: "x" })).toMatchObject({ settings: { responsesRetentionHours: 24 }, adjusted: ["responsesRetentionHours"] });
  });
});

describe("previous_response_id and store", () => {
  let h: StoreHarness;
  let port: StoredResponsesPort;
  beforeEach(() => {
    h = openHarness();
    port = h.store.responses;
  });
  afterEach(() => h.cleanup());

  it("R16.4 expands the earlier turn into history: its input, its output, then the new input, without previous_response_id", () => {
    const now = h.clock.now();
    const first = { model: "sim/m1", instructions: "be brief", input: [userText("one")] };
    expect(recordServedResponse(port, first, first.input, served("resp_1", "ONE"), "c1", now, 24)).toBe(true);
    const second = { model: "sim/m1", previous_response_id: "resp_1", input: [{ type: "function_call_output", call_id: "call_1", output: "42" }], tools: [] };
    const expanded = expandPreviousResponse(second, port, now, 24);
    expect(expanded).toEqual({
      body: { model: "sim/m1", tools: [], input: [userText("one"), answerItem("ONE"), second.input[0]] },
    });
    // The body received is left as it was.
    expect(second.previous_response_id).toBe("resp_1");
  });

  it("R16.4 a string input becomes one user message after the history", () => {
    const now = h.clock.now();
    recordServedResponse(port, {}, [userText("one")], served("resp_1", "ONE"), "c1", now, 24);
    const expanded = expandPreviousResponse({ model: "m", previous_response_id: "resp_1", input: "two" }, port, now, 24);
    expect("body" in expanded && expanded.body["input"]).toEqual([userText("one"), answerItem("ONE"), userText("two")]);
  });

  it("R16.4 a chain needs one level: each stored input is already the whole history", () => {
    const now = h.clock.now();
    recordServedResponse(port, {}, [userText("one")], served("resp_1", "ONE"), null, now, 24);
    const turn2 = expandPreviousResponse({ previous_response_id: "resp_1", input: "two" }, port, now, 24);
    if (!("body" in turn2)) throw new Error("turn 2 refused");
    recordServedResponse(port, turn2.body, turn2.body["input"] as unknown[], served("resp_2", "TWO"), null, now, 24);
    const turn3 = expandPreviousResponse({ previous_response_id: "resp_2", input: "three" }, port, now, 24);
    expect("body" in turn3 && turn3.body["input"]).toEqual([userText("one"), answerItem("ONE"), userText("two"), answerItem("TWO"), userText("three")]);
  });

  it("R16.4 the earlier instructions are not carried over (as OpenAI documents); the new body's own stay", () => {
    const now = h.clock.now();
    recordServedResponse(port, { instructions: "old" }, [userText("one")], { ...served("resp_1", "ONE"), instructions: "old" }, null, now, 24);
    const without = expandPreviousResponse({ previous_response_id: "resp_1", input: "two" }, port, now, 24);
    expect("body" in without && without.body["instructions"]).toBeUndefined();
    const own = expandPreviousResponse({ previous_response_id: "resp_1", input: "two", instructions: "new" }, port, now, 24);
    expect("body" in own && own.body["instructions"]).toBe("new");
  });

  it("R16.4 a body without previous_response_id is returned as the same object", () => {
    const body = { model: "m", input: "hi" };
    expect(expandPreviousResponse(body, port, h.clock.now(), 0)).toEqual({ body });
    expect((expandPreviousResponse(body, port, h.clock.now(), 24) as { body: unknown }).body).toBe(body);
  });

  it("R16.4 storage off (retention 0) refuses previous_response_id with 400 response_storage_off", () => {
    const now = h.clock.now();
    recordServedResponse(port, {}, [userText("one")], served("resp_1", "ONE"), null, now, 24);
    expect(expandPreviousResponse({ previous_response_id: "resp_1", input: "x" }, port, now, 0)).toMatchObject({ status: 400, code: "response_storage_off" });
  });

  it("R16.4 an unknown or expired id is 404 response_not_found", () => {
    const now = h.clock.now();
    expect(expandPreviousResponse({ previous_response_id: "resp_nope", input: "x" }, port, now, 24)).toMatchObject({ status: 404, code: "response_not_found" });
    recordServedResponse(port, {}, [userText("one")], served("resp_1", "ONE"), null, now, 1);
    expect(expandPreviousResponse({ previous_response_id: "resp_1", input: "x" }, port, now + HOUR, 24)).toMatchObject({ status: 404, code: "response_not_found" });
  });

  it("R16.4 store:false and retention 0 record nothing; a stored turn expires after the retention", () => {
    const now = h.clock.now();
    expect(recordServedResponse(port, { store: false }, [userText("one")], served("resp_a", "A"), null, now, 24)).toBe(false);
    expect(recordServedResponse(port, {}, [userText("one")], served("resp_b", "B"), null, now, 0)).toBe(false);
    expect(port.get("resp_a", now)).toBeNull();
    expect(port.get("resp_b", now)).toBeNull();
    expect(recordServedResponse(port, { store: true }, [userText("one")], served("resp_c", "C"), "c9", now, 2)).toBe(true);
    expect(port.get("resp_c", now)).toMatchObject({ connectionId: "c9", model: "sim/m1", createdAt: now, expiresAt: now + 2 * HOUR });
  });
});

describe("GET/DELETE /v1/responses/{id} and input_items over HTTP", () => {
  let h: StoreHarness;
  let server: Server;
  let base: string;
  let retention: number;
  let guarded: number;

  beforeEach(async () => {
    h = openHarness();
    retention = 24;
    guarded = 0;
    const guard: RequestHandler = (_req, _res, next) => {
      guarded++;
      next();
    };
    const app = express();
    app.use(storedResponseRoutes({ port: h.store.responses, clock: h.clock, retentionHours: () => retention }, guard));
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const input = [
      userText("q0"),
      { role: "assistant", content: "a0" },
      { id: "fco_own", type: "function_call_output", call_id: "c", output: "o" },
      userText("q1"),
      userText("q2"),
    ];
    recordServedResponse(h.store.responses, {}, input, served("resp_1", "done"), "c1", h.clock.now(), 24);
  });
  afterEach(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    h.cleanup();
  });

  const get = async (path: string, init?: RequestInit) => {
    const r = await fetch(`${base}${path}`, init);
    return { status: r.status, headers: r.headers, body: (await r.json()) as Record<string, unknown> };
  };

  it("R16.4 GET returns the stored response object, behind the client guard, with the client headers", async () => {
    const r = await get("/v1/responses/resp_1");
    expect(r.status).toBe(200);
    expect(r.body).toEqual(served("resp_1", "done"));
    expect(r.headers.get("x-switchyard-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.headers.get("x-switchyard-attempts")).toBe("0");
    expect(guarded).toBe(1);
  });

  it("R16.4 input_items lists the items with ids, newest first by default, paged with limit and after", async () => {
    const all = await get("/v1/responses/resp_1/input_items");
    expect(all.status).toBe(200);
    const data = all.body["data"] as Array<Record<string, unknown>>;
    expect(data.map((i) => i["id"])).toEqual(["msg_1_in4", "msg_1_in3", "fco_own", "msg_1_in1", "msg_1_in0"]);
    expect(data[3]).toEqual({ id: "msg_1_in1", type: "message", role: "assistant", content: [{ type: "output_text", text: "a0" }] });
    expect(all.body).toMatchObject({ object: "list", first_id: "msg_1_in4", last_id: "msg_1_in0", has_more: false });

    const page1 = await get("/v1/responses/resp_1/input_items?order=asc&limit=2");
    expect(page1.body).toMatchObject({ first_id: "msg_1_in0", last_id: "msg_1_in1", has_more: true });
    const page2 = await get(`/v1/responses/resp_1/input_items?order=asc&limit=2&after=${page1.body["last_id"]}`);
    expect((page2.body["data"] as Array<{ id: string }>).map((i) => i.id)).toEqual(["fco_own", "msg_1_in3"]);
    expect(page2.body["has_more"]).toBe(true);
    const page3 = await get("/v1/responses/resp_1/input_items?order=asc&limit=2&after=msg_1_in3");
    expect(page3.body).toMatchObject({ first_id: "msg_1_in4", last_id: "msg_1_in4", has_more: false });

    expect((await get("/v1/responses/resp_1/input_items?limit=0")).status).toBe(400);
    expect((await get("/v1/responses/resp_1/input_items?limit=101")).status).toBe(400);
    expect((await get("/v1/responses/resp_1/input_items?order=up")).body).toMatchObject({ error: { code: "invalid_request" } });
  });

  it("R16.4 DELETE answers as OpenAI does; afterwards GET is 404 response_not_found", async () => {
    const del = await get("/v1/responses/resp_1", { method: "DELETE" });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id: "resp_1", object: "response.deleted", deleted: true });
    const after = await get("/v1/responses/resp_1");
    expect(after.status).toBe(404);
    expect(after.body).toEqual({ error: { message: expect.any(String), type: "invalid_request_error", code: "response_not_found" } });
    expect(after.headers.get("x-switchyard-request-id")).toBeTruthy();
    expect((await get("/v1/responses/resp_1", { method: "DELETE" })).status).toBe(404);
    expect((await get("/v1/responses/resp_1/input_items")).body).toMatchObject({ error: { code: "response_not_found" } });
  });

  it("R16.4 an expired turn is 404 on every route", async () => {
    h.clock.advance(24 * HOUR);
    expect((await get("/v1/responses/resp_1")).status).toBe(404);
    expect((await get("/v1/responses/resp_1/input_items")).status).toBe(404);
    expect((await get("/v1/responses/resp_1", { method: "DELETE" })).status).toBe(404);
  });

  it("R16.4 with storage off every route is 400 response_storage_off", async () => {
    retention = 0;
    for (const [path, method] of [
      ["/v1/responses/resp_1", "GET"],
      ["/v1/responses/resp_1", "DELETE"],
      ["/v1/responses/resp_1/input_items", "GET"],
    ] as const) {
      const r = await get(path, { method });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ error: { message: expect.stringContaining("responsesRetentionHours"), type: "invalid_request_error", code: "response_storage_off" } });
    }
  });
});
