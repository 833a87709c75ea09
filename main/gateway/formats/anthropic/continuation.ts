// R13.3: an Anthropic content_block_delta keeps its text in delta.text (a text_delta).

import { continuationText, messagesWithPrefix } from "../continuationText.js";
import { isRecord } from "../values.js";

export const anthropicContinuation = continuationText((data) => {
  const delta = data["delta"];
  return isRecord(delta) && delta["type"] === "text_delta" && typeof delta["text"] === "string" ? { holder: delta, key: "text" } : null;
}, messagesWithPrefix);
