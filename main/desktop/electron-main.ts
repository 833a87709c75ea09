// Electron entry (R0.1, R14): one instance, the app core from main/app, a sandboxed window on
// the dashboard served by that core, the IPC adapter, and a tray that outlives the window.
// Runs only inside Electron; the headless entry is main/cli.ts.
import { app, BrowserWindow, clipboard, dialog, ipcMain, Menu, nativeImage, Notification, safeStorage, session, shell, Tray } from "electron";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildApp, type SwitchyardApp } from "../app/build.js";
import { applyServingHeapPolicy } from "../app/heapPolicy.js";
import { removeInstanceFile, writeInstanceFile } from "../app/instanceFile.js";
import { startMemoryReducer } from "../app/memoryReducer.js";
import { VERSION } from "../app/version.js";
import { createSenderPolicy, forwardEvents, originOf, registerIpc } from "./ipc.js";
import { parseDesktopArgs } from "./options.js";
import { safeStorageCipher } from "./safeStorageCipher.js";
import { isAllowedPermission, webContentsGuards, withContentSecurityPolicy } from "./security.js";
import { createTrayController } from "./trayController.js";
import { TRAY_ICON_FILES, toNativeMenu } from "./trayMenu.js";

const here = path.dirname(fileURLToPath(import.meta.url));
// dist/main/desktop -> dist/preload and <root>/assets, the same inside app.asar.
const PRELOAD_PATH = path.join(here, "..", "..", "preload", "index.cjs");
const ASSETS_DIR = path.join(here, "..", "..", "..", "assets");

const options = parseDesktopArgs(process.argv.slice(1), process.env);

if (!app.requestSingleInstanceLock()) {
  // A second launch only brings the running instance forward (handled there by "second-instance").
  app.quit();
} else {
  void start().catch((err: unknown) => {
    dialog.showErrorBox("Switchyard could not start", err instanceof Error ? err.message : String(err));
    app.exit(1);
  });
}

