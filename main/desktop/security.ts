// The window's security rules, kept apart from electron so they are unit-tested under Node.
import { originOf } from "./ipc.js";

/** Same policy as the meta tag of renderer/index.html; main also sends it as a response header. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'";

/** The parts of an Electron navigation event the guards use. */
export interface Preventable {
  preventDefault(): void;
}

/**
 * Guards for every web contents: no navigation or redirect away from the app origin, no
 * <webview>, and window.open never opens a window (http(s) links go to the system browser).
 */
export function webContentsGuards(appOrigin: string, openExternal: (url: string) => void) {
  const stayInApp = (event: Preventable, url: string): void => {
    if (!isAppUrl(url, appOrigin)) event.preventDefault();
  };
  return {
    willNavigate: stayInApp,
    willRedirect: stayInApp,
    willAttachWebview: (event: Preventable): void => event.preventDefault(),
    windowOpen: ({ url }: { url: string }): { action: "deny" } => {
      if (isExternalHttpUrl(url)) openExternal(url);
      return { action: "deny" };
    },
  };
}

/** Navigation is allowed only within the dashboard's own origin. */
export function isAppUrl(url: string, appOrigin: string): boolean {
  return originOf(url) === appOrigin;
}

/** Links the user may open in the system browser; never file:, javascript:, custom schemes. */
export function isExternalHttpUrl(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}

/** Response headers with our CSP, replacing any case variant the server sent. */
export function withContentSecurityPolicy(headers: Record<string, string[]> | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() !== "content-security-policy") out[name] = value;
  }
  out["Content-Security-Policy"] = [CONTENT_SECURITY_POLICY];
  return out;
}

/**
 * The one web permission the window may use: writing the clipboard ("Copy key" on the API keys
 * page), and only for the dashboard's own origin. Camera, notifications, reading the clipboard… no.
 */
export function isAllowedPermission(permission: string, requestingUrl: string, appOrigin: string): boolean {
  return permission === "clipboard-sanitized-write" && isAppUrl(requestingUrl, appOrigin);
}
