// Issue 13 item 5 (Electron): each hardening rule of the window, asserted on the pure pieces that
// electron-main.ts wires (this runs under plain Node; the Electron binary cannot run here), plus
// a check that electron-main.ts really wires each one.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { webContentsGuards } from "../../../main/desktop/security.js";
import { createSenderPolicy } from "../../../main/desktop/ipc.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const mainSource = readFileSync(`${root}/main/desktop/electron-main.ts`, "utf8");
const APP = "http://127.0.0.1:8642";

function event() {
  let prevented = false;
  return {
    preventDefault: () => void (prevented = true),
    get prevented() {
      return prevented;
    },
  };
}

describe("Electron window hardening", () => {
  it("R0.1 the window runs with contextIsolation, the sandbox, and no nodeIntegration anywhere", () => {
    const block = /new BrowserWindow\(\{[^]*?webPreferences: \{([^}]*)\}/.exec(mainSource)?.[1] ?? "";
    const prefs = Object.fromEntries([...block.matchAll(/^\s*(\w+): ([^,\n]+),/gm)].map((m) => [m[1], m[2]]));
    expect(prefs).toMatchObject({
      contextIsolation: "true",
      sandbox: "true",
      nodeIntegration: "false",
      nodeIntegrationInWorker: "false",
      nodeIntegrationInSubFrames: "false",
      webSecurity: "true",
      allowRunningInsecureContent: "false",
      webviewTag: "false",
      preload: "PRELOAD_PATH",
    });
    // Exactly one BrowserWindow, and no second webPreferences that could differ.
    expect(mainSource.match(/new BrowserWindow\(/g)).toHaveLength(1);
    expect(mainSource.match(/webPreferences:/g)).toHaveLength(1);
  });

  it("R0.1 navigation and redirects leave the app origin never; same-origin ones go ahead", () => {
    const guards = webContentsGuards(APP, () => undefined);
    for (const url of ["https://evil.example/", "http://127.0.0.1:9999/", "file:///etc/passwd", "javascript:alert(1)", "not a url"]) {
      const e = event();
      guards.willNavigate(e, url);
      expect(e.prevented, url).toBe(true);
      const r = event();
      guards.willRedirect(r, url);
      expect(r.prevented, url).toBe(true);
    }
    const ok = event();
    guards.willNavigate(ok, `${APP}/#/combos`);
    expect(ok.prevented).toBe(false);
    expect(mainSource).toContain('contents.on("will-navigate", (e, url) => guards.willNavigate(e, url))');
    expect(mainSource).toContain('contents.on("will-redirect", (e, url) => guards.willRedirect(e, url))');
  });

  it("R0.1 window.open never opens a window: http(s) links go to the system browser, other schemes nowhere", () => {
    const opened: string[] = [];
    const guards = webContentsGuards(APP, (url) => opened.push(url));
    for (const url of ["https://docs.example/x", "http://127.0.0.1:8642/", "file:///etc/passwd", "javascript:alert(1)", "smb://host/share"]) {
      expect(guards.windowOpen({ url })).toEqual({ action: "deny" });
    }
    expect(opened).toEqual(["https://docs.example/x", "http://127.0.0.1:8642/"]);
    const attach = event();
    guards.willAttachWebview(attach);
    expect(attach.prevented).toBe(true);
    expect(mainSource).toContain("contents.setWindowOpenHandler(guards.windowOpen)");
    expect(mainSource).toContain('contents.on("will-attach-webview", (e) => guards.willAttachWebview(e))');
  });

  it("R14.3 IPC answers only our window's main frame on our origin", () => {
    const frame = { url: `${APP}/`, parent: null, processId: 1, routingId: 1 };
    const policy = createSenderPolicy({ appOrigin: APP, mainFrame: () => frame });
    expect(policy.isTrustedSender(frame)).toBe(true);
    expect(policy.isTrustedSender({ ...frame, url: "https://evil.example/" })).toBe(false);
    expect(createSenderPolicy({ appOrigin: APP, mainFrame: () => null }).isTrustedSender(frame)).toBe(false);
    expect(policy.isTrustedSender({ ...frame, routingId: 2 })).toBe(false);
    expect(mainSource).toContain("registerIpc(ipcMain, core.handlers, createSenderPolicy({ appOrigin, mainFrame }))");
  });

  it("R0.1 the CSP is sent as a response header on every app response, and no permission but clipboard writing", () => {
    expect(mainSource).toMatch(/onHeadersReceived\(\{ urls: \[`\$\{appOrigin\}\/\*`\] \}[^]*withContentSecurityPolicy/);
    expect(mainSource).toContain("setPermissionRequestHandler");
    expect(mainSource).toContain("setPermissionCheckHandler");
  });
});