async function start(): Promise<void> {
  let core: SwitchyardApp | null = null;
  let win: BrowserWindow | null = null;
  let tray: Tray | null = null;
  let quitting = false;
  let closed = false;
  const cleanups: Array<() => void> = [];

  app.on("second-instance", () => showWindow());
  app.on("activate", () => showWindow());
  // Closing the last window must not quit: Switchyard keeps proxying from the tray.
  app.on("window-all-closed", () => undefined);
  app.on("before-quit", () => {
    quitting = true;
  });
  app.on("will-quit", (event) => {
    if (closed) return;
    event.preventDefault();
    for (const cleanup of cleanups.splice(0)) cleanup();
    tray?.destroy();
    if (core) removeInstanceFile(core.home);
    void (core?.close() ?? Promise.resolve()).finally(() => {
      closed = true;
      app.quit();
    });
  });

  await app.whenReady();

  // Without a usable OS keychain, buildApp falls back to its own key-file cipher.
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- the store's SecretCipher is synchronous; Electron 45 still ships the sync safeStorage API
  const cipher = safeStorage.isEncryptionAvailable() ? safeStorageCipher(safeStorage) : undefined;
  applyServingHeapPolicy();
  core = await buildApp({
    home: options.home ?? app.getPath("userData"),
    port: options.port,
    config: options.config,
    demo: options.demo,
    testClock: options.testClock,
    cipher,
  });
  startMemoryReducer();
  // The CLI's status/reset/export/import find the app through it, as they find `serve`.
  writeInstanceFile(core.home, { url: core.url, pid: process.pid, startedAt: Date.now(), version: VERSION });
  const appUrl = `${core.url}/`;
  const appOrigin = originOf(appUrl);
  if (!appOrigin) throw new Error(`Unexpected app URL: ${appUrl}`);

  hardenSession(appOrigin);
  const guards = webContentsGuards(appOrigin, (url) => void shell.openExternal(url));
  app.on("web-contents-created", (_event, contents) => {
    contents.on("will-attach-webview", (e) => guards.willAttachWebview(e));
    contents.on("will-navigate", (e, url) => guards.willNavigate(e, url));
    contents.on("will-redirect", (e, url) => guards.willRedirect(e, url));
    contents.setWindowOpenHandler(guards.windowOpen);
  });

  const mainFrame = () => (win && !win.isDestroyed() ? win.webContents.mainFrame : null);
  cleanups.push(registerIpc(ipcMain, core.handlers, createSenderPolicy({ appOrigin, mainFrame })));
  cleanups.push(forwardEvents(core.bus, () => (win && !win.isDestroyed() ? win.webContents : null)));

  tray = new Tray(trayIcon("healthy"));
  tray.on("click", () => showWindow());
  // The tray acts through core.handlers: the same validated handlers as IPC and HTTP.
  const trayController = createTrayController({
    handlers: core.handlers,
    bus: core.bus,
    endpoint: `${core.url}/v1`,
    effects: {
      render({ health, tooltip, menu }) {
        if (!tray || tray.isDestroyed()) return;
        tray.setImage(trayIcon(health));
        tray.setToolTip(tooltip);
        tray.setContextMenu(Menu.buildFromTemplate(toNativeMenu(menu, (action) => void trayController.run(action))));
      },
      showWindow: () => showWindow(),
      quit: () => app.quit(),
      copyText: (text) => clipboard.writeText(text),
      notify(title, body) {
        if (!Notification.isSupported()) return;
        const notification = new Notification({ title, body, icon: path.join(ASSETS_DIR, "icon.png") });
        notification.on("click", () => showWindow());
        notification.show();
      },
    },
  });
  cleanups.push(() => trayController.dispose());
  await trayController.start();

  if (!options.hidden) showWindow();

  function createWindow(): BrowserWindow {
    const created = new BrowserWindow({
      width: 1200,
      height: 800,
      minWidth: 960,
      minHeight: 600,
      show: false,
      title: "Switchyard",
      icon: path.join(ASSETS_DIR, "icon.png"),
      // Spelled out here (not spread from a constant) so electronegativity can read each value.
      webPreferences: {
        preload: PRELOAD_PATH,
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        nodeIntegrationInWorker: false,
        nodeIntegrationInSubFrames: false,
        webSecurity: true,
        allowRunningInsecureContent: false,
        experimentalFeatures: false,
        webviewTag: false,
        navigateOnDragDrop: false,
        disableBlinkFeatures: "Auxclick",
        spellcheck: false,
      },
    });
    created.once("ready-to-show", () => created.show());
    created.on("close", (event) => {
      if (quitting) return;
      event.preventDefault();
      created.hide();
    });
    created.on("closed", () => {
      if (win === created) win = null;
    });
    void created.loadURL(appUrl);
    return created;
  }

  function showWindow(): void {
    if (!core) return;
    if (!win || win.isDestroyed()) {
      win = createWindow();
      return;
    }
    if (win.isMinimized()) win.restore();
    win.show();
    win.focus();
  }
}

/** CSP as a header too (it also covers responses the meta tag cannot), and no permission but writing the clipboard. */
function hardenSession(appOrigin: string): void {
  const ses = session.defaultSession;
  ses.webRequest.onHeadersReceived({ urls: [`${appOrigin}/*`] }, (details, callback) => {
    callback({ responseHeaders: withContentSecurityPolicy(details.responseHeaders) });
  });
  ses.setPermissionRequestHandler((contents, permission, callback, details) => callback(isAllowedPermission(permission, details.requestingUrl ?? contents.getURL(), appOrigin)));
  ses.setPermissionCheckHandler((_contents, permission, requestingOrigin) => isAllowedPermission(permission, requestingOrigin, appOrigin));
}

function trayIcon(health: keyof typeof TRAY_ICON_FILES): Electron.NativeImage {
  const image = nativeImage.createFromPath(path.join(ASSETS_DIR, TRAY_ICON_FILES[health]));
  // Trays are drawn at 16–22 px; the 32 px file is the 2x version of a 16 px icon.
  return image.isEmpty() ? image : image.resize({ width: 16, height: 16 });
}
