// R14.3: the IPC adapter serves the very handlers the HTTP API serves, so every payload that
// arrives over IPC is validated by the same zod schemas and fails with the same code and path.
// Builds the real app in-process (temp home, ephemeral port) with a mocked ipcMain.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IPC_INVOKE_CHANNEL } from "../../../shared/contract.js";
import { buildApp, type SwitchyardApp } from "../../../main/app/build.js";
import { createSenderPolicy, registerIpc, type InvokeEvent, type IpcReply, type SenderFrame } from "../../../main/desktop/ipc.js";

describe("IPC reaches the same validated handlers as HTTP", () => {
  let home: string;
  let core: SwitchyardApp;
  let invoke: (method: string, input?: unknown) => Promise<IpcReply>;
  let frame: SenderFrame;

  beforeAll(async () => {
    home = mkdtempSync(path.join(tmpdir(), "switchyard-ipc-"));
    core = await buildApp({ port: 0, home, env: { SWITCHYARD_ADMIN_TOKEN: "ipc-test-token" }, quiet: true });
    frame = { url: `${core.url}/#/cooldowns`, parent: null, processId: 3, routingId: 1 };
    let listener: ((event: InvokeEvent, ...args: unknown[]) => Promise<unknown>) | null = null;
    const ipcMain = {
      handle: (channel: string, fn: typeof listener) => {
        if (channel === IPC_INVOKE_CHANNEL) listener = fn;
      },
      removeHandler: () => {
        listener = null;
      },
    };
    registerIpc(ipcMain, core.handlers, createSenderPolicy({ appOrigin: new URL(core.url).origin, mainFrame: () => frame }));
    invoke = (method, input) => listener!({ senderFrame: frame }, method, input) as Promise<IpcReply>;
  }, 30_000);

  afterAll(async () => {
    await core?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  async function http(verb: string, route: string, body: unknown): Promise<{ status: number; body: unknown }> {
    const res = await fetch(core.url + route, {
      method: verb,
      headers: { Authorization: "Bearer ipc-test-token", "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  }

  const invalidCalls: Array<[string, string, string, unknown]> = [
    ["patchResilience", "PATCH", "/api/resilience", { modelLockout: { baseCooldownMs: "soon" } }],
    ["patchResilience", "PATCH", "/api/resilience", { modelLockout: { baseCooldwnMs: 5_000 } }],
    ["clearCooldowns", "POST", "/api/resilience/cooldowns", {}],
    ["clearModelCooldowns", "DELETE", "/api/resilience/model-cooldowns", { provider: "sim" }],
    ["patchSettings", "PATCH", "/api/settings", { providerErrorRules: [{ provider: "sim", scope: "connection" }] }],
    ["createCombo", "POST", "/api/combos", { name: "c", strategy: "fastest", targets: [{ model: "sim/m1" }] }],
  ];

  it.each(invalidCalls)("R14.3 %s with an invalid payload fails over IPC exactly as over HTTP", async (method, verb, route, body) => {
    const [overIpc, overHttp] = await Promise.all([invoke(method, body), http(verb, route, body)]);
    expect(overHttp.status).toBe(400);
    expect(overIpc).toEqual({ ok: false, ...(overHttp.body as object) });
    expect(overIpc).toMatchObject({ ok: false, error: { code: "invalid_request", path: expect.any(String) } });
  });

  it("R14.3 a valid IPC call changes the same state the HTTP API reads", async () => {
    const reply = await invoke("patchResilience", { modelLockout: { enabled: true, baseCooldownMs: 1 } });
    expect(reply).toMatchObject({ ok: true, value: { modelLockout: { enabled: true, baseCooldownMs: 5_000 } } });
    const res = await fetch(`${core.url}/api/resilience`, { headers: { Authorization: "Bearer ipc-test-token" } });
    expect(((await res.json()) as { modelLockout: unknown }).modelLockout).toMatchObject({ enabled: true, baseCooldownMs: 5_000 });
  });

  it("R14.3 the sender is checked before the payload: a foreign frame never reaches validation", async () => {
    const listenerFrame = { ...frame, url: "https://evil.example/" };
    frame = listenerFrame;
    try {
      expect(await invoke("clearCooldowns", {})).toMatchObject({ ok: false, error: { code: "ipc_forbidden" } });
    } finally {
      frame = { ...listenerFrame, url: `${core.url}/` };
    }
  });
});
