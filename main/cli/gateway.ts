// Which Switchyard `switchyard run` and `switchyard connect` point an agent at, the key the agent
// presents there, and the models it serves (API.md "CLI beside the server", R23.2).
//
// The address: --url, else SWITCHYARD_URL, else the running instance of the home (its
// instance.json, as `switchyard status` finds it), else http://127.0.0.1:8642.
// The key: SWITCHYARD_API_KEY when set; else, when the instance requires client keys (read with the
// admin token this machine's CLI already has), a key minted once for the CLI and kept in
// <home>/cli-client-key.json (0600); else a placeholder that a loopback instance ignores.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { errorCode, isRecord } from "../../shared/records.js";
import { processAlive, readAdminToken, readInstanceFile } from "../app/instanceFile.js";
import { CliError } from "./remote.js";

export const DEFAULT_URL = "http://127.0.0.1:8642";
/** What an agent that insists on a key gets when Switchyard needs none (the Connect page's placeholder too). */
export const PLACEHOLDER_KEY = "switchyard";
const KEY_FILE = "cli-client-key.json";
const LOOKUP_MS = 3_000;
/** How GET /v1/models marks a combo. */
const COMBO_OWNER = "switchyard-combo";

/** Bad input: one line on stderr, exit status 2, nothing written. */
export class UsageError extends Error {}

export interface Gateway {
  /** The origin, without a trailing slash or /v1. */
  url: string;
  /** The key to present where the agent needs one: a Switchyard key, or the placeholder. */
  key: string;
  /** True when `key` is a real Switchyard key (SWITCHYARD_API_KEY, or the instance requires one). */
  keyRequired: boolean;
  /** Why nothing answered at `url` when it was looked up (the agent is started all the same), else null. */
  unreachable: string | null;
  /** The model ids Switchyard serves (GET /v1/models), its combos first. */
  models(): Promise<string[]>;
  /** R25.3: each listed model's context window where Switchyard knows it (a combo's: its largest target's). */
  windows(): Promise<ReadonlyMap<string, number>>;
}

/** `http://host:port` from what the user typed: a missing scheme means http, trailing slashes and a trailing /v1 go. */
export function normaliseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`);
  } catch {
    throw new UsageError(`not a URL: ${raw} (expected e.g. http://127.0.0.1:8642)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError(`not an http(s) URL: ${raw}`);
  return (url.origin + url.pathname).replace(/\/+$/, "").replace(/\/v1$/, "");
}

export function gatewayUrl(explicit: string | undefined, home: string, env: NodeJS.ProcessEnv): string {
  if (explicit) return normaliseUrl(explicit);
  if (env.SWITCHYARD_URL) return normaliseUrl(env.SWITCHYARD_URL);
  const info = readInstanceFile(home);
  if (info && processAlive(info.pid)) return normaliseUrl(info.url);
  return DEFAULT_URL;
}

async function request(url: string, init: RequestInit = {}): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(LOOKUP_MS) });
  } catch (err) {
    const code = errorCode(err instanceof Error ? err.cause : undefined);
    throw new CliError(
      `cannot reach Switchyard at ${new URL(url).origin} (${typeof code === "string" ? code : err instanceof Error ? err.message : String(err)}). Is it running? Start it with \`switchyard serve\`, or pass --url.`,
    );
  }
}

/** The instance's requireClientKey, or null when it cannot be read (no admin token here, another instance, not running). */
async function requiresKey(url: string, token: string): Promise<boolean | null> {
  try {
    const res = await request(`${url}/api/settings`, { headers: { authorization: `Bearer ${token}` } });
    if (!res.ok) return null;
    const settings: unknown = await res.json();
    return isRecord(settings) && settings.requireClientKey === true;
  } catch {
    return null;
  }
}

interface StoredKey {
  url: string;
  id: string;
  key: string;
}

function readStoredKey(file: string, url: string): StoredKey | null {
  if (!existsSync(file)) return null;
  try {
    const value: unknown = JSON.parse(readFileSync(file, "utf8"));
    if (isRecord(value) && value.url === url && typeof value.id === "string" && typeof value.key === "string") return { url, id: value.id, key: value.key };
  } catch {
    // A damaged file is replaced by a fresh key below.
  }
  return null;
}

