// The count endpoints, POST /v1/messages/count_tokens and POST /v1/responses/input_tokens (R16.5):
// the exact count from an upstream of the client's own format that serves the model and may be
// called now (breaker, cooldowns, terminal states as for chat); otherwise a documented estimate —
// counting must not fail because one upstream is down.
import type { IncomingHttpHeaders } from "node:http";
import type { Request, RequestHandler } from "express";
import { geminiPathCall } from "./formats/gemini/paths.js";
import type { Clock, ResilienceEngine } from "../engine/ports.js";
import { clientError, stampClientHeaders } from "./clientRoutes.js";
import { bodyOf, edgeOf } from "./edge.js";
import type { WireFormat } from "../../shared/types.js";
import { clientHalf, upstreamFormatOf } from "./formats/index.js";
import type { CatalogPort, ConnectionsPort } from "./ports.js";
import { planRequest } from "./request/plan.js";
import { candidatesFor, SelectionLog, type SelectionEngine } from "./request/select.js";
import type { Target } from "./resolve.js";
import { AUXILIARY_CALL_CEILING_MS, type CallUpstream } from "./upstream/call.js";

/** A count is a few bytes; anything larger is not one. */
const COUNT_BODY_LIMIT_BYTES = 64 * 1024;

export interface CountTokensDeps {
  catalog: CatalogPort;
  connections: ConnectionsPort;
  engine: SelectionEngine & Pick<ResilienceEngine, "recordNeutral">;
  clock: Clock;
  callUpstream: CallUpstream;
}

/**
 * One count endpoint: the client format it serves, where the request names its model, the
 * upstream path that counts exactly, and the answer of an estimate.
 */
export interface CountEndpoint {
  format: "anthropic" | "openai-responses" | "gemini";
  modelOf(body: Record<string, unknown>, req: Request): unknown;
  upstreamPath(model: string): string;
  /** The body an upstream of this format counts (the model is in the path for Gemini). */
  upstreamBody(body: Record<string, unknown>, model: string): Record<string, unknown>;
  estimateBody(tokens: number): Record<string, unknown>;
}

const bodyModel = (body: Record<string, unknown>): unknown => body.model;
const withModel = (body: Record<string, unknown>, model: string) => ({ ...body, model });

export const ANTHROPIC_COUNT: CountEndpoint = {
  format: "anthropic",
  modelOf: bodyModel,
  upstreamPath: () => "/v1/messages/count_tokens",
  upstreamBody: withModel,
  estimateBody: (tokens) => ({ input_tokens: tokens }),
};

export const RESPONSES_INPUT_TOKENS: CountEndpoint = {
  format: "openai-responses",
  modelOf: bodyModel,
  upstreamPath: () => "/responses/input_tokens",
  upstreamBody: withModel,
  estimateBody: (tokens) => ({ object: "response.input_tokens", input_tokens: tokens }),
};

/** R17.1: `models/{model}:countTokens`, the model in the path. */
export const GEMINI_COUNT_TOKENS: CountEndpoint = {
  format: "gemini",
  modelOf: (_body, req) => geminiPathCall(req.path)?.model,
  upstreamPath: (model) => `/models/${model}:countTokens`,
  upstreamBody: (body) => body,
  estimateBody: (tokens) => ({ totalTokens: tokens }),
};

export function countTokensHandler(deps: CountTokensDeps, endpoint: CountEndpoint = ANTHROPIC_COUNT): RequestHandler {
  const format: WireFormat = endpoint.format;
  return async (req, res) => {
    const edge = edgeOf(req);
    const body = bodyOf(edge);
    const model = endpoint.modelOf(body, req);
    // R1.9: a missing or non-string model is a malformed request, not an unknown model.
    if (typeof model !== "string" || model === "") return clientError(res, format, 400, "invalid_request", "model must be a non-empty string");
    const plan = planRequest(model, deps.catalog);
    if (!plan) return clientError(res, format, 404, "model_not_found", `Unknown model: ${model}`);
    const selection = new SelectionLog();
    let calls = 0;
    for (const target of plan.targets) {
      if (upstreamFormatOf(target.provider, format) !== format) continue;
      for (const { connection, probe } of candidatesFor(target, deps, selection, edge.allowedConnections)) {
        if (probe) {
          // Counting is no proof of health: the HALF_OPEN probe is left to a real request.
          deps.engine.recordNeutral({ provider: target.provider, connection, model: target.model, probe });
          break;
        }
        const text = await exactCount(deps, endpoint, target, connection.id, body, req.headers);
        stampClientHeaders(res, ++calls);
        if (text !== null) return void res.status(200).type("application/json").send(text);
      }
    }
    stampClientHeaders(res, calls);
    res.setHeader("X-Switchyard-Token-Count", "estimate");
    res.json(endpoint.estimateBody(clientHalf(format).estimateInputTokens(body)));
  };
}

async function exactCount(
  deps: CountTokensDeps,
  endpoint: CountEndpoint,
  target: Target,
  connectionId: string,
  body: Record<string, unknown>,
  clientHeaders: IncomingHttpHeaders,
): Promise<string | null> {
  try {
    const call = await deps.callUpstream({
      provider: target.provider,
      upstreamFormat: endpoint.format,
      clientFormat: endpoint.format,
      secret: deps.connections.secret(connectionId),
      clientHeaders,
      path: endpoint.upstreamPath(target.model),
      body: endpoint.upstreamBody(body, target.model),
      ceilingMs: AUXILIARY_CALL_CEILING_MS,
    });
    const text = await call.bodyText(COUNT_BODY_LIMIT_BYTES);
    return call.response.status === 200 ? text : null;
  } catch {
    return null;
  }
}
