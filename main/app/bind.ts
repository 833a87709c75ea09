// Where the server listens. Loopback (127.0.0.1) unless the user explicitly names another
// address (`--host`, SWITCHYARD_HOST); then Switchyard warns, answers that address's Host
// names, and requires a client key on every client route whatever the settings say.
import { networkInterfaces, hostname } from "node:os";
import type { AppSettings } from "../../shared/types.js";
import { isLoopbackHostname } from "../api/hostGuard.js";

export const DEFAULT_HOST = "127.0.0.1";
const WILDCARDS = new Set(["0.0.0.0", "::", "[::]"]);

export interface BindPlan {
  /** The address handed to listen(). */
  host: string;
  /** True when other machines may reach the port. */
  exposed: boolean;
  /** Host names accepted besides loopback ones (the DNS-rebinding guard). */
  allowedHostnames: string[];
  /** The host part of the URL printed for the user. */
  urlHost: string;
  warning: string | null;
}

function bracketed(address: string): string {
  return address.includes(":") && !address.startsWith("[") ? `[${address}]` : address;
}

function localAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => bracketed(i.address).toLowerCase()));
}

export function planBind(requested: string | undefined): BindPlan {
  const host = requested?.trim() || DEFAULT_HOST;
  const name = bracketed(host).toLowerCase();
  if (isLoopbackHostname(name)) return { host, exposed: false, allowedHostnames: [], urlHost: bracketed(host), warning: null };
  const wildcard = WILDCARDS.has(host);
  const allowedHostnames = wildcard ? [...localAddresses(), hostname().toLowerCase()] : [name];
  return {
    host: host === "[::]" ? "::" : host,
    exposed: true,
    allowedHostnames,
    urlHost: wildcard ? DEFAULT_HOST : bracketed(host),
    warning:
      `WARNING: listening on ${host}, not only on this machine: anyone who can reach the port may call it. ` +
      "Client keys are required on every client route (create one with POST /api/keys or on the API keys page).",
  };
}

/** The settings the client routes read: `requireClientKey` forced on while the port is exposed. */
export function clientRouteSettings(plan: BindPlan, settings: () => AppSettings): () => AppSettings {
  if (!plan.exposed) return settings;
  let seen: AppSettings | null = null;
  let forced: AppSettings | null = null;
  return () => {
    const current = settings();
    if (current !== seen || !forced) {
      seen = current;
      forced = { ...current, requireClientKey: true };
    }
    return forced;
  };
}
