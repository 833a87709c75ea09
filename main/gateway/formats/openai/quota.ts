// R18.3: OpenAI's quota headers, `x-ratelimit-{limit,remaining,reset}-<w>` (reset a duration:
// "6m0s", "1s", "20ms"); the Responses API sends them too.
import { countFamily, type QuotaHeaderFamily } from "../quota.js";

const OPENAI = "x-ratelimit-";
const COUNT_FIELD = /^(limit|remaining|reset)-(.+)$/;

export const OPENAI_COUNT_HEADERS: QuotaHeaderFamily = countFamily({
  source: "openai",
  prefix: OPENAI,
  parse: (rest) => {
    const m = COUNT_FIELD.exec(rest);
    return m ? [m[2], m[1]] : null;
  },
  name: (window, field) => `${OPENAI}${field}-${window}`,
});
