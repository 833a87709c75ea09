// The CLI commands that talk to a running instance over its management API (API.md): status,
// reset, export, import. The instance is found through <home>/instance.json, the admin token
// through SWITCHYARD_ADMIN_TOKEN or <home>/admin-token, as the dashboard line prints it.
import { readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import type { ConfigImportPreview, ConfigImportResponse, CooldownRow, MonitoringHealth, ModelLockoutItem } from "../../shared/apiTypes.js";
import { errorCode, isRecord } from "../../shared/records.js";
import { INSTANCE_FILE, processAlive, readAdminToken, readInstanceFile } from "../app/instanceFile.js";

/** A failure the user can act on; the message is printed as it is, exit status 1. */
export class CliError extends Error {}

export interface Remote {
  url: string;
  call<T>(method: string, route: string, body?: unknown): Promise<T>;
  text(route: string): Promise<string>;
}

export function homeOf(explicit: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(explicit ?? env.SWITCHYARD_HOME ?? path.join(homedir(), ".switchyard"));
}

function locate(home: string, explicitUrl: string | undefined): string {
  if (explicitUrl) return explicitUrl.replace(/\/+$/, "");
  const info = readInstanceFile(home);
  const hint = "Start one with `switchyard serve` (or `npm start`), or pass --url http://127.0.0.1:<port>.";
  if (!info) throw new CliError(`no running Switchyard found: ${path.join(home, INSTANCE_FILE)} does not exist. ${hint}`);
  if (!processAlive(info.pid)) throw new CliError(`no running Switchyard found: the instance that wrote ${path.join(home, INSTANCE_FILE)} (pid ${info.pid}) has exited. ${hint}`);
  return info.url;
}

async function send(url: string, token: string, method: string, route: string, body?: unknown): Promise<Response> {
  try {
    return await fetch(url + route, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (err) {
    // fetch rejects with a TypeError whose cause carries the socket's code (ECONNREFUSED…); a timeout has no cause.
    const code = errorCode(err instanceof Error ? err.cause : undefined);
    const cause = typeof code === "string" ? code : err instanceof Error ? err.message : String(err);
    throw new CliError(`cannot reach Switchyard at ${url} (${cause}). Is it running? Start it with \`switchyard serve\`.`);
  }
}

async function errorOf(res: Response, url: string): Promise<CliError> {
  if (res.status === 401)
    return new CliError(`Switchyard at ${url} refused the admin token (401): set SWITCHYARD_ADMIN_TOKEN to the token of that instance, or pass --home of its data directory.`);
  const text = await res.text();
  const error = apiError(text);
  if (error) return new CliError(`${error.message}${error.path && !error.message.includes(error.path) ? ` (at ${error.path})` : ""}`);
  return new CliError(`Switchyard answered ${res.status}: ${text.slice(0, 200)}`);
}

/** The `{ error: { message, path? } }` body the management API fails with, or null for any other text. */
function apiError(text: string): { message: string; path?: string } | null {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return null;
  }
  const error = isRecord(body) ? body["error"] : undefined;
  if (!isRecord(error) || typeof error["message"] !== "string") return null;
  return { message: error["message"], path: typeof error["path"] === "string" ? error["path"] : undefined };
}

export function connect(home: string, explicitUrl?: string): Remote {
  const url = locate(home, explicitUrl);
  const token = readAdminToken(home);
  if (!token) throw new CliError(`no admin token: set SWITCHYARD_ADMIN_TOKEN or pass --home of the instance's data directory (it holds admin-token).`);
  return {
    url,
    async call<T>(method: string, route: string, body?: unknown): Promise<T> {
      const res = await send(url, token, method, route, body);
      if (!res.ok) throw await errorOf(res, url);
      // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- the caller names the route's answer type (shared/apiTypes), which our own server produces; not re-checked here
      return (await res.json()) as T;
    },
    async text(route: string): Promise<string> {
      const res = await send(url, token, "GET", route);
      if (!res.ok) throw await errorOf(res, url);
      return res.text();
    },
  };
}

/** Seconds or minutes, the way a person reads a countdown. */
export function humanMs(ms: number | null): string {
  if (ms === null || ms <= 0) return "—";
  const s = Math.ceil(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m ${s % 60}s` : `${Math.floor(m / 60)}h ${m % 60}m`;
}

/** Columns padded to their widest cell. */
export function table(header: string[], rows: string[][]): string {
  if (rows.length === 0) return "  (none)";
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    "  " +
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)].join("\n");
}

/** One JSON value of a row as text: objects and null as JSON, never "[object Object]". */
function cell(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || value === undefined) return String(value);
  return JSON.stringify(value);
}

function queueRow(item: unknown): string[] {
  const q = isRecord(item) ? item : {};
  const name = cell(q.key ?? q.name ?? q.provider ?? q.connectionId ?? q.scope ?? "queue");
  const rest = Object.entries(q)
    .filter(([k]) => !["key", "name"].includes(k))
    .map(([k, v]) => `${k}=${cell(v)}`);
  return [name, rest.join(" ")];
}

export async function status(remote: Remote): Promise<string> {
  const [health, cooldowns, lockouts] = await Promise.all([
    remote.call<MonitoringHealth>("GET", "/api/monitoring/health"),
    remote.call<{ items: CooldownRow[] }>("GET", "/api/resilience/cooldowns"),
    remote.call<{ items: ModelLockoutItem[] }>("GET", "/api/resilience/model-cooldowns"),
  ]);
  const cb = health.circuitBreakers;
  return [
    `Switchyard at ${remote.url}, up ${humanMs(health.uptimeMs)}`,
    `Breakers: ${cb.closed} closed, ${cb.degraded} degraded, ${cb.halfOpen} half-open, ${cb.open} open`,
    "",
    "Provider breakers",
    table(
      ["PROVIDER", "STATE", "FAILURES", "RETRY IN", "LAST FAILURE"],
      health.providerBreakers.map((b) => [b.provider, b.state, String(b.failureCount), humanMs(b.retryAfterMs), b.lastFailureKind ?? "—"]),
    ),
    "",
    "Cooldowns",
    table(
      ["CONNECTION", "PROVIDER", "STATUS", "REMAINING", "LAST ERROR"],
      cooldowns.items.map((c) => [`${c.name} (${c.connectionId})`, c.provider, c.status, humanMs(c.remainingMs), c.lastErrorType ?? "—"]),
    ),
    "",
    "Model lockouts",
    table(
      ["PROVIDER", "CONNECTION", "MODEL", "REASON", "REMAINING"],
      lockouts.items.map((l) => [l.provider, l.connectionId, l.model, l.reason, humanMs(l.remainingMs)]),
    ),
    "",
    "Queues",
    table(["QUEUE", "STATE"], health.queues.map(queueRow)),
  ].join("\n");
}

export async function reset(remote: Remote, provider: string | undefined): Promise<string> {
  const scope = provider ? { provider } : {};
  const breakers = await remote.call<{ resetCount: number }>("POST", "/api/resilience/reset", scope);
  const cooldowns = await remote.call<{ cleared: number; lockoutsCleared: number; skippedTerminal: number }>("POST", "/api/resilience/cooldowns", { all: true, ...scope });
  const lines = [
    `Reset ${breakers.resetCount} breaker(s)${provider ? ` of ${provider}` : ""}.`,
    `Cleared ${cooldowns.cleared} cooldown(s) and ${cooldowns.lockoutsCleared} model lockout(s).`,
  ];
  if (cooldowns.skippedTerminal > 0) lines.push(`${cooldowns.skippedTerminal} connection(s) stay off: banned, expired or out of credits (replace their key).`);
  return lines.join("\n");
}

export async function exportTo(remote: Remote, file: string | undefined, format: string | undefined, secrets: string | undefined): Promise<string | null> {
  const fmt = format === "yaml" || (!format && file && /\.ya?ml$/i.test(file)) ? "yaml" : "json";
  const query = `?format=${fmt}${secrets === "env" ? "&secrets=env" : ""}`;
  const raw = await remote.text(`/api/config/export${query}`);
  const text = fmt === "json" ? JSON.stringify(JSON.parse(raw), null, 2) + "\n" : raw;
  if (!file || file === "-") return text;
  writeFileSync(file, text, { mode: 0o600 });
  return null;
}

function readConfig(file: string): { format: "json" | "yaml"; text: string } {
  try {
    return { format: /\.ya?ml$/i.test(file) ? "yaml" : "json", text: readFileSync(file, "utf8") };
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

export async function importFrom(remote: Remote, file: string, dryRun: boolean): Promise<string> {
  const body = readConfig(file);
  const preview = await remote.call<ConfigImportPreview>("POST", "/api/config/import/preview", body);
  const lines = preview.changes
    .filter((c) => c.action !== "unchanged")
    .map((c) => `  ${c.action.padEnd(7)} ${c.entity} ${c.id}${c.fields.length ? ` (${c.fields.join(", ")})` : ""}`);
  if (preview.settings.length) lines.push(`  update  settings (${preview.settings.join(", ")})`);
  if (preview.resilience.length) lines.push(`  update  resilience (${preview.resilience.join(", ")})`);
  const summary = lines.length ? lines.join("\n") : "  nothing changes";
  if (dryRun) return `Would change:\n${summary}`;
  const result = await remote.call<ConfigImportResponse>("POST", "/api/config/import", body);
  const keys = (result.createdKeys ?? []).map((k) => `  new key ${k.name}: ${k.key}  (shown once)`);
  return [`Imported (all or nothing):`, summary, ...keys].join("\n");
}
