// Streaming translation: upstream SSE → hub events (decoder) → client SSE (encoder). One
// translator per stream holds all per-stream state, so concurrent streams never share any.

import type { WireFormat } from "../../../shared/types.js";
import type { StreamDecoder, StreamEncoder } from "./adapter.js";
import { clientHalf, sameFormatHalf, upstreamHalf } from "./adapters.js";
import { emptyUsage, mergeUsage, type HubUsage } from "./hub.js";
import { PassthroughTranslator } from "./passthrough.js";
import { isProgressKind, type OutFrame, type StreamTranslator, type TranslateContext, type UpstreamEvent } from "./types.js";
import { summariseUsage } from "./usage.js";

class TranslatingStream implements StreamTranslator {
  private total: HubUsage = emptyUsage();
  private content = false;
  private upstreamFinished = false;

  constructor(
    private readonly decoder: StreamDecoder,
    private readonly encoder: StreamEncoder,
  ) {}

  push(evt: UpstreamEvent): OutFrame[] {
    const frames: OutFrame[] = [];
    for (const event of this.decoder.decode(evt)) {
      if (event.type === "usage") this.total = mergeUsage(this.total, event.usage);
      if (event.type === "finish" || event.type === "done" || event.type === "error") this.upstreamFinished = true;
      if (event.type === "start" && event.usage) this.total = mergeUsage(this.total, event.usage);
      frames.push(...this.encoder.encode(event));
    }
    return this.observe(frames);
  }

  end(): OutFrame[] {
    return this.observe(this.encoder.end());
  }

  usage(): ReturnType<StreamTranslator["usage"]> {
    return summariseUsage(this.total);
  }

  hasContent(): boolean {
    return this.content;
  }

  finished(): boolean {
    return this.upstreamFinished;
  }

  private observe(frames: OutFrame[]): OutFrame[] {
    if (!this.content && frames.some((frame) => isProgressKind(frame.kind))) this.content = true;
    return frames;
  }
}

export function createStreamTranslator(from: WireFormat, to: WireFormat, ctx: TranslateContext): StreamTranslator {
  const upstream = upstreamHalf(from);
  if (from === to) return new PassthroughTranslator(upstream, sameFormatHalf(from), ctx);
  return new TranslatingStream(upstream.streamDecoder(ctx), clientHalf(to).streamEncoder(ctx, upstream));
}
