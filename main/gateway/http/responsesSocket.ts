// One Responses WebSocket (R26.1, R26.2, R26.3): Codex's socket of turns. Each `response.create`
// frame is the HTTP body less `stream`/`background`; it runs as one request through the pipeline
// and every feature (its own RequestContext, the handshake's key and login, the socket as the
// session), streamed back as frames by a SocketTurn. The socket keeps its last responses so a
// turn that names one in `previous_response_id` sends only its new input: the full input (the
// earlier input, its output, the new items) is rebuilt here, so any upstream serves it over HTTP.
// A warm-up (`generate: false`) is answered here with an id and no upstream call. One turn at a
// time; a bad frame gets an error frame and the socket stays open; a binary frame closes it (1003).
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { RawData, WebSocket } from "ws";
import type { ErrorCode, StatusOf } from "../../../shared/errorCodes.js";
import { isRecord } from "../../../shared/records.js";
import type { ApiKeyInfo } from "../../../shared/types.js";
import type { ClientLogin } from "../context/clientLogin.js";
import { RequestContext } from "../context/requestContext.js";
import { createRequestSession } from "../context/requestSession.js";
import type { ErrorLog } from "../context/ports.js";
import { describeError } from "../context/ports.js";
import { clientHalf } from "../formats/index.js";
import { responseId } from "../formats/responses/ids.js";
import { expandPreviousResponse, type StoredResponseDeps } from "../features/responses/storedResponses.js";
import type { Pipeline } from "../pipeline/pipeline.js";
import type { SessionGatewayDeps } from "./generationRoute.js";
import { sessionKeyOf } from "./sessionKey.js";
import { errorFrameText, SocketTurn } from "./socketTurn.js";

const FORMAT = "openai-responses";
/**
 * R26.5: on loopback, compressing what Switchyard sends only costs CPU. Measured with the bench's
 * wsTurns case: ws compresses every frame when the context is kept (its size threshold applies only
 * without context takeover), and a socket turn then cost 2× an HTTP turn. So a frame is sent
 * compressed only from this size (a huge tool output echoed back), where the bytes saved matter.
 */
const COMPRESS_FROM_CHARS = 1 << 20;
/** Responses a socket remembers for `previous_response_id` (Codex names the last one). */
const REMEMBERED = 4;

export interface ResponsesSocketDeps {
  pipeline: Pipeline;
  sessions: SessionGatewayDeps;
  storedResponses?: StoredResponseDeps;
  logger?: ErrorLog;
  /** R26.3: a socket with no frame for this long (and no turn running) is closed (1000). */
  idleMs: number;
  /** The live body limit (maxBodyMb): a larger frame closes the socket (1009). */
  maxFrameBytes: () => number;
}

/** What the handshake proved, given to every turn (R1.7, R21.1). */
export interface SocketAdmission {
  clientKey: ApiKeyInfo | null;
  allowed: Set<string> | null;
  login: ClientLogin | null;
}

interface Remembered {
  input: unknown[];
  output: unknown[];
  /** The JSON texts of `input` and `output`: the next turn's body text is joined from them, not serialised again (R26.5). */
  inputText: string;
  outputText: string;
}

/** The JSON text of the array that is the concatenation of JSON array texts. */
function joinedArrays(...texts: string[]): string {
  const inner = texts.map((t) => t.slice(1, -1)).filter((t) => t.trim() !== "");
  return `[${inner.join(",")}]`;
}

/** The JSON text of `rest` with `input` (whose text is given) added last. */
function bodyTextWith(rest: Record<string, unknown>, inputText: string): string {
  const head = JSON.stringify(rest);
  return head === "{}" ? `{"input":${inputText}}` : `${head.slice(0, -1)},"input":${inputText}}`;
}

/** What a frame becomes: the body the turn starts from, its whole input, and (continuing this socket's response) the body's text. */
interface Prepared {
  body: Record<string, unknown>;
  input: unknown[];
  bodyText?: string;
  inputText?: string;
}

type Refusal = { status: number; code: ErrorCode; message: string };

/** R16.1: a string input is one user message; a list is items already; null when neither. */
function inputItems(input: unknown): unknown[] | null {
  if (input === undefined || input === null) return [];
  if (typeof input === "string") return [{ type: "message", role: "user", content: [{ type: "input_text", text: input }] }];
  return Array.isArray(input) ? input : null;
}

function refusal<C extends ErrorCode>(status: StatusOf<C>, code: C, message: string): Refusal {
  return { status, code, message };
}

