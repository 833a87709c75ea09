// Responses identifiers: "resp_…" for the response and a prefix per output item kind, derived from
// the request id and the item's output index, so the JSON and streaming paths agree and a replayed
// id never collides with another turn's.

const UNSAFE = /[^A-Za-z0-9_-]/g;

export type ItemPrefix = "msg_" | "rs_" | "fc_" | "ctc_";

export function responseId(requestId: string): string {
  return `resp_${requestId.replace(UNSAFE, "_")}`;
}

export function itemId(prefix: ItemPrefix, requestId: string, outputIndex: number): string {
  return `${prefix}${requestId.replace(UNSAFE, "_")}_${outputIndex}`;
}
