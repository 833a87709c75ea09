// R13.3 for Gemini clients (R17.4): a Gemini stream chunk keeps its text in the first non-thought
// text part of candidates[0].content.parts; the prefill is a trailing model turn, without thinking
// (an Anthropic prefill cannot be combined with it).

import { continuationText } from "../continuationText.js";
import { isRecord } from "../values.js";

export const geminiContinuation = continuationText(
  (data) => {
    const candidate = Array.isArray(data["candidates"]) ? data["candidates"][0] : undefined;
    const content = isRecord(candidate) ? candidate["content"] : undefined;
    const parts = isRecord(content) && Array.isArray(content["parts"]) ? content["parts"] : [];
    const part = parts.find((p) => isRecord(p) && typeof p["text"] === "string" && p["thought"] !== true);
    return isRecord(part) ? { holder: part, key: "text" } : null;
  },
  (body, text) => {
    const contents = Array.isArray(body["contents"]) ? body["contents"] : [];
    const config = isRecord(body["generationConfig"]) ? body["generationConfig"] : undefined;
    const { thinkingConfig: _thinking, ...generationConfig } = config ?? {};
    return { ...body, contents: [...contents, { role: "model", parts: [{ text: text.trimEnd() }] }], ...(config ? { generationConfig } : {}) };
  },
);
