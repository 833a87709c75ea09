// Responses turns and compaction (R16.4, R16.5, R16.7, R1.8) as a feature: on arrival an earlier
// turn named by previous_response_id becomes the body's history (or the request is refused 404),
// a compaction route's turn becomes the summary request; as the answer goes out, the response
// served is kept for the next turn and a compaction is answered in its own shape.
import { isRecord } from "../../../shared/records.js";
import type { WireFormat } from "../../../shared/types.js";
import { ContextVar } from "../context/requestContext.js";
import type { FinalError } from "../context/outcome.js";
import type { AnswerObserver } from "../context/clientResponse.js";
import { compactionAnswer, compactionTurn } from "./responses/compact.js";
import type { PreparedTurn } from "./responses/turn.js";
import type { RequestFeature } from "./feature.js";

/** What a client format's turns need beyond the pipeline (Responses: stored turns, R16.4). */
export interface TurnHook {
  prepare(body: Record<string, unknown>): PreparedTurn | FinalError;
}

const OBSERVER = new ContextVar<AnswerObserver>("turn observer");
const RESHAPE = new ContextVar<(answer: Record<string, unknown>) => Record<string, unknown>>("compaction answer");

export function responsesTurnsFeature(turns: Partial<Record<WireFormat, TurnHook>>): RequestFeature {
  return {
    name: "responses-turns",
    arrive(ctx) {
      const prepared = turns[ctx.format]?.prepare(ctx.body);
      if (prepared && "code" in prepared) return prepared;
      if (prepared) {
        ctx.replaceBody(prepared.body);
        for (const [name, value] of Object.entries(prepared.headers)) ctx.client.addHeader(name, value);
        ctx.set(OBSERVER, prepared.observe(ctx.client));
      }
      if (ctx.compact) {
        const history = ctx.body;
        ctx.replaceBody(compactionTurn(history));
        ctx.set(RESHAPE, (answer) => compactionAnswer(answer, history["input"]));
      }
      return null;
    },
    answer(ctx, body) {
      const reshape = ctx.get(RESHAPE);
      if (reshape) {
        const answer: unknown = typeof body === "string" ? JSON.parse(body) : body;
        // A success that is no JSON object has none of the fields a reshape reads.
        body = reshape(isRecord(answer) ? answer : {});
      }
      ctx.get(OBSERVER)?.json(body);
      return body;
    },
    frame(ctx, text, frames) {
      if (ctx.client.streaming) ctx.get(OBSERVER)?.streamText(text, frames);
    },
  };
}
