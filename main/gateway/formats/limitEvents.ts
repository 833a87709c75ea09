// R21.4: the stream event each upstream format ends a stream with when the account's limit ran out
// inside a 200 (Anthropic an `error` event `rate_limit_error`, Responses `response.failed` /
// `response.incomplete` for `usage_limit_reached`), as an error body the classifier reads with the
// stream's response headers. Formats that have no such event are absent.
import type { WireFormat } from "../../../shared/types.js";
import { anthropicLimitEventBody } from "./anthropic/events.js";
import { responsesLimitEventBody } from "./responses/events.js";
import type { UpstreamEvent } from "./types.js";

const LIMIT_EVENT_BODY: Partial<Record<WireFormat, (evt: UpstreamEvent) => string | null>> = {
  anthropic: anthropicLimitEventBody,
  "openai-responses": responsesLimitEventBody,
};

/** What reads the error body of a limit event of `format`'s stream (null for any other event); null when the format has none. */
export function limitEventReader(format: WireFormat): ((evt: UpstreamEvent) => string | null) | null {
  return LIMIT_EVENT_BODY[format] ?? null;
}
