// POST /v1/responses/compact (R16.5): the request's shape and an earlier turn it names are
// checked as for POST /v1/responses; then the summary turn runs through the pipeline like any
// other request (failover, cooldowns, translation) and its answer is given as a compaction.
import type { RequestHandler } from "express";
import { clientError, shapeProblem } from "../clientRoutes.js";
import { bodyOf, clientKeyIdOf, edgeOf } from "../edge.js";
import type { TurnHook } from "../generationRoute.js";
import type { Pipeline } from "../pipeline.js";
import { compactionAnswer, compactionTurn } from "./compact.js";

export function compactHandler(pipeline: Pipeline, turn: TurnHook | undefined): RequestHandler {
  return async (req, res) => {
    const edge = edgeOf(req);
    const received = bodyOf(edge);
    const problem = shapeProblem("openai-responses", received);
    if (problem) return clientError(res, "openai-responses", 400, "invalid_request", problem);
    const prepared = turn?.prepare(received);
    if (prepared && "code" in prepared) return clientError(res, "openai-responses", prepared.status, prepared.code, prepared.message);
    const body = prepared ? prepared.body : received;
    await pipeline.handle({
      format: "openai-responses",
      body: compactionTurn(body),
      headers: req.headers,
      res,
      requestId: edge.requestId,
      allowedConnections: edge.allowedConnections,
      apiKeyId: clientKeyIdOf(edge),
      reshape: (answer) => compactionAnswer(answer, body["input"]),
      path: req.originalUrl,
    });
  };
}
