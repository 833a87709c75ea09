// R0.2 / R14.3: the renderer reaches the contract through either transport with one behaviour.
import { describe, expect, it, vi } from "vitest";
import type { SwitchyardEvent } from "../../../shared/types.js";
import { ContractCallError } from "../../../renderer/src/callError.js";
import { buildHttpRequest, createHttpTransport, EVENTS_PATH, pumpEvents } from "../../../renderer/src/httpTransport.js";
import { createIpcTransport } from "../../../renderer/src/ipcTransport.js";
import type { SwitchyardBridge } from "../../../renderer/src/bridge.js";
import type { ContractError } from "../../../shared/contract.js";
import type { EventStreamState } from "../../../renderer/src/transportTypes.js";

const encoder = new TextEncoder();

function sseBody(chunks: string[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

const EVENT_A: SwitchyardEvent = { type: "config", entity: "connection", id: "c1", action: "created", at: 1 };
const EVENT_B: SwitchyardEvent = { type: "breaker", provider: "sim", from: "CLOSED", to: "OPEN", at: 2 };

describe("buildHttpRequest", () => {
  it("R0.2 fills :params from the input and URL-encodes them", () => {
    expect(buildHttpRequest("getProvider", { id: "a b/c" })).toEqual({ verb: "GET", url: "/api/providers/a%20b%2Fc", body: undefined });
    expect(buildHttpRequest("deleteConnection", { id: 7 })).toEqual({ verb: "DELETE", url: "/api/connections/7", body: undefined });
  });

  it("R0.2 sends the rest of the input as the JSON body for body methods", () => {
    expect(buildHttpRequest("updateCombo", { name: "fast", strategy: "priority" })).toEqual({ verb: "PATCH", url: "/api/combos/fast", body: '{"strategy":"priority"}' });
    expect(buildHttpRequest("resetBreakers")).toEqual({ verb: "POST", url: "/api/resilience/reset", body: "{}" });
  });

  it("R0.2 sends the rest as the query string for query methods, skipping empty values", () => {
    expect(buildHttpRequest("listConnections", { provider: "sim" }).url).toBe("/api/connections?provider=sim");
    expect(buildHttpRequest("listLogs", { limit: 5, provider: undefined, tag: ["a", "b"] }).url).toBe("/api/logs?limit=5&tag=a&tag=b");
    expect(buildHttpRequest("listConnections").url).toBe("/api/connections");
  });

  it("R0.2 ignores extra input for methods without input and refuses a missing path param", () => {
    expect(buildHttpRequest("listProviders", { junk: 1 })).toEqual({ verb: "GET", url: "/api/providers", body: undefined });
    expect(() => buildHttpRequest("getProvider", {})).toThrow(ContractCallError);
  });
});

describe("HTTP transport", () => {
  it("R0.2 calls verb+path with the admin token and parses the JSON result", async () => {
    const fetchMock = vi.fn(async (_url: string | URL | Request, _init?: RequestInit) => new Response('{"id":"sim"}', { status: 201 }));
    const transport = createHttpTransport({ token: "tok-1", baseUrl: "http://127.0.0.1:1", fetch: fetchMock });
    await expect(transport.call("createProvider", { id: "sim", format: "simulator" })).resolves.toEqual({ id: "sim" });
    const [url, init] = fetchMock.mock.calls[0];
    expect(url).toBe("http://127.0.0.1:1/api/providers");
    expect(init).toMatchObject({ method: "POST", body: '{"id":"sim","format":"simulator"}', headers: { Authorization: "Bearer tok-1", "Content-Type": "application/json" } });
  });

  it("R10.1 turns an API error body into a ContractCallError with code, status and path", async () => {
    const body = JSON.stringify({ error: { code: "invalid_request", message: "models must be an array", path: "models" } });
    const transport = createHttpTransport({ token: "t", fetch: async () => new Response(body, { status: 400 }) });
    const err = await transport.call("createProvider", { id: "x", format: "openai" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContractCallError);
    expect(err).toMatchObject({ code: "invalid_request", status: 400, path: "models", message: "models must be an array" });
  });

  it("API.md a refused token is reported to the session", async () => {
    const onUnauthorized = vi.fn();
    const transport = createHttpTransport({ token: "old", onUnauthorized, fetch: async () => new Response('{"error":{"code":"unauthorized","message":"no"}}', { status: 401 }) });
    await expect(transport.call("listProviders")).rejects.toMatchObject({ status: 401, code: "unauthorized" });
    expect(onUnauthorized).toHaveBeenCalledTimes(1);
  });

  it("R15.2 streams events from GET /api/events with the token and reconnects after the stream ends", async () => {
    const requests: Array<{ url: string; headers: unknown }> = [];
    let opened = 0;
    const fetchMock = (async (url: string, init?: RequestInit) => {
      requests.push({ url, headers: init?.headers });
      opened += 1;
      // The first stream splits an event across chunks and carries junk; the second one stays open.
      if (opened === 1)
        return new Response(sseBody([": hello\n\n", `data: ${JSON.stringify(EVENT_A).slice(0, 10)}`, `${JSON.stringify(EVENT_A).slice(10)}\n\n`, "data: not json\n\n"]), {
          status: 200,
        });
      return new Response(
        new ReadableStream({
          start(controller) {
            controller.enqueue(encoder.encode(`event: breaker\ndata: ${JSON.stringify(EVENT_B)}\n\n`));
          },
        }),
        { status: 200 },
      );
    }) as typeof fetch;
    const events: SwitchyardEvent[] = [];
    const states: EventStreamState[] = [];
    const transport = createHttpTransport({ token: "tok", baseUrl: "http://h", fetch: fetchMock, reconnectDelays: [0] });
    const stop = transport.subscribe(
      (e) => events.push(e),
      (s) => states.push(s),
    );
    await vi.waitFor(() => expect(events).toHaveLength(2));
    expect(events).toEqual([EVENT_A, EVENT_B]);
    expect(requests[0]).toEqual({ url: `http://h${EVENTS_PATH}`, headers: { Authorization: "Bearer tok", Accept: "text/event-stream" } });
    expect(states.slice(0, 4)).toEqual(["connecting", "open", "reconnecting", "open"]);
    stop();
    await vi.waitFor(() => expect(states.at(-1)).toBe("closed"));
  });

  it("R15.2 stops streaming on 401 instead of retrying forever", async () => {
    const onUnauthorized = vi.fn();
    const fetchMock = vi.fn(async () => new Response("", { status: 401 }));
    const states: EventStreamState[] = [];
    createHttpTransport({ token: "t", fetch: fetchMock, onUnauthorized, reconnectDelays: [0] }).subscribe(
      () => undefined,
      (s) => states.push(s),
    );
    await vi.waitFor(() => expect(states.at(-1)).toBe("closed"));
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(onUnauthorized).toHaveBeenCalledTimes(1);
  });

  it("R15.2 pumpEvents ignores comments and events without a type", async () => {
    const seen: SwitchyardEvent[] = [];
    await pumpEvents(sseBody([": ping\n\n", 'data: {"no":"type"}\n\n', `data: ${JSON.stringify(EVENT_B)}\n\n`]), (e) => seen.push(e));
    expect(seen).toEqual([EVENT_B]);
  });
});

describe("IPC transport", () => {
  it("R14.3 calls the bridge and maps its ContractError rejection to ContractCallError", async () => {
    const bridge = {
      invoke: vi.fn(async (method: string) => {
        const notFound: ContractError = { error: { code: "not_found", message: "no provider x" } };
        if (method === "getProvider") throw notFound;
        return [];
      }),
      onEvent: vi.fn(() => () => undefined),
    };
    // The fake answers every method with one shape; the real bridge is typed by method.
    const transport = createIpcTransport(bridge as unknown as SwitchyardBridge);
    await expect(transport.call("listProviders")).resolves.toEqual([]);
    // An absent input is left for the preload to send as {} (see preload.test.ts).
    expect(bridge.invoke).toHaveBeenCalledWith("listProviders");
    await expect(transport.call("getProvider", { id: "x" })).rejects.toMatchObject({ code: "not_found", message: "no provider x", status: null });
  });

  it("R15.2 delivers pushed events and reports the stream open and closed", () => {
    let push: ((event: SwitchyardEvent) => void) | null = null;
    const off = vi.fn();
    const transport = createIpcTransport({
      invoke: vi.fn(),
      onEvent: (listener) => {
        push = listener;
        return off;
      },
    });
    const events: SwitchyardEvent[] = [];
    const states: EventStreamState[] = [];
    const stop = transport.subscribe(
      (e) => events.push(e),
      (s) => states.push(s),
    );
    push!(EVENT_A);
    stop();
    expect(events).toEqual([EVENT_A]);
    expect(states).toEqual(["open", "closed"]);
    expect(off).toHaveBeenCalled();
  });
});
