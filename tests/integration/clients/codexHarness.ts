// Helpers for running the real Codex CLI (the pinned @openai/codex build) against Switchyard:
// a temporary CODEX_HOME with a config.toml, an asynchronous `codex exec` run in its own process
// group, a recording proxy that also forwards WebSocket upgrades (Codex's Responses WebSocket
// transport is a `GET /v1/responses` with `Upgrade: websocket`), and a scripted Anthropic-format
// upstream for the apply_patch round trip.
import { readFileSync, writeFileSync } from "node:fs";
import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";
import path from "node:path";
import { clientBin } from "../../clients/locate.js";
import { makeTempDir, runClientProcess, type ClientRun } from "../../fixtures/clients/clientProcess.js";

export type Json = Record<string, any>;

export const CODEX = clientBin("codex");
export const CODEX_VERSION = "0.171.0";
/** The key Codex reads from `env_key`; Switchyard needs no client key in tests. */
export const CODEX_KEY_ENV = "SWITCHYARD_API_KEY";
export const CODEX_KEY = "codex-client-key";

export type CodexRun = ClientRun;

export interface CodexProviderConfig {
  /** `<origin>/v1` */
  baseUrl: string;
  model: string;
  /** Extra lines inside `[model_providers.switchyard]`. */
  providerLines?: string[];
  /** Extra top-level lines (before any table). */
  topLines?: string[];
  /** Provider display name; anything but "OpenAI" keeps Codex on local compaction. */
  name?: string;
}

/** The config.toml the Connect page prints for Codex, plus the test's extras. */
export function codexConfigToml(cfg: CodexProviderConfig): string {
  const q = (s: string) => JSON.stringify(s);
  return [
    `model = ${q(cfg.model)}`,
    `model_provider = "switchyard"`,
    ...(cfg.topLines ?? []),
    "",
    "[model_providers.switchyard]",
    `name = ${q(cfg.name ?? "Switchyard")}`,
    `base_url = ${q(cfg.baseUrl)}`,
    `env_key = ${q(CODEX_KEY_ENV)}`,
    `wire_api = "responses"`,
    ...(cfg.providerLines ?? []),
    "",
  ].join("\n");
}

/** A Codex model catalog (the `{models:[ModelInfo]}` shape of Codex's own `/models`), for one model. */
export function codexCatalog(slug: string, overrides: Json = {}): Json {
  const template = JSON.parse(readFileSync(path.resolve("tests/fixtures/clients/codex-models.json"), "utf8")) as Json;
  const entry = { ...template.models[0], slug, display_name: slug, ...overrides };
  return { models: [entry] };
}

export { makeTempDir };

export function writeCodexHome(home: string, toml: string, files: Record<string, string> = {}): void {
  writeFileSync(path.join(home, "config.toml"), toml);
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(home, name), text);
}

/**
 * Runs `codex exec --skip-git-repo-check <args…>` with only PATH, HOME, CODEX_HOME and the key
 * in its environment. Asynchronous: the gateway and the fakes live in this process.
 */
export function runCodex(args: string[], opts: { home: string; cwd: string; timeoutMs: number; env?: Record<string, string> }): Promise<CodexRun> {
  return runClientProcess(CODEX, ["exec", "--skip-git-repo-check", ...args], {
    cwd: opts.cwd,
    timeoutMs: opts.timeoutMs,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: opts.home,
      CODEX_HOME: opts.home,
      [CODEX_KEY_ENV]: CODEX_KEY,
      ...opts.env,
    },
  });
}

export function describeRun(run: CodexRun): string {
  return `exit ${run.code}${run.timedOut ? " (timed out)" : ""} after ${run.ms} ms\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr.slice(-4000)}`;
}

// ---------------------------------------------------------------------------------------------
// Recording proxy with WebSocket upgrades

export interface CodexExchange {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  status: number | null;
  /** The response body (bounded), for JSON answers such as `/v1/models`. */
  response: string;
  upgrade: boolean;
  at: number;
}

export interface CodexProxy {
  url: string;
  exchanges: CodexExchange[];
  close(): Promise<void>;
}

const RESPONSE_KEEP = 256 * 1024;

