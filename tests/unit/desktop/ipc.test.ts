// R14.3: main validates every IPC call before a handler runs (VS Code ValidatedIpcMain model).
import { describe, expect, it, vi } from "vitest";
import { CONTRACT, IPC_EVENT_CHANNEL, IPC_INVOKE_CHANNEL } from "../../../shared/contract.js";
import type { SwitchyardEvent } from "../../../shared/types.js";
import { createSenderPolicy, forwardEvents, registerIpc, type InvokeEvent, type IpcReply, type SenderFrame } from "../../../main/desktop/ipc.js";
import { type FakeHandler, fakeHandlers } from "./fakeHandlers.js";

const APP_ORIGIN = "http://127.0.0.1:8642";

function frame(over: Partial<SenderFrame> = {}): SenderFrame {
  return { url: `${APP_ORIGIN}/#/providers`, parent: null, processId: 7, routingId: 1, ...over };
}

function setup(handlers: Record<string, FakeHandler> = {}) {
  const registered = new Map<string, (event: InvokeEvent, ...args: unknown[]) => Promise<unknown>>();
  const ipcMain = {
    handle: vi.fn((channel: string, listener: (event: InvokeEvent, ...args: unknown[]) => Promise<unknown>) => {
      registered.set(channel, listener);
    }),
    removeHandler: vi.fn((channel: string) => {
      registered.delete(channel);
    }),
  };
  const mainFrame = frame();
  const listProviders = vi.fn((input: Record<string, unknown>) => [{ id: "sim", input }]);
  const dispose = registerIpc(ipcMain, fakeHandlers({ listProviders, ...handlers }), createSenderPolicy({ appOrigin: APP_ORIGIN, mainFrame: () => mainFrame }));
  const send = (senderFrame: SenderFrame | null, method: unknown, input?: unknown) => registered.get(IPC_INVOKE_CHANNEL)!({ senderFrame }, method, input) as Promise<IpcReply>;
  return { ipcMain, registered, mainFrame, listProviders, dispose, send };
}

