// What the request log keeps beyond the attempts (issue 14): the client kind from the user-agent
// and the prompt text (only ever read when prompt logging is on).
import { describe, expect, it } from "vitest";
import { candidatesFor, SelectionLog } from "../../../main/gateway/pipeline/select.js";
import { clientHalf } from "../../../main/gateway/formats/index.js";
import { PROMPT_TEXT_MAX_CHARS } from "../../../main/gateway/formats/promptText.js";
import { arrivalFields, clientKindOf, skipRecordsOf } from "../../../main/gateway/context/trace.js";
import type { RequestSession } from "../../../main/gateway/context/requestSession.js";
import { connection, ports, provider, selectionRequest } from "./fixtures.js";

describe("client kind", () => {
  it("issue14 tells the common clients apart by their user-agent and marks", () => {
    expect(clientKindOf({ "user-agent": "claude-cli/2.1.0 (external, cli)" })).toBe("claude-code");
    expect(clientKindOf({ "user-agent": "OpenAI/Python 1.40.0", "x-title": "Aider" })).toBe("aider");
    expect(clientKindOf({ "user-agent": "litellm", "http-referer": "https://aider.chat" })).toBe("aider");
    expect(clientKindOf({ "user-agent": "codex_cli_rs/0.30.0 (Linux)" })).toBe("codex-cli");
    expect(clientKindOf({ "user-agent": "reqwest", originator: "codex_cli_rs" })).toBe("codex-cli");
    expect(clientKindOf({ "user-agent": "OpenAI/JS 6.30.1" })).toBe("openai-sdk");
    expect(clientKindOf({ "user-agent": "Anthropic/Python 0.60.0" })).toBe("anthropic-sdk");
    expect(clientKindOf({ "user-agent": "curl/8.5.0" })).toBe("curl");
    expect(clientKindOf({ "user-agent": "node" })).toBe("other");
    expect(clientKindOf({})).toBe("other");
  });
});

describe("prompt text", () => {
  const promptTextOf = (body: Record<string, unknown>) => clientHalf(body.contents ? "gemini" : body.system ? "anthropic" : "openai").promptText(body);

  it("issue14 reads system and turns from OpenAI, Anthropic, Gemini and Responses bodies, text only", () => {
    expect(clientHalf("openai-responses").promptText({ instructions: "be brief", input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] }] })).toBe(
      "system: be brief\nuser: hi",
    );
    expect(
      promptTextOf({
        messages: [
          { role: "system", content: "be brief" },
          {
            role: "user",
            content: [
              { type: "text", text: "hi" },
              { type: "image_url", image_url: {} },
            ],
          },
        ],
      }),
    ).toBe("system: be brief\nuser: hi");
    expect(
      promptTextOf({
        system: [{ type: "text", text: "sys" }],
        messages: [
          { role: "user", content: "q" },
          { role: "assistant", content: "a" },
        ],
      }),
    ).toBe("system: sys\nuser: q\nassistant: a");
    expect(promptTextOf({ systemInstruction: { parts: [{ text: "g" }] }, contents: [{ role: "user", parts: [{ text: "x" }] }] })).toBe("system: g\nuser: x");
  });

  it("issue14 is cut at its bound, and never read with prompt logging off", () => {
    const long = promptTextOf({ messages: [{ role: "user", content: "x".repeat(PROMPT_TEXT_MAX_CHARS * 2) }] });
    expect(long.length).toBe(PROMPT_TEXT_MAX_CHARS + 1);
    expect(long.endsWith("…")).toBe(true);
    const body = { messages: [{ role: "user", content: "secret plans" }] };
    const read = () => clientHalf("openai").promptText(body);
    expect(arrivalFields({ "user-agent": "curl/8" }, () => expect.unreachable("read with logging off"), false)).toEqual({ clientKind: "curl", promptText: null });
    expect(arrivalFields({ "user-agent": "curl/8" }, read, true)).toEqual({ clientKind: "curl", promptText: "user: secret plans" });
  });
});

describe("skipped before dispatch", () => {
  it("R7.2 a connection leased to another session is passed over and named in the timeline, with the cooling one", () => {
    const alpha = provider({ id: "alpha", models: ["m1"] });
    const p = ports({
      providers: [alpha],
      connections: [
        connection({ id: "a1", provider: "alpha" }),
        connection({ id: "a2", provider: "alpha", priority: 1 }),
        connection({ id: "a3", provider: "alpha", priority: 2 }),
      ],
    });
    p.h.store.updateRuntime("a1", { rateLimitedUntil: p.h.clock.now() + 5_000, testStatus: "unavailable" });
    // A narrow fake of the session port: another owner's lease holds a2.
    const session: RequestSession = {
      key: "s",
      pin: () => null,
      pinnedConnectionId: () => null,
      isFree: (c) => c.id !== "a2",
      mayStillUse: (c) => c.id !== "a2",
      served: () => undefined,
      capacityRefusal: () => null,
    };
    const log = new SelectionLog();
    const got = [...candidatesFor({ provider: alpha, model: "m1" }, { ...p, engine: p.h.engine, clock: p.h.clock }, log, selectionRequest(p, null, session))];
    expect(got.map((c) => c.connection.id)).toEqual(["a3"]);
    expect(skipRecordsOf(log)).toEqual([
      { provider: "alpha", target: "alpha/m1", connectionId: "a1", reason: "unavailable", remainingMs: 5_000 },
      { provider: "alpha", target: "alpha/m1", connectionId: "a2", reason: "leased", remainingMs: null },
    ]);
    expect(skipRecordsOf(log.nextPass())).toEqual(skipRecordsOf(log));
  });
});