export async function startCodexProxy(target: string): Promise<CodexProxy> {
  const upstream = new URL(target);
  const exchanges: CodexExchange[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const exchange: CodexExchange = {
      method: req.method ?? "GET",
      url: req.url ?? "/",
      headers: req.headers,
      body: "",
      status: null,
      response: "",
      upgrade: false,
      at: Date.now(),
    };
    exchanges.push(exchange);
    const chunks: Buffer[] = [];
    const out = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } }, (up) => {
      exchange.status = up.statusCode ?? null;
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.on("data", (chunk: Buffer) => {
        if (exchange.response.length < RESPONSE_KEEP) exchange.response += chunk.toString("utf8");
      });
      // Piped, not buffered: streamed answers reach Codex as they are produced.
      up.pipe(res);
    });
    out.on("error", () => res.destroy());
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => (exchange.body = Buffer.concat(chunks).toString("utf8")));
    req.pipe(out);
  });
  // Upgrades are forwarded byte for byte; the status line of the answer is recorded.
  server.on("upgrade", (req: IncomingMessage, client: Socket, head: Buffer) => {
    const exchange: CodexExchange = { method: req.method ?? "GET", url: req.url ?? "/", headers: req.headers, body: "", status: null, response: "", upgrade: true, at: Date.now() };
    exchanges.push(exchange);
    sockets.add(client);
    const up = connect(Number(upstream.port), upstream.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        const name = req.rawHeaders[i];
        lines.push(`${name}: ${name.toLowerCase() === "host" ? upstream.host : req.rawHeaders[i + 1]}`);
      }
      up.write(lines.join("\r\n") + "\r\n\r\n");
      if (head.length) up.write(head);
      let first = true;
      up.on("data", (chunk: Buffer) => {
        if (first) {
          first = false;
          const m = /^HTTP\/1\.[01] (\d{3})/.exec(chunk.toString("latin1"));
          exchange.status = m ? Number(m[1]) : null;
          exchange.response = chunk.toString("utf8").slice(0, 4096);
        }
      });
      up.pipe(client);
      client.pipe(up);
    });
    sockets.add(up);
    const end = () => {
      up.destroy();
      client.destroy();
    };
    up.on("error", end);
    client.on("error", end);
    up.on("close", () => client.end());
    client.on("close", () => up.end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exchanges,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The `POST /v1/responses` exchanges (not /compact or /input_tokens), with their parsed bodies. */
export function responsesPosts(exchanges: CodexExchange[]): Array<CodexExchange & { json: Json }> {
  return exchanges.filter((x) => x.method === "POST" && x.url.split("?")[0] === "/v1/responses").map((x) => ({ ...x, json: JSON.parse(x.body) as Json }));
}

/** Codex's per-request metadata header (`request_kind` is "turn" or "compaction"). */
export function turnMetadata(x: CodexExchange): Json {
  const raw = x.headers["x-codex-turn-metadata"];
  return typeof raw === "string" ? (JSON.parse(raw) as Json) : {};
}

/** All text of the `message` items of a Responses input with the given role. */
export function inputTexts(input: Json[], role: string): string[] {
  return input
    .filter((i) => i.type === "message" && i.role === role)
    .map((i) => (Array.isArray(i.content) ? i.content.map((c: Json) => c.text ?? "").join("") : String(i.content ?? "")));
}

// ---------------------------------------------------------------------------------------------
// Scripted Anthropic-format upstream

export interface ScriptedAnthropic {
  url: string;
  requests: Array<{ path: string; headers: IncomingHttpHeaders; body: Json }>;
  close(): Promise<void>;
}

export interface AnthropicScript {
  /** The tool to call on the first turn: its name must contain this. */
  toolNameIncludes: string;
  /** The string the tool's single string field (whatever the gateway named it) receives. */
  toolInput: string;
  toolUseId: string;
  finalText: string;
}

function sse(res: ServerResponse, events: Json[]): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const e of events) res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
  res.end();
}

/** The single string field of a bridged freeform tool, read from the schema the gateway sent. */
export function singleStringField(tool: Json): string | undefined {
  const props = (tool.input_schema?.properties ?? {}) as Record<string, Json>;
  const strings = Object.keys(props).filter((k) => props[k]?.type === "string");
  return strings.length === 1 ? strings[0] : undefined;
}

/**
 * An Anthropic Messages upstream that answers the first turn with a tool_use of the offered
 * tool whose name contains `toolNameIncludes` (input: its one string field set to `toolInput`),
 * and any turn that carries a tool_result with `finalText`. Streams when asked to.
 */
export async function startScriptedAnthropic(script: AnthropicScript): Promise<ScriptedAnthropic> {
  const requests: ScriptedAnthropic["requests"] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let body: Json = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Json;
      } catch {
        // recorded as {}
      }
      requests.push({ path: req.url ?? "/", headers: req.headers, body });
      const pathOnly = (req.url ?? "/").split("?")[0];
      if (req.method !== "POST" || pathOnly !== "/v1/messages") {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: `no route ${req.method} ${pathOnly}` } }));
        return;
      }
      const messages = (body.messages ?? []) as Json[];
      const hasResult = messages.some((m) => Array.isArray(m.content) && m.content.some((b: Json) => b.type === "tool_result"));
      const tools = (body.tools ?? []) as Json[];
      const tool = tools.find((t) => typeof t.name === "string" && t.name.includes(script.toolNameIncludes));
      const usage = { input_tokens: 120, output_tokens: 30, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
      const base = { id: `msg_scripted_${requests.length}`, type: "message", role: "assistant", model: body.model ?? "claude-sim" };
      let content: Json[];
      let stopReason: string;
      if (!hasResult && tool) {
        const field = singleStringField(tool) ?? "input";
        content = [{ type: "tool_use", id: script.toolUseId, name: tool.name, input: { [field]: script.toolInput } }];
        stopReason = "tool_use";
      } else {
        content = [{ type: "text", text: hasResult ? script.finalText : `no tool containing ${script.toolNameIncludes} was offered` }];
        stopReason = "end_turn";
      }
      if (!body.stream) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ ...base, content, stop_reason: stopReason, stop_sequence: null, usage }));
        return;
      }
      const events: Json[] = [{ type: "message_start", message: { ...base, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } }];
      content.forEach((block, index) => {
        if (block.type === "tool_use") {
          const json = JSON.stringify(block.input);
          const half = Math.floor(json.length / 2);
          events.push({ type: "content_block_start", index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } });
          events.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: json.slice(0, half) } });
          events.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: json.slice(half) } });
        } else {
          events.push({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
          events.push({ type: "content_block_delta", index, delta: { type: "text_delta", text: block.text } });
        }
        events.push({ type: "content_block_stop", index });
      });
      events.push({ type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
      events.push({ type: "message_stop" });
      sse(res, events);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