describe("registerIpc", () => {
  it("R14.3 listens on the invoke channel only, and unregisters on dispose", () => {
    const s = setup();
    expect([...s.registered.keys()]).toEqual([IPC_INVOKE_CHANNEL]);
    s.dispose();
    expect(s.ipcMain.removeHandler).toHaveBeenCalledWith(IPC_INVOKE_CHANNEL);
    expect(s.registered.size).toBe(0);
  });

  it("R14.3 a valid call from our window's main frame reaches the handler with its input parsed by the method's schema", async () => {
    const s = setup();
    await expect(s.send(s.mainFrame, "listProviders", { verbose: true })).resolves.toEqual({ ok: true, value: [{ id: "sim", input: {} }] });
    await expect(s.send(frame(), "listProviders")).resolves.toEqual({ ok: true, value: [{ id: "sim", input: {} }] });
    expect(s.listProviders).toHaveBeenCalledTimes(2);
  });

  it("R14.3 rejects a sender whose URL is not our app origin", async () => {
    const s = setup();
    for (const url of ["https://evil.example/", "http://127.0.0.1:9999/", "http://localhost:8642/", "file:///etc/passwd", "about:blank", "not a url"]) {
      const reply = await s.send(frame({ url }), "listProviders");
      expect(reply).toMatchObject({ ok: false, error: { code: "ipc_forbidden" } });
    }
    expect(s.listProviders).not.toHaveBeenCalled();
  });

  it("R14.3 rejects a sub-frame, a frame of another window and a vanished frame", async () => {
    const s = setup();
    const replies = await Promise.all([
      s.send(frame({ parent: s.mainFrame, routingId: 2 }), "listProviders"),
      s.send(frame({ parent: s.mainFrame }), "listProviders"),
      s.send(frame({ routingId: 99 }), "listProviders"),
      s.send(frame({ processId: 8 }), "listProviders"),
      s.send(null, "listProviders"),
    ]);
    for (const reply of replies) expect(reply).toMatchObject({ ok: false, error: { code: "ipc_forbidden" } });
    expect(s.listProviders).not.toHaveBeenCalled();
  });

  it("R14.3 rejects a method that is not in the contract", async () => {
    const s = setup({ dropDatabase: vi.fn() });
    for (const method of ["dropDatabase", "__proto__", "constructor", "hasOwnProperty", 3, null]) {
      expect(await s.send(s.mainFrame, method)).toMatchObject({ ok: false, error: { code: "unknown_method" } });
    }
  });

  it("R14.3 rejects input that is not a plain object", async () => {
    const s = setup();
    for (const input of [[], "x", 1, null, true, new Date(0), new Map()]) {
      expect(await s.send(s.mainFrame, "listProviders", input)).toMatchObject({ ok: false, error: { code: "invalid_request" } });
    }
    expect(await s.send(s.mainFrame, "listProviders", Object.create(null))).toMatchObject({ ok: true });
    expect(s.listProviders).toHaveBeenCalledTimes(1);
  });

  it("R14.3 a contract method without a handler in this mode is not_found", async () => {
    const s = setup();
    expect(Object.keys(CONTRACT)).toContain("advanceClock");
    expect(await s.send(s.mainFrame, "advanceClock", { advanceMs: 1 })).toMatchObject({ ok: false, error: { code: "not_found" } });
  });

  it("R14.3 typed handler failures keep code, message and path, like the HTTP adapter", async () => {
    const apiError = Object.assign(new Error("targets.0.model: unknown model"), { status: 400, code: "invalid_request", path: "targets.0.model" });
    const conflict = Object.assign(new Error("provider sim exists"), { status: 409, code: "conflict" });
    const s = setup({
      createCombo: async () => {
        throw apiError;
      },
      createProvider: () => {
        throw conflict;
      },
    });
    expect(await s.send(s.mainFrame, "createCombo", { name: "x", targets: [{ model: "sim/m1" }] })).toEqual({
      ok: false,
      error: { code: "invalid_request", message: "targets.0.model: unknown model", path: "targets.0.model" },
    });
    expect(await s.send(s.mainFrame, "createProvider", { id: "sim", format: "simulator" })).toEqual({ ok: false, error: { code: "conflict", message: "provider sim exists" } });
  });

  it("R14.3 unexpected handler errors reach the renderer as a bare internal_error and are logged in main", async () => {
    const registered = new Map<string, (event: InvokeEvent, ...args: unknown[]) => Promise<unknown>>();
    const ipcMain = { handle: (c: string, l: (event: InvokeEvent, ...args: unknown[]) => Promise<unknown>) => void registered.set(c, l), removeHandler: () => undefined };
    const onInternalError = vi.fn();
    const secretish = Object.assign(new Error("SQLITE_CORRUPT at /home/me/.switchyard/switchyard.db"), { code: "SQLITE_CORRUPT" });
    registerIpc(
      ipcMain,
      fakeHandlers({
        deleteProvider: () => {
          throw secretish;
        },
      }),
      { ...createSenderPolicy({ appOrigin: APP_ORIGIN, mainFrame: () => frame() }), onInternalError },
    );
    const reply = await registered.get(IPC_INVOKE_CHANNEL)!({ senderFrame: frame() }, "deleteProvider", { id: "sim" });
    expect(reply).toEqual({ ok: false, error: { code: "internal_error", message: "internal error" } });
    expect(onInternalError).toHaveBeenCalledWith(secretish, "deleteProvider");
  });
});

describe("forwardEvents", () => {
  it("R15.2 pushes bus events to the window on the event channel while it lives", () => {
    let listener: ((event: SwitchyardEvent) => void) | null = null;
    const unsubscribe = vi.fn();
    const bus = {
      subscribe: (l: (event: SwitchyardEvent) => void) => {
        listener = l;
        return unsubscribe;
      },
    };
    const target = { destroyed: false, isDestroyed: () => target.destroyed, send: vi.fn() };
    let current: typeof target | null = target;
    const stop = forwardEvents(bus, () => current);
    const event: SwitchyardEvent = { type: "cooldown.cleared", connectionId: "c1", provider: "sim", at: 5 };
    listener!(event);
    expect(target.send).toHaveBeenCalledWith(IPC_EVENT_CHANNEL, event);
    target.destroyed = true;
    listener!(event);
    current = null;
    listener!(event);
    expect(target.send).toHaveBeenCalledTimes(1);
    stop();
    expect(unsubscribe).toHaveBeenCalled();
  });
});
