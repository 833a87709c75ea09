// Mid-stream continuation (R13.3, `streamRecovery.midstreamEnabled`): when a stream breaks after
// text reached the client, another connection is asked for the rest, with the text so far as an
// assistant prefix, and only the new suffix is stitched into the open client stream. Never after a
// tool call or reasoning reached the client (a prefix cannot resume those), never repeating text.
//
// Supported: client formats whose half says where a frame keeps its text and how a prefill is sent
// (OpenAI chat, Anthropic, Gemini; not Responses, whose numbered events and final response object
// cannot be spliced), and Anthropic-format upstreams, whose trailing assistant message is a true
// prefill. Other upstreams end with the error event as before.
import type { WireFormat } from "../../../shared/types.js";
import type { Target } from "./resolve.js";
import type { OutFrame } from "../formats/index.js";
import { clientHalf, upstreamFormatOf, upstreamHalf } from "../formats/index.js";
import type { ContinuationText } from "../formats/adapter.js";

type Json = Record<string, unknown>;

/** The text delta of one client frame, "" when it carries none or the format cannot be continued. */
export function textOfFrame(format: WireFormat, frame: OutFrame): string {
  return clientHalf(format).continuation?.textOf(frame) ?? "";
}

/** What one streaming request sent its client so far, and whether a prefix could resume it. */
export class StreamTranscript {
  text = "";
  private unsafe = false;
  private broken = false;

  constructor(
    readonly clientFormat: WireFormat,
    readonly frames: ContinuationText,
  ) {}

  /** Only for client formats whose text frames can be read and rewritten. */
  static for(clientFormat: WireFormat, enabled: boolean): StreamTranscript | null {
    const frames = clientHalf(clientFormat).continuation;
    return enabled && frames ? new StreamTranscript(clientFormat, frames) : null;
  }

  /** Frames as they reach the client. */
  record(frames: OutFrame[]): void {
    for (const f of frames) {
      if (f.kind === "tool" || f.kind === "reasoning") this.unsafe = true;
      else if (f.kind === "content") this.text += this.frames.textOf(f);
    }
  }

  /** The stream broke after output: true when the rest may be asked for elsewhere. */
  breakAfterOutput(): boolean {
    this.broken = !this.unsafe && this.text !== "";
    return this.broken;
  }

  /** A continuation is pending: the next attempt asks for the rest. */
  get resuming(): boolean {
    return this.broken;
  }

  /** Can this target continue? Only an upstream format that takes an assistant prefill (its half says, R22.5). */
  canContinueOn(target: Pick<Target, "provider">): boolean {
    return upstreamHalf(upstreamFormatOf(target.provider, this.clientFormat)).takesPrefill;
  }

  /** The client's request with the text so far as the assistant's unfinished answer. */
  continuationBody(body: Json): Json {
    return this.frames.withPrefix(body, this.text);
  }

  /** A fresh stitch for the continuation attempt. */
  stitch(): ContinuationStitch {
    return new ContinuationStitch(this);
  }
}

/**
 * Filters the continuation attempt's client frames: the lifecycle frames that would reopen the
 * message are dropped, text the client already has is not sent again, and what goes out is added
 * to the transcript (a second break resumes after it). A tool or reasoning frame ends the stitch.
 */
export class ContinuationStitch {
  private held = "";
  private checking = true;
  private started = false;
  /** Whitespace the prefill did not carry; a continuation that starts with it must not repeat it. */
  private readonly trailing: string;

  constructor(private readonly transcript: StreamTranscript) {
    this.trailing = transcript.text.slice(transcript.text.trimEnd().length);
  }

  /** The frames to send, or null when the continuation turned into something a prefix cannot stitch. */
  filter(frames: OutFrame[]): OutFrame[] | null {
    const out: OutFrame[] = [];
    for (const f of frames) {
      if (f.kind === "tool" || f.kind === "reasoning") return null;
      if (f.kind === "content") {
        this.content(f, out);
        continue;
      }
      // What would reopen the message is dropped; closing, usage and done frames still end it.
      if (!this.started && f.kind === "lifecycle") continue;
      this.dropHeld();
      out.push(f);
    }
    this.transcript.record(out);
    return out;
  }

  private content(frame: OutFrame, out: OutFrame[]): void {
    const text = this.transcript.frames.textOf(frame);
    if (!this.checking) return this.emit(frame, text, out);
    // A model may restart its answer from the top instead of continuing: hold text while it could
    // still be a repeat of what the client has, then send only what is new.
    this.held += text;
    const sent = this.transcript.text;
    if (this.held.length < sent.length && sent.startsWith(this.held)) return;
    const fresh = this.held.startsWith(sent) ? this.held.slice(sent.length) : this.stripTrailing(this.held);
    this.checking = false;
    this.held = "";
    this.emit(frame, fresh, out);
  }

  private stripTrailing(text: string): string {
    return this.trailing !== "" && text.startsWith(this.trailing) ? text.slice(this.trailing.length) : text;
  }

  /** The continuation ended while text was held: all of it repeated what the client has. */
  private dropHeld(): void {
    this.held = "";
    this.checking = false;
  }

  private emit(frame: OutFrame, text: string, out: OutFrame[]): void {
    if (text === "") return;
    this.started = true;
    out.push(this.transcript.frames.withText(frame, text));
  }
}
