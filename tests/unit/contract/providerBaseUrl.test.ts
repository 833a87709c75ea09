// R23.3: a provider's base URL is stored in API.md's convention for its format ("Providers"),
// whichever of the usual spellings was typed; custom paths are kept as typed.
import { describe, expect, it } from "vitest";
import { normaliseBaseUrl } from "../../../shared/providerBaseUrl.js";
import type { ProviderFormat } from "../../../shared/types.js";

const CASES: Array<[ProviderFormat, string, string]> = [
  // Anthropic: the origin; Switchyard appends /v1/messages.
  ["anthropic", "https://api.anthropic.com", "https://api.anthropic.com"],
  ["anthropic", "https://api.anthropic.com/", "https://api.anthropic.com"],
  ["anthropic", "https://api.anthropic.com/v1", "https://api.anthropic.com"],
  ["anthropic", "https://api.anthropic.com/v1/", "https://api.anthropic.com"],
  ["anthropic", "https://api.anthropic.com/v1//", "https://api.anthropic.com"],
  ["anthropic", "https://api.anthropic.com/V1", "https://api.anthropic.com"],
  ["anthropic", "https://api.anthropic.com/v1/messages", "https://api.anthropic.com"],
  ["anthropic", "  https://api.anthropic.com/v1  ", "https://api.anthropic.com"],
  ["anthropic", "http://127.0.0.1:4000/v1", "http://127.0.0.1:4000"],
  // A proxy's Anthropic route: only the version is cut, so /v1/messages lands where it should.
  ["anthropic", "https://proxy.example.com/anthropic/v1", "https://proxy.example.com/anthropic"],
  ["anthropic", "https://proxy.example.com/anthropic", "https://proxy.example.com/anthropic"],
  // OpenAI (and Responses): the version path; a bare origin gets /v1, custom paths stay.
  ["openai", "https://api.openai.com/v1", "https://api.openai.com/v1"],
  ["openai", "https://api.openai.com/v1/", "https://api.openai.com/v1"],
  ["openai", "https://api.openai.com", "https://api.openai.com/v1"],
  ["openai", "https://api.openai.com/", "https://api.openai.com/v1"],
  ["openai", "https://api.openai.com/v1/chat/completions", "https://api.openai.com/v1"],
  ["openai", "http://localhost:11434", "http://localhost:11434/v1"],
  ["openai", "https://openrouter.ai/api/v1", "https://openrouter.ai/api/v1"],
  ["openai", "https://host.example.com/api/openai/v1", "https://host.example.com/api/openai/v1"],
  ["openai", "https://host.example.com/openai", "https://host.example.com/openai"],
  ["openai", "https://api.deepseek.com/v1", "https://api.deepseek.com/v1"],
  ["openai-responses", "https://api.openai.com", "https://api.openai.com/v1"],
  ["openai-responses", "https://api.openai.com/v1/", "https://api.openai.com/v1"],
  ["openai-responses", "https://api.openai.com/v1/responses", "https://api.openai.com/v1"],
  ["openai-responses", "https://chatgpt.com/backend-api/codex", "https://chatgpt.com/backend-api/codex"],
  ["openai-responses", "https://chatgpt.com/backend-api/codex/", "https://chatgpt.com/backend-api/codex"],
  ["openai-responses", "https://chatgpt.com/backend-api/codex/responses", "https://chatgpt.com/backend-api/codex"],
  // Gemini: up to the version; a bare origin gets /v1beta, other versions and paths stay.
  ["gemini", "https://generativelanguage.googleapis.com", "https://generativelanguage.googleapis.com/v1beta"],
  ["gemini", "https://generativelanguage.googleapis.com/v1beta/", "https://generativelanguage.googleapis.com/v1beta"],
  ["gemini", "https://generativelanguage.googleapis.com/v1beta/models", "https://generativelanguage.googleapis.com/v1beta"],
  ["gemini", "https://generativelanguage.googleapis.com/v1", "https://generativelanguage.googleapis.com/v1"],
  ["gemini", "https://proxy.example.com/google/v1beta", "https://proxy.example.com/google/v1beta"],
  // The simulator answers every format at its origin; only trailing slashes go.
  ["simulator", "http://127.0.0.1:9000/", "http://127.0.0.1:9000"],
  ["simulator", "http://127.0.0.1:9000/v1", "http://127.0.0.1:9000/v1"],
  ["simulator", "", ""],
  // A query or fragment is kept as it is.
  ["openai", "https://host.example.com/?tenant=a", "https://host.example.com/v1?tenant=a"],
];

describe("R23.3 forgiving provider URLs", () => {
  it.each(CASES)("R23.3 %s %j is stored as %j", (format, typed, stored) => {
    expect(normaliseBaseUrl(format, typed)).toBe(stored);
  });

  it("R23.3 normalising a stored URL again changes nothing", () => {
    for (const [format, typed] of CASES) {
      const once = normaliseBaseUrl(format, typed);
      expect(normaliseBaseUrl(format, once), `${format} ${typed}`).toBe(once);
    }
  });
});
