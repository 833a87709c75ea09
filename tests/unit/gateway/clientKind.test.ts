// Client detection from the headers the real clients sent (recorded against a loopback server,
// tests/fixtures/clients/clientHeaders.json): the Connect page and the request log name the tool.
import { readFileSync } from "node:fs";
import type { IncomingHttpHeaders } from "node:http";
import { describe, expect, it } from "vitest";
import { clientKindOf } from "../../../main/gateway/context/trace.js";
import type { ClientKind } from "../../../shared/types.js";

interface Recorded {
  client: string;
  version: string;
  run: string;
  expected: ClientKind;
  request: string;
  headers: IncomingHttpHeaders;
}

const recorded: Recorded[] = JSON.parse(readFileSync(new URL("../../fixtures/clients/clientHeaders.json", import.meta.url), "utf8")).clients;
const of = (client: string, request?: string) => recorded.filter((r) => r.client === client && (!request || r.request === request));

describe("clientKindOf with recorded headers", () => {
  it.each(recorded.map((r) => [`${r.client} ${r.version}: ${r.run} → ${r.expected}`, r] as const))("R16 %s", (_name, r) => {
    expect(clientKindOf(r.headers)).toBe(r.expected);
  });

  it("R16.5 Codex CLI is recognised from codex exec and the interactive TUI, by user-agent or by originator alone", () => {
    const codex = of("Codex CLI");
    expect(codex.map((r) => r.headers.originator)).toEqual(["codex_exec", "codex-tui"]);
    for (const r of codex) {
      expect(clientKindOf(r.headers)).toBe("codex-cli");
      expect(clientKindOf({ ...r.headers, "user-agent": "reqwest/0.12" })).toBe("codex-cli");
    }
    expect(clientKindOf({ "user-agent": "codex_cli_rs/0.30.0 (Linux)" })).toBe("codex-cli");
    expect(clientKindOf({ "user-agent": "reqwest", originator: "codex_cli_rs" })).toBe("codex-cli");
  });

  it("R1.2 Qwen Code's Anthropic mode borrows Claude Code's user-agent but not its own marks: it is not Claude Code", () => {
    const [qwen] = of("Qwen Code", "POST /v1/messages");
    const [claude] = of("Claude Code");
    expect(qwen.headers["user-agent"]).toMatch(/^claude-cli\//);
    expect(clientKindOf(qwen.headers)).toBe("qwen-code");
    // Any one of Claude Code's own marks makes a claude-cli agent Claude Code again.
    for (const mark of ["x-claude-code-session-id", "anthropic-dangerous-direct-browser-access"] as const) {
      expect(clientKindOf({ ...qwen.headers, [mark]: claude.headers[mark] })).toBe("claude-code");
    }
    expect(clientKindOf({ ...qwen.headers, "anthropic-beta": "claude-code-20250219" })).toBe("claude-code");
    // A bare claude-cli user-agent (no x-app) is Claude Code, as before.
    expect(clientKindOf({ "user-agent": "claude-cli/2.1.0 (external, cli)" })).toBe("claude-code");
  });

  it("R16 opencode is told from the AI SDK it is built on; the AI SDK from the OpenAI SDK", () => {
    for (const r of of("opencode")) expect(r.headers["user-agent"]).toContain("ai-sdk/");
    expect(clientKindOf({ "user-agent": "my-app/1.0 ai-sdk/provider-utils/4.0.23 runtime/node" })).toBe("ai-sdk");
    expect(clientKindOf({ "user-agent": "ai-sdk-provider-utils/5.0.81 node.js/v20.20.2" })).toBe("ai-sdk");
    expect(clientKindOf({ "user-agent": "OpenAI/JS 6.30.1" })).toBe("openai-sdk");
    expect(clientKindOf({ "user-agent": "openai/python 1.99" })).toBe("openai-sdk");
  });

  it("R17.5 the Gemini CLI is told from the GenAI SDK it is built on, with or without its client name (headers as Gemini CLI 0.61 and @google/genai 3.3 sent them)", () => {
    const sdkMark = "google-genai-sdk/1.30.0 gl-node/v20.20.2";
    expect(clientKindOf({ "user-agent": "GeminiCLI-tui/0.61.0/gemini-2.5-pro (linux; x64; terminal)", "x-goog-api-client": sdkMark })).toBe("gemini-cli");
    expect(clientKindOf({ "user-agent": "GeminiCLI/0.61.0/gemini-2.5-pro (linux; x64)", "x-goog-api-client": sdkMark })).toBe("gemini-cli");
    expect(clientKindOf({ "user-agent": "google-genai-sdk/3.3.0 gl-node/v20.20.2", "x-goog-api-client": "google-genai-sdk/3.3.0 gl-node/v20.20.2" })).toBe("genai-sdk");
    expect(clientKindOf({ "user-agent": "node", "x-goog-api-client": sdkMark })).toBe("genai-sdk");
  });
});
