import type { OutgoingHttpHeaders, ServerResponse } from "node:http";
import { renderFrames } from "./stream.js";
import { USAGE_LIMIT_MESSAGE, type StreamCut } from "./subscriptions.js";
import type { WireFormat } from "./types.js";
import { anthropicErrorEvent } from "./wire/anthropic.js";
import type { ReplyContext, WireWriter } from "./wire/plan.js";
import { usageLimitEnd } from "./wire/responses.js";

/**
 * R21.9: a 200 stream that runs into the account's usage limit: the message's opening frames,
 * `afterChunks` content deltas (the thinking and the content's own opening frames only when some
 * are sent: with none, the limit comes before any output, as the vendor reports it), then the limit.
 */
export function cutStream(format: WireFormat, writer: WireWriter, ctx: ReplyContext, cut: StreamCut): string {
  const plan = writer.stream(ctx, false);
  // The message's own opening frames: the head without the thinking a request that asks for it gets there.
  const opening = writer.stream(ctx, true).head;
  const thinking = plan.head.slice(opening.length);
  const sent = Math.min(cut.afterChunks, plan.content.length);
  const end = format === "anthropic" ? anthropicErrorEvent(429, USAGE_LIMIT_MESSAGE) : usageLimitEnd(ctx, cut.as, USAGE_LIMIT_MESSAGE);
  return renderFrames([...plan.head.slice(0, opening.length), ...(sent > 0 ? [...thinking, ...plan.open, ...plan.content.slice(0, sent)] : []), end]);
}

/** Sends the cut stream whole: its headers (the login's windows as the cut left them), then its frames. */
export function sendCutStream(res: ServerResponse, headers: OutgoingHttpHeaders, format: WireFormat, writer: WireWriter, ctx: ReplyContext, cut: StreamCut): void {
  headers["content-type"] = "text/event-stream";
  headers["cache-control"] = "no-cache";
  res.writeHead(200, headers);
  res.end(cutStream(format, writer, ctx, cut));
}
