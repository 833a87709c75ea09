// GET /api/events (R15.2, R14.3): the live stream the dashboard listens to instead of polling.
import express from "express";
import type { AddressInfo } from "node:net";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sseEventsHandler } from "../../../main/api/index.js";
import { createEventBus } from "../../../main/app/eventBus.js";
import { ADMIN_TOKEN, type ApiServer, SIM_PROVIDER, startApiServer } from "./apiHarness.js";

/** Reads an SSE body until `done` says the collected text is complete. */
async function readUntil(body: AsyncIterable<Buffer>, done: (text: string) => boolean): Promise<string> {
  let text = "";
  for await (const chunk of body) {
    text += chunk.toString("utf8");
    if (done(text)) break;
  }
  return text;
}

describe("events stream", () => {
  let api: ApiServer;

  beforeAll(async () => {
    api = await startApiServer();
  });
  afterAll(async () => {
    await api.close();
  });

  it("R15.2 GET /api/events streams a config event for a change made through the API", async () => {
    const controller = new AbortController();
    const res = await request(`${api.url}/api/events`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      signal: controller.signal,
    });
    expect(res.statusCode).toBe(200);
    expect(String(res.headers["content-type"])).toMatch(/^text\/event-stream/);
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();

    const reading = readUntil(res.body, (text) => text.includes("event: config\n"));
    expect((await api.call("POST", "/api/providers", SIM_PROVIDER)).status).toBe(201);
    const text = await reading;
    controller.abort();

    const frame = text.split("\n\n").find((f) => f.startsWith("event: config\n"));
    expect(frame).toBeDefined();
    const data = JSON.parse(
      frame!
        .split("\n")
        .find((l) => l.startsWith("data: "))!
        .slice("data: ".length),
    );
    expect(data).toMatchObject({ type: "config", entity: "provider", id: "sim", action: "created" });
    expect(typeof data.at).toBe("number");
  });

  it("R15.2 the stream needs the admin token and a same-origin caller", async () => {
    const anonymous = await request(`${api.url}/api/events`);
    expect(anonymous.statusCode).toBe(401);
    await anonymous.body.dump();
    const cross = await request(`${api.url}/api/events`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, origin: "http://evil.example" },
    });
    expect(cross.statusCode).toBe(403);
    await cross.body.dump();
  });

  it("R15.2 heartbeats keep the stream alive and closing it unsubscribes from the bus", async () => {
    const bus = createEventBus();
    let subscribers = 0;
    const counted = {
      emit: bus.emit,
      subscribe(listener: Parameters<typeof bus.subscribe>[0]) {
        subscribers += 1;
        const off = bus.subscribe(listener);
        return () => {
          subscribers -= 1;
          off();
        };
      },
    };
    const app = express();
    app.get("/events", sseEventsHandler(counted, 20));
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      const controller = new AbortController();
      const res = await request(`http://127.0.0.1:${(server.address() as AddressInfo).port}/events`, { signal: controller.signal });
      const text = await readUntil(res.body, (t) => (t.match(/: heartbeat\n\n/g) ?? []).length >= 2);
      expect(text.startsWith(": connected\n\n")).toBe(true);
      expect(subscribers).toBe(1);
      controller.abort();
      await expect.poll(() => subscribers).toBe(0);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
