// R13.3: an OpenAI chat chunk keeps its text delta in choices[0].delta.content.

import { continuationText, messagesWithPrefix } from "../continuationText.js";
import { isRecord } from "../values.js";

export const chatContinuation = continuationText((data) => {
  const choice = Array.isArray(data["choices"]) ? data["choices"][0] : undefined;
  const delta = isRecord(choice) ? choice["delta"] : undefined;
  return isRecord(delta) && typeof delta["content"] === "string" ? { holder: delta, key: "content" } : null;
}, messagesWithPrefix);
