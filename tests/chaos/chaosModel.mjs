// The pieces of a chaos run that need no server: the seeded generator, the fault catalogue and
// the client-side verdict on one streamed answer.

/** Small seeded PRNG (mulberry32): the same seed gives the same fault sequence. */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Every upstream misbehaviour of issue 13, as simulator faults. "before" kinds fail before any
 * content byte; "mid" kinds break a stream after its first content chunk (for a JSON request the
 * stream fields do not apply and the answer is a normal one). Connection refused comes from the
 * provider whose port is closed, not from this list.
 */
export const FAULT_KINDS = [
  { name: "429+retry-after", when: "before", fault: { status: 429, retryAfter: 1 } },
  { name: "429", when: "before", fault: { status: 429 } },
  { name: "500", when: "before", fault: { status: 500 } },
  { name: "502", when: "before", fault: { status: 502 } },
  { name: "503", when: "before", fault: { status: 503 } },
  { name: "504", when: "before", fault: { status: 504 } },
  { name: "reset", when: "before", fault: { reset: true } },
  { name: "latency-spike", when: "before", fault: { latencyMs: 400 } },
  { name: "stall-before-first-byte", when: "before", fault: { latencyMs: 5_000 } },
  { name: "stall-before-content", when: "before", fault: { stallBeforeContent: true } },
  { name: "malformed-json", when: "before", fault: { body: '{"id":"chatcmpl-broken","choices":[{"message":' } },
  { name: "malformed-sse-first", when: "before", fault: { garbleAfterChunks: 0 } },
  { name: "stall-mid-stream", when: "mid", fault: { stallAfterChunks: 1 } },
  { name: "truncated-stream", when: "mid", fault: { endAfterChunks: 1 } },
  { name: "reset-mid-stream", when: "mid", fault: { resetAfterChunks: 1 } },
  { name: "malformed-sse-mid", when: "mid", fault: { garbleAfterChunks: 1 } },
];

/** What every simulated answer says; a "completed" answer with less text was cut short silently. */
export const REPLY_TEXT = "alpha beta gamma delta epsilon zeta.";

/** The answer text of a JSON response in the client's format. */
export function jsonText(client, body) {
  if (client === "openai") return body.choices?.[0]?.message?.content ?? "";
  return (body.content ?? []).map((b) => b.text ?? "").join("");
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
}

function frames(text) {
  const out = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const lines = block.split(/\r?\n/).filter((l) => l !== "" && !l.startsWith(":"));
    if (lines.length === 0) continue;
    const event =
      lines
        .find((l) => l.startsWith("event:"))
        ?.slice(6)
        .trim() ?? null;
    const data = lines
      .filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(5).trimStart())
      .join("\n");
    out.push({ event, data });
  }
  return out;
}

function streamText(client, list) {
  let text = "";
  for (const f of list) {
    if (f.data === "[DONE]") continue;
    const d = JSON.parse(f.data);
    text += client === "openai" ? (d.choices?.[0]?.delta?.content ?? "") : d.type === "content_block_delta" ? (d.delta?.text ?? "") : "";
  }
  return text;
}

/**
 * The verdict on one streamed answer as the client sees it: `ok` when it completed; otherwise
 * `midStreamError` when it ended with a well-formed error event after at least one earlier event
 * (the first byte had gone out); anything else is a `problem`.
 */
export function checkStream(client, text) {
  const list = frames(text);
  for (const f of list) {
    if (f.data === "[DONE]") continue;
    try {
      JSON.parse(f.data);
    } catch {
      return { ok: false, midStreamError: false, problem: `frame is not JSON: ${f.data.slice(0, 80)}` };
    }
  }
  const last = list.at(-1);
  if (!last) return { ok: false, midStreamError: false, problem: "empty stream" };
  const isError = client === "openai" ? last.data !== "[DONE]" && JSON.parse(last.data).error !== undefined : last.event === "error";
  if (isError) {
    const body = JSON.parse(last.data);
    const wellFormed = client === "openai" ? typeof body.error?.message === "string" : body.type === "error" && typeof body.error?.type === "string";
    if (!wellFormed) return { ok: false, midStreamError: false, problem: `malformed error event: ${last.data.slice(0, 120)}` };
    if (list.length < 2) return { ok: false, midStreamError: false, problem: `error before the first byte: ${last.data.slice(0, 120)}` };
    return { ok: false, midStreamError: true, problem: null };
  }
  const complete = client === "openai" ? last.data === "[DONE]" : last.event === "message_stop";
  if (!complete) return { ok: false, midStreamError: false, problem: `stream ended without a terminal event (last: ${last.event ?? ""} ${last.data.slice(0, 80)})` };
  return { ok: true, midStreamError: false, problem: null, text: streamText(client, list) };
}
