// Streaming translation: upstream SSE → hub events (decoder) → client SSE (encoder). One
// translator per stream holds all per-stream state, so concurrent streams never share any.

import type { WireFormat } from "../../../shared/types.js";
import { AnthropicStreamDecoder } from "./anthropic/stream-decode.js";
import { AnthropicStreamEncoder } from "./anthropic/stream-encode.js";
import { GeminiStreamDecoder } from "./gemini/stream-decode.js";
import { GeminiStreamEncoder } from "./gemini/stream-encode.js";
import { emptyUsage, mergeUsage, type HubStreamEvent, type HubUsage } from "./hub.js";
import { OpenaiStreamDecoder } from "./openai/stream-decode.js";
import { OpenaiStreamEncoder } from "./openai/stream-encode.js";
import { PassthroughTranslator } from "./passthrough.js";
import { isProgressKind, type OutFrame, type StreamTranslator, type TranslateContext, type UpstreamEvent } from "./types.js";
import { summariseUsage } from "./usage.js";

interface Decoder {
  decode(evt: UpstreamEvent): HubStreamEvent[];
}

interface Encoder {
  encode(event: HubStreamEvent): OutFrame[];
  end(): OutFrame[];
}

function decoderFor(format: WireFormat, ctx: TranslateContext): Decoder {
  switch (format) {
    case "openai":
      return new OpenaiStreamDecoder(ctx.requestId);
    case "anthropic":
      return new AnthropicStreamDecoder();
    case "gemini":
      return new GeminiStreamDecoder(ctx.requestId);
  }
}

function encoderFor(format: WireFormat, upstream: WireFormat, ctx: TranslateContext): Encoder {
  switch (format) {
    case "openai":
      return new OpenaiStreamEncoder(ctx);
    case "anthropic":
      return new AnthropicStreamEncoder(ctx, upstream === "gemini" ? "gemini" : "openai");
    case "gemini":
      return new GeminiStreamEncoder(ctx);
  }
}

class TranslatingStream implements StreamTranslator {
  private total: HubUsage = emptyUsage();
  private content = false;

  constructor(
    private readonly decoder: Decoder,
    private readonly encoder: Encoder,
  ) {}

  push(evt: UpstreamEvent): OutFrame[] {
    const frames: OutFrame[] = [];
    for (const event of this.decoder.decode(evt)) {
      if (event.type === "usage") this.total = mergeUsage(this.total, event.usage);
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

  private observe(frames: OutFrame[]): OutFrame[] {
    if (!this.content && frames.some((frame) => isProgressKind(frame.kind))) this.content = true;
    return frames;
  }
}

export function createStreamTranslator(from: WireFormat, to: WireFormat, ctx: TranslateContext): StreamTranslator {
  if (from === to) return new PassthroughTranslator(from, ctx);
  return new TranslatingStream(decoderFor(from, ctx), encoderFor(to, from, ctx));
}
