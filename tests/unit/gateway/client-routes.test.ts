// The client routes' edges without SQLite: the request shape (R1.9) and a 500 that still carries
// the request id, in the client's format.
import express from "express";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { normaliseAppSettings } from "../../../shared/schemas/appSettings.js";
import { shapeProblem } from "../../../main/gateway/http/clientRoutes.js";
import { createGatewayApp } from "../../../main/gateway/http/server.js";
import type { Pipeline } from "../../../main/gateway/pipeline/pipeline.js";
import { LeaseBook } from "../../../main/engine/leases.js";
import { SessionPins } from "../../../main/engine/sessionAffinity.js";
import { MemoryLeaseStore, MemoryPinStore } from "../sessions/memoryStores.js";
import { ports } from "./fixtures.js";

describe("R1.9 request shape", () => {
  const messages = [{ role: "user", content: "hi" }];
  it("accepts a well-formed request with unknown fields", () => {
    expect(shapeProblem("openai", { model: "m", messages, x_unknown: 1 })).toBeNull();
    expect(shapeProblem("anthropic", { model: "m", max_tokens: 1, messages, x_unknown: 1 })).toBeNull();
  });
  it.each([
    ["openai", { messages }, /^model/],
    ["openai", { model: "m", messages: [null, null] }, /^messages\[0\]/],
    ["openai", { model: "m", messages: [{ role: "user" }, { role: 3 }] }, /^messages\[1\]/],
    ["openai", { model: "m", messages: {} }, /^messages/],
    ["anthropic", { model: "m", messages }, /^max_tokens/],
    ["anthropic", { model: "m", messages, max_tokens: -1 }, /^max_tokens/],
    ["anthropic", { model: "m", messages, max_tokens: "8" }, /^max_tokens/],
  ] as const)("refuses %s %j", (format, body, problem) => {
    expect(shapeProblem(format, body as Record<string, unknown>)).toMatch(problem);
  });
});

describe("client route errors", () => {
  it("R1.5 issue26 a failure inside Switchyard is a 500 in the client's format that still carries X-Switchyard-Request-Id, logged with it and in the request log", async () => {
    const p = ports();
    const broken = { handle: async () => Promise.reject(new Error("secret internals")) } as unknown as Pipeline;
    const lines: Array<{ fields: Record<string, unknown>; message: string }> = [];
    const app = createGatewayApp({
      logger: { error: (fields, message) => void lines.push({ fields, message }) },
      ...p,
      clock: p.h.clock,
      pipeline: broken,
      appSettings: () => normaliseAppSettings({}),
      verifyClientKey: () => null,
      version: "test",
      requestLog: p.log,
      hostGuard: (_req, _res, next) => next(),
      acceptsHost: () => true,
      apiRouter: express.Router(),
      dashboardDir: null,
      sessions: {
        pins: new SessionPins(new MemoryPinStore(), p.h.clock, () => 0),
        leases: new LeaseBook(new MemoryLeaseStore(), p.h.clock, 60_000),
        clock: p.h.clock,
        engine: p.h.engine,
        connectionById: () => null,
        providerById: () => null,
      },
    });
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/messages`;
      const r = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "x/y", max_tokens: 4, messages: [{ role: "user", content: "hi" }] }),
      });
      expect(r.status).toBe(500);
      expect(r.headers.get("x-switchyard-request-id")).toMatch(/^[0-9a-f-]{36}$/);
      expect(r.headers.get("x-switchyard-attempts")).toBe("0");
      const body = await r.json();
      expect(body).toMatchObject({ type: "error", error: { type: "api_error", code: "internal_error" } });
      expect(JSON.stringify(body)).not.toContain("secret internals");
      // issue26: logged with the request id, and a request-log row, instead of vanishing.
      const id = r.headers.get("x-switchyard-request-id");
      expect(lines).toEqual([{ fields: { requestId: id, err: expect.objectContaining({ message: "secret internals" }) }, message: expect.any(String) }]);
      expect(p.log.entries).toEqual([expect.objectContaining({ id, status: 500, errorCode: "internal_error", clientFormat: "anthropic" })]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
