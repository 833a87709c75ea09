// Public types of the formats module (re-exported by index.ts).
import type { UsageSummary } from "./usage.js";
import type { JsonObject } from "./values.js";

export interface TranslateContext {
  clientModel: string;
  requestId: string;
  /**
   * OpenAI clients only: emit the trailing usage chunk (`choices: []`). Pass the client
   * adapter's `wantsStreamUsage(body)`; when omitted the chunk is sent, since the SDKs accept it.
   */
  includeUsage?: boolean;
  /** The client's request as it arrived: some answers echo it, or need its tool kinds (Responses). */
  clientBody?: Record<string, unknown>;
}

export type FrameKind = "content" | "reasoning" | "tool" | "lifecycle" | "usage" | "done" | "error";

export interface OutFrame {
  /** Complete SSE frame text, e.g. "event: message_start\ndata: {...}\n\n" or "data: {...}\n\n". */
  text: string;
  kind: FrameKind;
  /**
   * The data an encoder serialised into `text`, for whoever reads the answer as it goes out (the
   * taps): they read this object instead of parsing the text back (issue 33). Absent for a frame
   * passed through as the upstream wrote it, whose text is all there is.
   */
  data?: JsonObject;
}

export interface UpstreamEvent {
  event?: string;
  data: string;
}

export interface StreamTranslator {
  /** Feed one upstream SSE event (as parsed by eventsource-parser). Returns client frames. */
  push(evt: UpstreamEvent): OutFrame[];
  /** Upstream ended; returns closing frames if the upstream did not send them. */
  end(): OutFrame[];
  /** Usage seen so far; cache token counts when the upstream reported them. */
  usage(): UsageSummary;
  /** True once a content/reasoning/tool frame has been produced. */
  hasContent(): boolean;
  /**
   * True once the upstream stated the end of its answer: a finish reason, its terminal event or an
   * error event. A stream that ends without it was cut short, whatever end() can close.
   */
  finished(): boolean;
}

export function isProgressKind(kind: FrameKind): boolean {
  return kind === "content" || kind === "reasoning" || kind === "tool";
}
