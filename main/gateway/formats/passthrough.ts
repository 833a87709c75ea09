// Same-format streams: every frame is the upstream event re-serialised (same event name,
// same data string), except the model id, which becomes the id the client asked for. What a
// format needs to know about its own stream (usage, the model field, closing frames) comes
// from its adapter's PassthroughTracker.

import type { PassthroughTracker, SameFormatHalf, UpstreamHalf } from "./adapter.js";
import { emptyUsage, mergeUsage, type HubUsage } from "./hub.js";
import { sseFrame } from "./sse.js";
import { isProgressKind, type OutFrame, type StreamTranslator, type TranslateContext, type UpstreamEvent } from "./types.js";
import { summariseUsage } from "./usage.js";
import { asRecord, parseJson, type JsonObject } from "./values.js";
import type { WireFormat } from "../../../shared/types.js";
import { sameFormatHalf } from "./adapters.js";

/** How a chunk's model key is found: the compact marker, and the pattern for any spacing. */
interface ModelKey {
  marker: string;
  field: RegExp;
}

function modelKey(name: string): ModelKey {
  return { marker: `"${name}":"`, field: new RegExp(`("${name}"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`) };
}

const MODEL_KEY = modelKey("model");

/**
 * Rewrites the first "model" key in the text. In JSON text an unescaped `"model"` followed
 * by a colon can only be a key, never string content; the first such key is the chunk's own
 * (OpenAI) or message_start's message.model (Anthropic), as content is still empty there.
 * `modelJson` is the new id already as JSON text (serialised once per stream, not per frame).
 */
function rewriteModel(data: string, modelJson: string, key: ModelKey = MODEL_KEY): string {
  // Fast path for the compact JSON every upstream sends: `"model":"<id>"` with no escapes.
  const { marker, field } = key;
  const at = data.indexOf(marker);
  if (at !== -1) {
    const start = at + marker.length;
    const end = data.indexOf('"', start);
    if (end !== -1 && data.lastIndexOf("\\", end) < start) return data.slice(0, start - 1) + modelJson + data.slice(end + 1);
  }
  return data.replace(field, (_match, prefix: string) => `${prefix}${modelJson}`);
}

const isJsonSpace = (code: number): boolean => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;

/** Past the JSON whitespace at `from`. */
function skipSpace(text: string, from: number): number {
  let at = from;
  while (isJsonSpace(text.charCodeAt(at))) at++;
  return at;
}

/**
 * A same-format request body as the client sent it, with only its model replaced: no
 * re-serialisation of a body that can be hundreds of KB (issue 12), and the bytes the client's
 * prompt cache was built on stay as they were, whatever the client's spacing (R20.2). Only when
 * the text holds exactly one `"model"` key, carrying the parsed top-level model, can that key be
 * the top-level one (in JSON text a quoted `"model"` followed by a colon is a key, never string
 * content, and a value such as Gemini's role "model" is followed by no colon); anything else
 * (a nested "model", escapes in the value) returns null and the caller serialises.
 */
export function requestTextWithModel(raw: string, clientModel: string, upstreamModel: string): string | null {
  const key = '"model"';
  let valueAt = -1;
  for (let at = raw.indexOf(key); at !== -1; at = raw.indexOf(key, at + key.length)) {
    const colon = skipSpace(raw, at + key.length);
    if (raw.charCodeAt(colon) !== 0x3a) continue;
    if (valueAt !== -1) return null;
    valueAt = skipSpace(raw, colon + 1);
  }
  const value = JSON.stringify(clientModel);
  if (valueAt === -1 || !raw.startsWith(value, valueAt)) return null;
  return raw.slice(0, valueAt) + JSON.stringify(upstreamModel) + raw.slice(valueAt + value.length);
}

/**
 * A same-format JSON answer (OpenAI, Anthropic) as the upstream's own text with only its model
 * replaced by the one the client asked for: what `withClientModel` + JSON.stringify would say,
 * without copying and re-serialising the object (issue 12). Null when the text cannot be edited
 * safely (no string model, more than one `"model":` key, spacing); the caller serialises.
 */
export function responseTextWithModel(format: WireFormat, text: string, parsed: unknown, clientModel: string): string | null {
  if (!sameFormatHalf(format).editableModelText) return null;
  const model = asRecord(parsed)?.model;
  return typeof model === "string" ? requestTextWithModel(text, model, clientModel) : null;
}

export class PassthroughTranslator implements StreamTranslator {
  private started = false;
  private completed = false;
  private content = false;
  private upstreamFinished = false;
  private total: HubUsage = emptyUsage();
  private readonly tracker: PassthroughTracker;
  private readonly modelJson: string;
  private readonly modelKey: ModelKey;

  constructor(
    private readonly adapter: UpstreamHalf,
    private readonly same: SameFormatHalf,
    ctx: TranslateContext,
  ) {
    this.tracker = same.passthroughTracker();
    this.modelJson = JSON.stringify(ctx.clientModel);
    this.modelKey = same.streamModelKey ? modelKey(same.streamModelKey) : MODEL_KEY;
  }

  push(evt: UpstreamEvent): OutFrame[] {
    if (this.same.isPlainContentChunk?.(evt.data)) {
      this.content = true;
      this.started = true;
      // Unescaped `"model":"` in JSON text can only be a key, so without it there is nothing to rewrite.
      const data = evt.data.includes('"model":"') ? rewriteModel(evt.data, this.modelJson) : evt.data;
      return [{ text: sseFrame(data, evt.event), kind: "content" }];
    }
    const isDone = evt.data.trim() === "[DONE]";
    const payload = isDone ? undefined : asRecord(parseJson(evt.data));
    const kind = this.adapter.classify(evt, payload);
    if (isProgressKind(kind)) this.content = true;
    if (kind === "error" || kind === "done") this.completed = this.upstreamFinished = true;
    this.started = true;
    const data = payload && this.track(evt, payload) ? rewriteModel(evt.data, this.modelJson, this.modelKey) : evt.data;
    return [{ text: sseFrame(data, evt.event), kind }];
  }

  end(): OutFrame[] {
    if (this.completed || !this.started) return [];
    this.completed = true;
    return this.tracker.closing(this.total);
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

  /** Updates the usage total; returns whether this event carries the model id to rewrite. */
  private track(evt: UpstreamEvent, payload: JsonObject): boolean {
    const { usage, carriesModel, finished } = this.tracker.track(evt, payload);
    if (usage) this.total = mergeUsage(this.total, usage);
    if (finished) this.upstreamFinished = true;
    return carriesModel;
  }
}
