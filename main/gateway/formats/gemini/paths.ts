// Gemini names the model and the call in the path (R17.1): `/v1beta/models/{model}:{method}`, the
// same under `/v1`. `{model}` is any name a client may use (R1.3): a combo, an alias, a bare model,
// or `provider/model` with its slash literal or as %2F; Google's own `models/` prefix is optional.

export type GeminiMethod = "generateContent" | "streamGenerateContent" | "countTokens";

export interface GeminiPathCall {
  model: string;
  method: GeminiMethod;
}

const PREFIXES = ["/v1beta/models/", "/v1/models/"];
const METHODS: ReadonlySet<string> = new Set<GeminiMethod>(["generateContent", "streamGenerateContent", "countTokens"]);
const isGeminiMethod = (method: string): method is GeminiMethod => METHODS.has(method);

/** The model and method a path names, or null when it is no Gemini model call. */
export function geminiPathCall(path: string): GeminiPathCall | null {
  const prefix = PREFIXES.find((p) => path.startsWith(p));
  if (!prefix) return null;
  let rest: string;
  try {
    rest = decodeURIComponent(path.slice(prefix.length));
  } catch {
    return null;
  }
  const colon = rest.lastIndexOf(":");
  if (colon <= 0) return null;
  const method = rest.slice(colon + 1);
  if (!isGeminiMethod(method)) return null;
  const model = rest.slice(0, colon).replace(/^models\//, "");
  return model ? { model, method } : null;
}

/** A model name as a Gemini resource name, `models/<name>` (what model list and get answer). */
export function geminiModelName(model: string): string {
  return `models/${model}`;
}
