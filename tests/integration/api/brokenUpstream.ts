// A tiny upstream with the faults the simulator does not have, for the contract doctor (R23.4):
// one that never streams (a JSON body whatever the request asks), one that reports no token usage,
// and one that answers in another format's shape than the path it serves. It serves the Anthropic
// and OpenAI chat paths; by default each answers in its own format.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface BrokenUpstreamOptions {
  /** Answer a streaming request with one JSON body. */
  noStream?: boolean;
  /** Leave token usage out of answers and streams. */
  noUsage?: boolean;
  /** Leave token usage out of streams only. */
  noStreamUsage?: boolean;
  /** Answer every path in this format's shapes (errors included). */
  answerAs?: "openai" | "anthropic";
}

export interface BrokenUpstream {
  url: string;
  paths: string[];
  close(): Promise<void>;
}

type Format = "openai" | "anthropic";
type Body = Record<string, unknown>;

function toolOf(body: Body): string | null {
  const tools = Array.isArray(body.tools) ? (body.tools as Body[]) : [];
  const first = tools[0];
  if (!first) return null;
  const fn = first.function as Body | undefined;
  return String(fn?.name ?? first.name);
}

function anthropicAnswer(body: Body, usage: boolean): Body {
  const tool = toolOf(body);
  return {
    id: "msg_broken",
    type: "message",
    role: "assistant",
    model: body.model,
    content: tool ? [{ type: "tool_use", id: "toolu_1", name: tool, input: { city: "Paris" } }] : [{ type: "text", text: "ok" }],
    stop_reason: tool ? "tool_use" : "end_turn",
    stop_sequence: null,
    ...(usage ? { usage: { input_tokens: 9, output_tokens: 1 } } : {}),
  };
}

function openaiAnswer(body: Body, usage: boolean): Body {
  const tool = toolOf(body);
  const message = tool
    ? { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: tool, arguments: '{"city":"Paris"}' } }] }
    : { role: "assistant", content: "ok" };
  return {
    id: "chatcmpl-broken",
    object: "chat.completion",
    created: 1,
    model: body.model,
    choices: [{ index: 0, message, finish_reason: tool ? "tool_calls" : "stop" }],
    ...(usage ? { usage: { prompt_tokens: 9, completion_tokens: 1, total_tokens: 10 } } : {}),
  };
}

const sse = (data: Body | string, event?: string) => `${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;

function anthropicStream(body: Body, usage: boolean): string {
  const message = { id: "msg_broken", type: "message", role: "assistant", model: body.model, content: [], ...(usage ? { usage: { input_tokens: 9, output_tokens: 0 } } : {}) };
  return [
    sse({ type: "message_start", message }, "message_start"),
    sse({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }, "content_block_start"),
    sse({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "ok" } }, "content_block_delta"),
    sse({ type: "content_block_stop", index: 0 }, "content_block_stop"),
    sse({ type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, ...(usage ? { usage: { output_tokens: 1 } } : {}) }, "message_delta"),
    sse({ type: "message_stop" }, "message_stop"),
  ].join("");
}

function openaiStream(body: Body, usage: boolean): string {
  const chunk = (delta: Body, finish: string | null) => ({
    id: "chatcmpl-broken",
    object: "chat.completion.chunk",
    created: 1,
    model: body.model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  return [
    sse(chunk({ role: "assistant", content: "" }, null)),
    sse(chunk({ content: "ok" }, null)),
    sse(chunk({}, "stop")),
    ...(usage
      ? [
          sse({
            id: "chatcmpl-broken",
            object: "chat.completion.chunk",
            created: 1,
            model: body.model,
            choices: [],
            usage: { prompt_tokens: 9, completion_tokens: 1, total_tokens: 10 },
          }),
        ]
      : []),
    sse("[DONE]"),
  ].join("");
}

function errorBody(format: Format, message: string): Body {
  return format === "anthropic" ? { type: "error", error: { type: "invalid_request_error", message } } : { error: { message, type: "invalid_request_error", code: null } };
}

function send(res: ServerResponse, status: number, body: Body | string, contentType = "application/json"): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { "content-type": contentType, "content-length": Buffer.byteLength(text) });
  res.end(text);
}

export async function startBrokenUpstream(options: BrokenUpstreamOptions = {}): Promise<BrokenUpstream> {
  const paths: string[] = [];
  const usage = !options.noUsage;
  const handle = (req: IncomingMessage, res: ServerResponse, text: string) => {
    const path = (req.url ?? "/").split("?")[0];
    paths.push(path);
    const pathFormat: Format | null = path === "/v1/messages" ? "anthropic" : path === "/v1/chat/completions" || path === "/chat/completions" ? "openai" : null;
    if (req.method !== "POST" || !pathFormat) return send(res, 404, errorBody(options.answerAs ?? "openai", `Unknown route ${path}`));
    const format = options.answerAs ?? pathFormat;
    let body: Body;
    try {
      body = JSON.parse(text) as Body;
    } catch {
      return send(res, 400, errorBody(format, "The request body is not valid JSON"));
    }
    if (body.stream === true && !options.noStream) {
      const streamUsage = usage && !options.noStreamUsage;
      return send(res, 200, format === "anthropic" ? anthropicStream(body, streamUsage) : openaiStream(body, streamUsage), "text/event-stream");
    }
    send(res, 200, format === "anthropic" ? anthropicAnswer(body, usage) : openaiAnswer(body, usage));
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handle(req, res, Buffer.concat(chunks).toString("utf8")));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    paths,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