/** The CLI's own client key for this instance: the stored one while the instance still lists it, else a new one. */
async function cliKey(url: string, token: string, home: string): Promise<string> {
  const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const file = path.join(home, KEY_FILE);
  const stored = readStoredKey(file, url);
  if (stored) {
    const res = await request(`${url}/api/keys`, { headers: auth });
    const list: unknown = res.ok ? await res.json() : null;
    if (Array.isArray(list) && list.some((k) => isRecord(k) && k.id === stored.id)) return stored.key;
  }
  const res = await request(`${url}/api/keys`, { method: "POST", headers: auth, body: JSON.stringify({ name: "switchyard run/connect (this machine's CLI)" }) });
  if (!res.ok) throw new CliError(`Switchyard at ${url} requires a client key and would not create one (${res.status}); set SWITCHYARD_API_KEY to a key from the Connect page.`);
  const created: unknown = await res.json();
  if (!isRecord(created) || typeof created.id !== "string" || typeof created.key !== "string") throw new CliError(`Switchyard at ${url} answered POST /api/keys without a key`);
  writeFileSync(file, JSON.stringify({ url, id: created.id, key: created.key }) + "\n", { mode: 0o600 });
  return created.key;
}

export async function resolveGateway(opts: { url: string | undefined; home: string; env: NodeJS.ProcessEnv }): Promise<Gateway> {
  const url = gatewayUrl(opts.url, opts.home, opts.env);
  let key = PLACEHOLDER_KEY;
  let keyRequired = false;
  const given = opts.env.SWITCHYARD_API_KEY?.trim();
  if (given) {
    key = given;
    keyRequired = true;
  } else {
    const token = readAdminToken(opts.home, opts.env);
    if (token && (await requiresKey(url, token))) {
      key = await cliKey(url, token, opts.home);
      keyRequired = true;
    }
  }
  const unreachable = keyRequired ? null : await probe(url);
  let listed: Promise<ModelList> | null = null;
  const list = () => (listed ??= listModels(url, keyRequired ? key : null));
  return { url, key, keyRequired, unreachable, models: async () => (await list()).ids, windows: async () => (await list()).windows };
}

/**
 * One keyless look at the client routes: a refusal means the instance wants a key this CLI does not
 * have (better said now than by the agent as "invalid API key"); no answer is reported, not fatal.
 */
async function probe(url: string): Promise<string | null> {
  let res: Response;
  try {
    res = await request(`${url}/v1/models`);
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  await res.body?.cancel();
  if (res.status === 401)
    throw new CliError(
      `Switchyard at ${url} requires a client key: set SWITCHYARD_API_KEY to one (Connect page: "Create a key for these tools"), or give this CLI the instance's admin token (SWITCHYARD_ADMIN_TOKEN, or --home of its data folder) so it makes one.`,
    );
  return null;
}

interface ModelList {
  ids: string[];
  windows: ReadonlyMap<string, number>;
}

async function listModels(url: string, key: string | null): Promise<ModelList> {
  const res = await request(`${url}/v1/models`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  const body: unknown = res.ok ? await res.json() : null;
  const data = isRecord(body) && Array.isArray(body.data) ? body.data : null;
  if (!data) throw new CliError(`Switchyard at ${url} did not list its models (GET /v1/models answered ${res.status}).`);
  // Combos first: they are what the user composed, and they fail over.
  const entries = data.filter(isRecord).filter((m): m is Record<string, unknown> & { id: string } => typeof m.id === "string");
  const ids = [...entries.filter((m) => m.owned_by === COMBO_OWNER), ...entries.filter((m) => m.owned_by !== COMBO_OWNER)].map((m) => m.id);
  if (ids.length === 0) throw new CliError(`Switchyard at ${url} serves no model yet: add a provider (or start the demo) first.`);
  const windows = new Map<string, number>();
  for (const m of entries) if (typeof m.context_window === "number" && m.context_window > 0) windows.set(m.id, m.context_window);
  return { ids, windows };
}
