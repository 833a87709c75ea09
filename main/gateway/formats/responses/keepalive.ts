// Keep-alives a Responses stream numbers like its other events. An SSE comment is the usual
// keep-alive, but Codex's idle timer counts only events with data (measured with 0.171: comments
// did not stop its "Reconnecting…"), so for Codex the keep-alive is OpenAI's own heartbeat event,
// `{"type":"keepalive","sequence_number":n}`, which Codex's parser ignores. The stream's own
// events, numbered from 0 by their encoder (or their upstream), then move past the keep-alives.
// (The OpenAI SDK's stream helper refuses any event before response.created: SDK clients keep
// the comment.)

import type { NumberedKeepAlive } from "../adapter.js";
import { sseJson } from "../sse.js";

const SEQUENCE = /"sequence_number":(\d+)/g;

export const responsesKeepAlive: NumberedKeepAlive = {
  frame: (n) => sseJson({ type: "keepalive", sequence_number: n }, "keepalive"),
  shift: (text, by) => text.replace(SEQUENCE, (_match, n: string) => `"sequence_number":${Number(n) + by}`),
};
