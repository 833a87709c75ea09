// Stream frames that differ only in a few values (a stream's text deltas: the same chunk around
// another word, 50 times per answer). The JSON around the values is serialised once, and each frame
// is those pieces around its values' JSON: byte for byte what sseJson says of the same object, for
// a fraction of a generic serialisation, which was most of a translated frame's cost (issue 33).

import { sseJson } from "./sse.js";
import type { FrameKind, OutFrame } from "./types.js";
import type { JsonObject } from "./values.js";

/** A value's place in the sample: a string no client sends, found once in the sample's JSON. */
const hole = (i: number): string => `\u0000switchyard hole ${i}\u0000`;

export class FrameTemplate<V extends readonly (string | number)[]> {
  /** The JSON text between the holes (one more piece than holes), or null to serialise each frame whole. */
  private readonly pieces: string[] | null;

  /**
   * `shape` builds the frame's data from its `count` values; it is called once with markers in
   * place of the values. Every value must appear in the data as given, once, in the order given.
   */
  constructor(
    count: V["length"],
    private readonly shape: (...values: V) => JsonObject,
    private readonly event?: string,
  ) {
    const markers = Array.from({ length: count }, (_, i) => hole(i));
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- the markers stand in for the values once; split() checks each landed where a value goes
    this.pieces = FrameTemplate.split(sseJson(shape(...(markers as unknown as V)), event), count);
  }

  /** The SSE frame of the data `shape` builds from `values`. */
  text(...values: V): string {
    const pieces = this.pieces;
    if (!pieces) return sseJson(this.shape(...values), this.event);
    let out = pieces[0];
    for (let i = 0; i < values.length; i++) out += JSON.stringify(values[i]) + pieces[i + 1];
    return out;
  }

  /** The frame of `values`, with its data for the taps (OutFrame.data). */
  frame(kind: FrameKind, ...values: V): OutFrame {
    return { text: this.text(...values), kind, data: this.shape(...values) };
  }

  /** The sample's text cut at each hole, in order; null when a hole is missing or repeated (a value the shape copies or drops). */
  private static split(sample: string, holes: number): string[] | null {
    const pieces: string[] = [];
    let from = 0;
    for (let i = 0; i < holes; i++) {
      const marker = JSON.stringify(hole(i));
      const at = sample.indexOf(marker, from);
      if (at === -1 || sample.indexOf(marker, at + marker.length) !== -1) return null;
      pieces.push(sample.slice(from, at));
      from = at + marker.length;
    }
    pieces.push(sample.slice(from));
    return pieces;
  }
}
