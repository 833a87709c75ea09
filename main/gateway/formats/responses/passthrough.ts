// Same-format Responses streams. The frames that carry a response object (created, in_progress
// and the terminal ones) name the model; the terminal ones carry the usage.

import type { PassthroughTracker } from "../adapter.js";
import type { HubUsage } from "../hub.js";
import type { OutFrame, UpstreamEvent } from "../types.js";
import { asRecord, asString, type JsonObject } from "../values.js";
import { usageFromResponses } from "./usage.js";

const TERMINAL = new Set(["response.completed", "response.incomplete", "response.failed"]);
const CARRY_RESPONSE = new Set(["response.created", "response.in_progress", "response.queued", ...TERMINAL]);

export const responsesPassthrough: PassthroughTracker = {
  track(evt: UpstreamEvent, payload: JsonObject): { usage: HubUsage | undefined; carriesModel: boolean; finished?: boolean } {
    const type = asString(payload["type"]) ?? evt.event ?? "";
    if (!CARRY_RESPONSE.has(type)) return { usage: undefined, carriesModel: false };
    const response = asRecord(payload["response"]);
    return { usage: usageFromResponses(response?.["usage"]), carriesModel: typeof response?.["model"] === "string", finished: TERMINAL.has(type) };
  },
  // The upstream stated its end only in a terminal event, which is itself the close. A stream cut
  // short without one is ended by the relay with errorFrame's response.failed, never a made-up
  // response.completed, which Codex would take for a whole answer.
  closing: (): OutFrame[] => [],
};