export function serveResponsesSocket(deps: ResponsesSocketDeps, ws: WebSocket, req: IncomingMessage, admission: SocketAdmission): void {
  const socketId = randomUUID();
  const remembered = new Map<string, Remembered>();
  let turn: SocketTurn | null = null;
  let idle: NodeJS.Timeout | null = null;

  const armIdle = () => {
    if (idle) clearTimeout(idle);
    idle = setTimeout(() => {
      if (turn === null) ws.close(1000, "idle");
      else armIdle();
    }, deps.idleMs);
    idle.unref();
  };
  armIdle();

  const send = (text: string, done?: () => void) => ws.send(text, { compress: text.length >= COMPRESS_FROM_CHARS }, done);
  const sendError = (r: Refusal) => send(errorFrameText(r.status, clientHalf(FORMAT).errorBody(r.status, r.code, r.message), {}));

  ws.on("message", (data, isBinary) => {
    armIdle();
    if (isBinary) return ws.close(1003, "binary frames are not accepted; send response.create as a text frame");
    const bytes = Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : data.byteLength;
    if (bytes > deps.maxFrameBytes()) return ws.close(1009, "frame exceeds the body limit (setting maxBodyMb)");
    // R26.3: one turn at a time; a frame that would interleave with the running turn is refused.
    if (turn !== null)
      return sendError(refusal(409, "websocket_turn_in_progress", "A response.create frame arrived before the previous turn finished; wait for its response.completed"));
    const parsed = parseFrame(frameText(data));
    if ("code" in parsed) return sendError(parsed);
    const prepared = withHistory(parsed.body);
    if ("code" in prepared) return sendError(prepared);
    if (parsed.warmUp) return warmUp(prepared);
    void runTurn(prepared);
  });

  ws.on("close", () => {
    if (idle) clearTimeout(idle);
    turn?.socketClosed();
    remembered.clear();
  });
  ws.on("error", () => ws.terminate());

  /** R26.2: the body with the named response's input and output before its own input. */
  function withHistory(body: Record<string, unknown>): Prepared | Refusal {
    const previousId = body["previous_response_id"];
    let full = body;
    if (typeof previousId === "string") {
      const own = remembered.get(previousId);
      const added = inputItems(body["input"]);
      if (!added) return refusal(400, "invalid_request", "input must be a string or a list of input items");
      const { previous_response_id: _named, input: _added, ...rest } = body;
      if (own) {
        // R26.5: the history's text is joined, not serialised again: the turn costs its new input only.
        const input = [...own.input, ...own.output, ...added];
        const inputText = joinedArrays(own.inputText, own.outputText, JSON.stringify(added));
        return { body: { ...rest, input }, input, inputText, bodyText: bodyTextWith(rest, inputText) };
      } else {
        // R16.4: a response stored by an earlier request (HTTP or another socket) is found by id.
        const stored = deps.storedResponses;
        const expanded = stored ? expandPreviousResponse(body, stored.port, stored.clock.now(), stored.retentionHours()) : null;
        if (!expanded || "code" in expanded)
          return refusal(400, "previous_response_not_found", `Previous response with id '${previousId}' not found on this socket; send the whole conversation`);
        full = expanded.body;
      }
    }
    const input = inputItems(full["input"]);
    if (!input) return refusal(400, "invalid_request", "input must be a string or a list of input items");
    return { body: full, input };
  }

  function remember(id: string, entry: Remembered): void {
    remembered.set(id, entry);
    if (remembered.size > REMEMBERED) remembered.delete(remembered.keys().next().value!);
  }

  /** R26.2: a warm-up is created and completed here, with an id the next turn may name. */
  function warmUp({ body, input, inputText }: Prepared): void {
    const id = responseId(randomUUID());
    const response = { id, object: "response", created_at: Math.floor(Date.now() / 1000), status: "completed", model: body["model"] ?? null, output: [], usage: null };
    send(JSON.stringify({ type: "response.created", sequence_number: 0, response: { ...response, status: "in_progress" } }));
    send(JSON.stringify({ type: "response.completed", sequence_number: 1, response }));
    remember(id, { input, output: [], inputText: inputText ?? JSON.stringify(input), outputText: "[]" });
  }

  async function runTurn({ body, input, inputText, bodyText }: Prepared): Promise<void> {
    const ctx = new RequestContext(randomUUID(), req);
    ctx.clientKey = admission.clientKey;
    ctx.allowed = admission.allowed;
    ctx.login = admission.login;
    ctx.format = FORMAT;
    ctx.transport = "websocket";
    const problem = clientHalf(FORMAT).shapeProblem(body);
    if (problem) return sendError(refusal(400, "invalid_request", problem));
    ctx.bodyRead(body, bodyText);
    const sessionKey = sessionKeyOf(req.headers, () => clientHalf(FORMAT).sessionHint(body) ?? `ws-${socketId}`);
    ctx.session = createRequestSession(deps.sessions, { sessionKey, leaseOwnerHash: null });
    const current = new SocketTurn({
      send,
      get bufferedAmount() {
        return ws.bufferedAmount;
      },
    });
    turn = current;
    try {
      await deps.pipeline.handle(ctx, current);
    } catch (err) {
      deps.logger?.error({ requestId: ctx.requestId, err: describeError(err) }, "internal error in a WebSocket turn");
    } finally {
      turn = null;
      armIdle();
    }
    const final = current.finalEvent === null ? null : (JSON.parse(current.finalEvent) as unknown);
    const response = isRecord(final) && isRecord(final["response"]) ? final["response"] : null;
    if (response && typeof response["id"] === "string" && response["status"] !== "failed") {
      const output = Array.isArray(response["output"]) ? response["output"] : [];
      remember(response["id"], { input, output, inputText: inputText ?? JSON.stringify(input), outputText: JSON.stringify(output) });
    }
  }
}

/** A text frame's UTF-8 text (ws hands a Buffer, or its fragments). */
function frameText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString("utf8");
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.from(data).toString("utf8");
}

/** A client frame: `response.create` with the HTTP body's fields (R26.1); stream and background are the socket's. */
function parseFrame(text: string): { body: Record<string, unknown>; warmUp: boolean } | Refusal {
  let frame: unknown;
  try {
    frame = JSON.parse(text);
  } catch {
    return refusal(400, "invalid_request", 'The frame is not valid JSON; send {"type":"response.create", …the Responses body}');
  }
  if (!isRecord(frame)) return refusal(400, "invalid_request", "The frame must be a JSON object");
  const { type, generate, stream: _stream, background: _background, ...body } = frame;
  if (type !== "response.create") return refusal(400, "invalid_request", `Unknown frame type ${JSON.stringify(type ?? null)}; the socket takes response.create frames`);
  return { body: { ...body, stream: true }, warmUp: generate === false };
}
