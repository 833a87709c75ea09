// Electron entry (R0.1, R14): one instance, the app core from main/app, a sandboxed window on
// the dashboard served by that core, the IPC adapter, and a tray that outlives the window.
// Runs only inside Electron; the headless entry is main/cli.ts.
import { app, BrowserWindow, dialog, ipcMain, Menu, nativeImage, safeStorage, session, shell, Tray, type MenuItemConstructorOptions } from "electron";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { BreakerState } from "../../shared/types.js";
import { buildApp, type SwitchyardApp } from "../app/build.js";
import { createSenderPolicy, forwardEvents, originOf, registerIpc } from "./ipc.js";
import { parseDesktopArgs } from "./options.js";
import { safeStorageCipher } from "./safeStorageCipher.js";
import { isAppUrl, isExternalHttpUrl, withContentSecurityPolicy } from "./security.js";
import { breakersFromHealth, buildTrayMenuTemplate, TRAY_ICON_FILES, trayStateFromBreakers, trayStatusLine, type TrayAction, type TrayMenuItem } from "./trayMenu.js";

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
    void (core?.close() ?? Promise.resolve()).finally(() => {
      closed = true;
      app.quit();
    });
  });

  await app.whenReady();

  // Without a usable OS keychain, buildApp falls back to its own key-file cipher.
  const cipher = safeStorage.isEncryptionAvailable() ? safeStorageCipher(safeStorage) : undefined;
  core = await buildApp({
    home: options.home ?? app.getPath("userData"),
    port: options.port,
    config: options.config,
    demo: options.demo,
    testClock: options.testClock,
    cipher,
  });
  const appUrl = `${core.url}/`;
  const appOrigin = originOf(appUrl);
  if (!appOrigin) throw new Error(`Unexpected app URL: ${appUrl}`);

  hardenSession(appOrigin);
  app.on("web-contents-created", (_event, contents) => {
    contents.on("will-attach-webview", (e) => e.preventDefault());
    contents.on("will-navigate", (e, url) => {
      if (!isAppUrl(url, appOrigin)) e.preventDefault();
    });
    contents.on("will-redirect", (e, url) => {
      if (!isAppUrl(url, appOrigin)) e.preventDefault();
    });
    contents.setWindowOpenHandler(({ url }) => {
      if (isExternalHttpUrl(url)) void shell.openExternal(url);
      return { action: "deny" };
    });
  });

  const mainFrame = () => (win && !win.isDestroyed() ? win.webContents.mainFrame : null);
  cleanups.push(registerIpc(ipcMain, core.handlers, createSenderPolicy({ appOrigin, mainFrame })));
  cleanups.push(forwardEvents(core.bus, () => (win && !win.isDestroyed() ? win.webContents : null)));

  const breakers: Record<string, BreakerState> = breakersFromHealth(await readHealth(core));
  tray = new Tray(trayIcon("healthy"));
  tray.on("click", () => showWindow());
  const refreshTray = () => {
    if (!tray || tray.isDestroyed()) return;
    const state = trayStateFromBreakers(breakers);
    tray.setImage(trayIcon(state.health));
    tray.setToolTip(`Switchyard — ${trayStatusLine(state)}`);
    tray.setContextMenu(Menu.buildFromTemplate(toElectronMenu(buildTrayMenuTemplate(state))));
  };
  refreshTray();
  cleanups.push(
    core.bus.subscribe((event) => {
      if (event.type === "breaker") breakers[event.provider] = event.to;
      else if (event.type === "config" && event.entity === "provider" && event.action === "deleted") delete breakers[event.id];
      else return;
      refreshTray();
    }),
  );

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
      webPreferences: {
        preload: PRELOAD_PATH,
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        webSecurity: true,
        webviewTag: false,
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

  function runTrayAction(action: TrayAction): void {
    if (action === "open-dashboard") showWindow();
    else app.quit();
  }

  function toElectronMenu(items: TrayMenuItem[]): MenuItemConstructorOptions[] {
    return items.map((item) => {
      if (item.type === "separator") return { type: "separator" };
      const id = item.id;
      return {
        id,
        label: item.label,
        enabled: item.enabled,
        click: id === "status" ? undefined : () => runTrayAction(id),
      };
    });
  }
}

/** CSP as a header too (it also covers responses the meta tag cannot), and no permissions at all. */
function hardenSession(appOrigin: string): void {
  const ses = session.defaultSession;
  ses.webRequest.onHeadersReceived({ urls: [`${appOrigin}/*`] }, (details, callback) => {
    callback({ responseHeaders: withContentSecurityPolicy(details.responseHeaders) });
  });
  ses.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  ses.setPermissionCheckHandler(() => false);
}

async function readHealth(core: SwitchyardApp): Promise<unknown> {
  try {
    return await core.handlers.monitoringHealth?.({});
  } catch {
    // The tray starts "healthy" and is corrected by the next breaker event.
    return null;
  }
}

function trayIcon(health: keyof typeof TRAY_ICON_FILES): Electron.NativeImage {
  const image = nativeImage.createFromPath(path.join(ASSETS_DIR, TRAY_ICON_FILES[health]));
  // Trays are drawn at 16–22 px; the 32 px file is the 2x version of a 16 px icon.
  return image.isEmpty() ? image : image.resize({ width: 16, height: 16 });
}
