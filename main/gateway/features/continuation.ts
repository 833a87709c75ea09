// Mid-stream continuation (R13.3) as a feature: a streaming request keeps a transcript of the text
// its client received; when the stream breaks after text, the next candidate is asked for the rest
// with that text as the assistant's prefix, and only the new suffix reaches the client.
import { StreamTranscript } from "../context/streamTranscript.js";
import type { RequestFeature } from "./feature.js";

export function continuationFeature(enabled: () => boolean): RequestFeature {
  return {
    name: "continuation",
    arrive(ctx) {
      if (ctx.client.streaming) ctx.transcript = StreamTranscript.for(ctx.format, enabled());
      return null;
    },
    beforeAttempt(ctx, _attempt, body) {
      return ctx.transcript?.resuming ? ctx.transcript.continuationBody(body) : body;
    },
    afterAttempt(ctx, { outcome }) {
      if (outcome.kind !== "failed_after_output" || outcome.code === "stream_continuation_refused") return null;
      return ctx.transcript?.breakAfterOutput() ? { kind: "resume" } : null;
    },
  };
}
