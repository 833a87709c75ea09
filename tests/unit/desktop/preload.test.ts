// R0.1 / R14.3: the preload is the only bridge and exposes the contract and nothing else.
// It is run the way a sandboxed preload runs: as CommonJS whose `require` knows only "electron".
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";
import ts from "typescript";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { CONTRACT, IPC_EVENT_CHANNEL, IPC_INVOKE_CHANNEL } from "../../../shared/contract.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const source = readFileSync(path.join(root, "preload", "index.cts"), "utf8");
const compiled = ts.transpileModule(source, {
  fileName: "index.cts",
  compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
}).outputText;

type Bridge = { invoke(method: unknown, input?: unknown): Promise<unknown>; onEvent(listener: unknown): () => void };

interface Harness {
  exposed: Map<string, unknown>;
  bridge: Bridge;
  /** Every ipcRenderer method called, with its channel. */
  calls: Array<{ fn: string; channel: unknown }>;
  invoke: ReturnType<typeof vi.fn>;
  listeners: Map<string, Set<(...args: unknown[]) => void>>;
}

function loadPreload(reply: (method: unknown, input: unknown) => unknown = (method) => ({ ok: true, value: { echoed: method } })): Harness {
  const exposed = new Map<string, unknown>();
  const calls: Harness["calls"] = [];
  const listeners: Harness["listeners"] = new Map();
  const invoke = vi.fn(async (_channel: unknown, method: unknown, input: unknown) => reply(method, input));
  const known: Record<string, (...args: never[]) => unknown> = {
    invoke,
    on: (channel: string, listener: (...args: unknown[]) => void) => {
      const set = listeners.get(channel) ?? new Set();
      set.add(listener);
      listeners.set(channel, set);
    },
    removeListener: (channel: string, listener: (...args: unknown[]) => void) => {
      listeners.get(channel)?.delete(listener);
    },
  };
  // Any ipcRenderer member the preload touches is recorded, so an extra channel cannot hide.
  const ipcRenderer = new Proxy(
    {},
    {
      get(_target, prop: string) {
        return (channel: unknown, ...rest: unknown[]) => {
          calls.push({ fn: prop, channel });
          const fn = known[prop] as ((...args: unknown[]) => unknown) | undefined;
          return fn ? fn(channel, ...rest) : undefined;
        };
      },
    },
  );
  const electron = {
    contextBridge: { exposeInMainWorld: (key: string, api: unknown) => exposed.set(key, api) },
    ipcRenderer,
  };
  const sandboxRequire = (name: string) => {
    if (name === "electron") return electron;
    throw new Error(`a sandboxed preload cannot require "${name}"`);
  };
  const exported: Record<string, unknown> = {};
  const module = { exports: exported };
  const wrapper = vm.runInThisContext(`(function (exports, require, module) {${compiled}\n})`) as (e: unknown, r: unknown, m: unknown) => void;
  wrapper(module.exports, sandboxRequire, module);
  return { exposed, bridge: exposed.get("switchyard") as Bridge, calls, invoke, listeners };
}

describe("preload bridge", () => {
  let h: Harness;
  beforeEach(() => {
    h = loadPreload();
  });

  it("R0.1 exposes exactly window.switchyard = { invoke, onEvent } and needs nothing but electron", () => {
    expect([...h.exposed.keys()]).toEqual(["switchyard"]);
    expect(Object.keys(h.bridge).sort()).toEqual(["invoke", "onEvent"]);
    expect(typeof h.bridge.invoke).toBe("function");
    expect(typeof h.bridge.onEvent).toBe("function");
    expect(h.calls).toEqual([]);
  });

  it("R14.3 forwards a contract call on the invoke channel and resolves with the value", async () => {
    await expect(h.bridge.invoke("getProvider", { id: "sim" })).resolves.toEqual({ echoed: "getProvider" });
    expect(h.invoke).toHaveBeenCalledWith(IPC_INVOKE_CHANNEL, "getProvider", { id: "sim" });
  });

  it("R14.3 accepts every contract method and sends {} when there is no input", async () => {
    for (const method of Object.keys(CONTRACT)) await h.bridge.invoke(method);
    expect(h.invoke).toHaveBeenCalledTimes(Object.keys(CONTRACT).length);
    expect(h.invoke).toHaveBeenLastCalledWith(IPC_INVOKE_CHANNEL, "advanceClock", {});
  });

  it("R14.3 rejects unknown method names before anything is sent", async () => {
    for (const method of ["dropDatabase", "__proto__", "constructor", "toString", "", 42, null, { name: "listProviders" }]) {
      await expect(h.bridge.invoke(method)).rejects.toEqual({ error: { code: "unknown_method", message: expect.any(String) } });
    }
    expect(h.invoke).not.toHaveBeenCalled();
    expect(h.calls).toEqual([]);
  });

  it("R14.3 rejects input that is not a plain object before sending", async () => {
    for (const input of [[1, 2], "x", 5, null, new Date(0)]) {
      await expect(h.bridge.invoke("createProvider", input)).rejects.toMatchObject({ error: { code: "invalid_request" } });
    }
    expect(h.invoke).not.toHaveBeenCalled();
  });

  it("R14.3 turns a failure reply into a rejection that keeps the error code and path", async () => {
    const failing = loadPreload(() => ({ ok: false, error: { code: "invalid_request", message: "bad id", path: "id" } }));
    await expect(failing.bridge.invoke("getProvider", { id: "" })).rejects.toEqual({ error: { code: "invalid_request", message: "bad id", path: "id" } });
    const malformed = loadPreload(() => "nonsense");
    await expect(malformed.bridge.invoke("listProviders")).rejects.toMatchObject({ error: { code: "ipc_error" } });
  });

  it("R15.2 onEvent delivers only the payload and unsubscribes the same listener", () => {
    const received: unknown[][] = [];
    const off = h.bridge.onEvent((...args: unknown[]) => received.push(args));
    const registered = [...(h.listeners.get(IPC_EVENT_CHANNEL) ?? [])];
    expect(registered).toHaveLength(1);
    const fakeIpcEvent = { sender: { send: () => undefined }, senderFrame: null };
    registered[0]?.(fakeIpcEvent, { type: "config", entity: "provider", id: "sim", action: "created", at: 1 });
    expect(received).toEqual([[{ type: "config", entity: "provider", id: "sim", action: "created", at: 1 }]]);
    off();
    expect(h.listeners.get(IPC_EVENT_CHANNEL)?.size).toBe(0);
    expect(() => h.bridge.onEvent("not a function")).toThrow(TypeError);
  });

  it("R14.3 uses no ipcRenderer member or channel besides invoke/on/removeListener on the two contract channels", async () => {
    await h.bridge.invoke("listProviders");
    h.bridge.onEvent(() => undefined)();
    expect(new Set(h.calls.map((c) => c.fn))).toEqual(new Set(["invoke", "on", "removeListener"]));
    expect(new Set(h.calls.map((c) => c.channel))).toEqual(new Set([IPC_INVOKE_CHANNEL, IPC_EVENT_CHANNEL]));
  });
});
