// R23.3: provider base URLs are forgiving. Whichever of the usual spellings is typed (with or
// without `/v1`, a trailing slash, the endpoint pasted along), the provider is saved with the base
// URL API.md's convention gives its format ("Providers"), so the first request does not fail with
// a 404 about `/v1/v1/messages`. Only what is certainly a slip is changed: a custom path (a proxy's
// `/api/openai/v1`, ChatGPT's `/backend-api/codex`) is kept as typed.
import type { ProviderFormat } from "./types.js";

/** scheme://authority, the path, then the query and fragment (kept as they are). */
const URL_PARTS = /^(https?:\/\/[^/?#]*)([^?#]*)(.*)$/i;

/**
 * The endpoint Switchyard appends for each format, pasted at the end of a base URL by mistake:
 * appended again it could never be right, so it is cut. Gemini's `/models` is the start of its
 * per-model path (`/models/{model}:generateContent`).
 */
const PASTED_ENDPOINT: Record<ProviderFormat, RegExp | null> = {
  openai: /\/chat\/completions$/i,
  "openai-responses": /\/responses$/i,
  anthropic: /\/v1\/messages$/i,
  gemini: /\/models$/i,
  simulator: null,
};

/** The path a bare origin (no path at all) gets: the version path the format's SDK uses. */
const ORIGIN_PATH: Record<ProviderFormat, string> = {
  openai: "/v1",
  "openai-responses": "/v1",
  anthropic: "",
  gemini: "/v1beta",
  simulator: "",
};

/** Anthropic's base is the origin and Switchyard appends `/v1/messages`: a trailing `/v1` is always one too many. */
const TRAILING_VERSION = /(\/v1)+$/i;

const withoutTrailingSlashes = (path: string) => path.replace(/\/+$/, "");

/** The base URL as it is stored for a provider of this format (R23.3); idempotent. */
export function normaliseBaseUrl(format: ProviderFormat, baseUrl: string): string {
  const trimmed = baseUrl.trim();
  const parts = URL_PARTS.exec(trimmed);
  if (!parts) return trimmed;
  const [, origin, rawPath, rest] = parts;
  let path = withoutTrailingSlashes(rawPath);
  const endpoint = PASTED_ENDPOINT[format];
  if (endpoint) path = withoutTrailingSlashes(path.replace(endpoint, ""));
  if (format === "anthropic") path = path.replace(TRAILING_VERSION, "");
  if (path === "") path = ORIGIN_PATH[format];
  return origin + path + rest;
}
