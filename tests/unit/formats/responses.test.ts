import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { clientHalf, extractUsage, sameFormatHalf, translateRequest, translateResponse, upstreamHalf } from "../../../main/gateway/formats/index.js";
import { DroppedFields } from "../../../main/gateway/formats/values.js";
import { expectGolden, fixtureJson } from "./helpers.js";

const codex = () => fixtureJson("requests/responses-codex.json");
const claudeCode = () => fixtureJson("requests/anthropic-claude-code.json");
const openaiTools = () => fixtureJson("requests/openai-tools-images.json");
const responsesJson = () => fixtureJson("responses/responses-reasoning-tools.json");
const client = clientHalf("openai-responses");
const ctx = (clientBody: Record<string, unknown> = codex()) => ({ clientModel: "codex-alias", requestId: "req-42", clientBody });

describe("Responses requests in (R16.1)", () => {
  it("R16.1 R1.9 refuses a body without model or input, unless previous_response_id continues a stored one", () => {
    expect(client.shapeProblem({ input: "hi" })).toBe("model: required non-empty string");
    expect(client.shapeProblem({ model: "m" })).toMatch(/^input:/);
    expect(client.shapeProblem({ model: "m", input: "" })).toMatch(/^input:/);
    expect(client.shapeProblem({ model: "m", input: [] })).toMatch(/^input:/);
    expect(client.shapeProblem({ model: "m", input: ["text"] })).toBe("input[0]: must be an object");
    expect(client.shapeProblem({ model: "m", input: { role: "user" } })).toMatch(/^input:/);
    expect(client.shapeProblem({ model: "m", input: "hi" })).toBeNull();
    expect(client.shapeProblem({ model: "m", input: [{ role: "user", content: "hi" }] })).toBeNull();
    expect(client.shapeProblem({ model: "m", previous_response_id: "resp_1" })).toBeNull();
    expect(client.shapeProblem({ model: "m", previous_response_id: "resp_1", input: [] })).toBeNull();
  });

  it("R16.1 reads a Codex body: instructions, developer and user messages, reasoning, function and custom tool calls with outputs", () => {
    const hub = client.toHub(codex(), new DroppedFields());
    expect(hub.messages.map((m) => m.role)).toEqual(["system", "system", "user", "assistant", "tool", "assistant", "tool", "user"]);
    expect(hub.messages[0]).toEqual({ role: "system", text: "You are Codex, a coding agent." });
    expect(hub.messages[2]).toEqual({
      role: "user",
      parts: [
        { type: "text", text: "Fix the greeting in hello.txt." },
        { type: "image", image: { kind: "base64", mediaType: "image/png", data: "iVBORw0KGgo=" } },
      ],
    });
    expect(hub.messages[3]).toEqual({
      role: "assistant",
      parts: [
        { type: "reasoning", text: "**Inspecting**\n\nLook at the file first.", origin: "openai-responses", encryptedContent: "gAAAAABo-enc-blob-0" },
        { type: "text", text: "Let me look at the file." },
        { type: "tool_call", id: "call_A1", name: "exec_command", arguments: '{"cmd":"cat hello.txt"}' },
      ],
    });
    expect(hub.messages[4]).toEqual({ role: "tool", toolCallId: "call_A1", name: "exec_command", parts: [{ type: "text", text: "hello\n" }], isError: false });
    const patch = "*** Begin Patch\n*** Update File: hello.txt\n@@\n-hello\n+hello, world\n*** End Patch\n";
    expect(hub.messages[5]).toEqual({
      role: "assistant",
      parts: [{ type: "tool_call", id: "call_B2", name: "apply_patch", arguments: JSON.stringify({ input: patch }), custom: true }],
    });
    expect(hub.messages[7]).toEqual({ role: "user", parts: [{ type: "text", text: "Thanks. Now run the tests." }] });
    expect(hub.maxTokens).toBe(8000);
    expect(hub.parallelToolCalls).toBe(false);
    expect(hub.toolChoice).toEqual({ type: "auto" });
    expect(hub.reasoning).toEqual({ mode: "enabled", effort: "high" });
    expect(hub.stream).toBe(true);
  });

  it("R16.1 R16.6 bridges the apply_patch custom tool as a function with one string field that states the grammar; hosted tools are dropped", () => {
    const dropped = new DroppedFields();
    const hub = client.toHub(codex(), dropped);
    expect(hub.tools.map((tool) => tool.name)).toEqual(["exec_command", "apply_patch"]);
    const patchTool = hub.tools[1];
    expect(patchTool.custom?.format).toMatchObject({ type: "grammar", syntax: "lark" });
    expect(patchTool.parameters).toMatchObject({ type: "object", required: ["input"], additionalProperties: false });
    const field = (patchTool.parameters["properties"] as Record<string, { type: string; description: string }>)["input"];
    expect(field.type).toBe("string");
    expect(field.description).toContain("raw freeform input");
    expect(field.description).toContain("lark grammar");
    expect(field.description).toContain('begin_patch: "*** Begin Patch" LF');
    expect(dropped.list()).toEqual(["tools.web_search", "tools.tool_search", "text.verbosity"]);
  });

  it("R16.1 takes a string input, role-only items, text.format json_schema, tool_choice by name and reasoning none", () => {
    const dropped = new DroppedFields();
    const hub = client.toHub(
      {
        model: "m",
        input: "Hello",
        instructions: "Be brief.",
        text: { format: { type: "json_schema", name: "answer", schema: { type: "object" }, strict: true } },
        tools: [{ type: "custom", name: "raw", format: { type: "text" } }],
        tool_choice: { type: "custom", name: "raw" },
        reasoning: { effort: "none" },
        temperature: 0.2,
        top_p: 0.9,
        safety_identifier: "user-7",
        include: ["reasoning.encrypted_content", "message.output_text.logprobs"],
        service_tier: "flex",
      },
      dropped,
    );
    expect(hub.messages).toEqual([
      { role: "system", text: "Be brief." },
      { role: "user", parts: [{ type: "text", text: "Hello" }] },
    ]);
    expect(hub.responseFormat).toEqual({ type: "json_schema", name: "answer", schema: { type: "object" }, strict: true });
    expect(hub.toolChoice).toEqual({ type: "function", name: "raw" });
    expect(hub.tools[0]?.custom).toEqual({ format: { type: "text" } });
    expect(hub.reasoning).toEqual({ mode: "disabled" });
    expect([hub.temperature, hub.topP, hub.user]).toEqual([0.2, 0.9, "user-7"]);
    expect(dropped.list()).toEqual(["service_tier", "include.message.output_text.logprobs"]);
  });

  it("R16.5 R7.1 the session hint is prompt_cache_key, then the metadata fields; prompt_cache_key is a cache hint", () => {
    expect(client.sessionHint(codex())).toBe("01a2334c-ad6b-7670-9998-ff61bd8e1bde");
    expect(client.sessionHint({ metadata: { session_id: "s-1" } })).toBe("s-1");
    expect(client.hasCacheHint(codex())).toBe(true);
    expect(client.hasCacheHint({ input: "x" })).toBe(false);
    expect(client.toolCount(codex())).toBe(4);
    expect(client.isStreamRequest(codex())).toBe(true);
    expect(client.wantsStreamUsage({})).toBe(true);
    expect(client.promptText(codex())).toContain("user: Thanks. Now run the tests.");
    expect(client.estimateInputTokens(codex())).toBeGreaterThan(100);
  });

  it("R16.6 translates the Codex body for chat, Anthropic and Gemini upstreams (golden), byte-stable", () => {
    for (const to of ["openai", "anthropic", "gemini"] as const) {
      const first = translateRequest("openai-responses", to, codex(), "upstream-model");
      expect(JSON.stringify(translateRequest("openai-responses", to, codex(), "upstream-model"))).toBe(JSON.stringify(first));
      expectGolden(`requests/responses-codex.to-${to}.json`, first);
    }
  });
});

describe("Responses requests out (R16.6)", () => {
  it("R16.6 builds a Responses request from a chat body: instructions, input items, flat tools, store false (golden)", () => {
    const out = translateRequest("openai", "openai-responses", openaiTools(), "gpt-5");
    expectGolden("requests/openai-tools-images.to-openai-responses.json", out);
    expect(out.body["store"]).toBe(false);
    expect(out.body["path"]).toBeUndefined();
    expect(upstreamHalf("openai-responses").path("gpt-5", true)).toBe("/responses");
  });

  it("R16.6 builds a Responses request from a Claude Code body; Anthropic thinking is not replayed (golden)", () => {
    const out = translateRequest("anthropic", "openai-responses", claudeCode(), "gpt-5");
    expectGolden("requests/anthropic-claude-code.to-openai-responses.json", out);
    expect(out.dropped).toEqual(expect.arrayContaining(["messages.thinking", "tools.web_search"]));
    const tools = out.body["tools"] as Record<string, unknown>[];
    expect(tools.every((tool) => tool["type"] === "function" && tool["strict"] === false)).toBe(true);
    expect(out.body["reasoning"]).toMatchObject({ summary: "auto" });
    expect(out.body["include"]).toEqual(["reasoning.encrypted_content"]);
  });

  it("R16.6 R16.1 a Responses body through the hub to a Responses upstream keeps custom tools, custom calls, outputs and encrypted reasoning", () => {
    const hub = client.toHub(codex(), new DroppedFields());
    const dropped = new DroppedFields();
    const body = upstreamHalf("openai-responses").fromHub(hub, "gpt-5-codex", dropped);
    const input = body["input"] as Record<string, unknown>[];
    expect(body["instructions"]).toBe("You are Codex, a coding agent.\n\n<permissions>workspace-write</permissions>");
    expect(input.map((item) => `${String(item["type"])}${typeof item["role"] === "string" ? `:${item["role"]}` : ""}`)).toEqual([
      "message:user",
      "reasoning",
      "message:assistant",
      "function_call",
      "function_call_output",
      "custom_tool_call",
      "custom_tool_call_output",
      "message:user",
    ]);
    expect(input[1]).toEqual({
      type: "reasoning",
      summary: [{ type: "summary_text", text: "**Inspecting**\n\nLook at the file first." }],
      encrypted_content: "gAAAAABo-enc-blob-0",
    });
    expect(input[5]).toEqual({
      type: "custom_tool_call",
      call_id: "call_B2",
      name: "apply_patch",
      input: "*** Begin Patch\n*** Update File: hello.txt\n@@\n-hello\n+hello, world\n*** End Patch\n",
    });
    expect(input[6]).toEqual({ type: "custom_tool_call_output", call_id: "call_B2", output: "Success. Updated the following files:\nM hello.txt\n" });
    const tools = body["tools"] as Record<string, unknown>[];
    const { type, name, description, format } = (codex()["tools"] as Record<string, unknown>[])[1];
    expect(tools[1]).toEqual({ type, name, description, format });
    expect(body["reasoning"]).toEqual({ effort: "high", summary: "auto" });
    expect(body["max_output_tokens"]).toBe(8000);
    expect(dropped.list()).toEqual([]);
  });

  it("R16.6 same-format requests pass through with only the model replaced", () => {
    const body = codex();
    const out = translateRequest("openai-responses", "openai-responses", body, "gpt-5.1-codex");
    expect(out).toEqual({ body: { ...body, model: "gpt-5.1-codex" }, dropped: [] });
  });
});

describe("Responses JSON answers (R16.2, R16.6)", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2025-06-01T12:00:00Z"));
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("R16.2 answers a Codex request from an Anthropic upstream: reasoning, message and function_call items, usage, the echoed request (golden)", () => {
    const out = translateResponse("anthropic", "openai-responses", fixtureJson("responses/anthropic-tool-use.json"), ctx());
    expectGolden("responses/anthropic-tool-use.to-openai-responses.json", out);
    expect(out).toMatchObject({
      id: "resp_req-42",
      object: "response",
      status: "completed",
      model: "codex-alias",
      store: false,
      prompt_cache_key: "01a2334c-ad6b-7670-9998-ff61bd8e1bde",
    });
    expect(out["output_text"]).toBeUndefined();
    expect(Object.keys(out["usage"] as object)).toEqual(["input_tokens", "input_tokens_details", "output_tokens", "output_tokens_details", "total_tokens"]);
  });

  it("R16.2 R16.6 a call to a bridged custom tool comes back as custom_tool_call with the raw input", () => {
    const chat = {
      id: "c1",
      object: "chat.completion",
      model: "deepseek-chat",
      choices: [
        {
          index: 0,
          finish_reason: "tool_calls",
          message: {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "call_9", type: "function", function: { name: "apply_patch", arguments: '{"input":"*** Begin Patch\\n*** End Patch\\n"}' } }],
          },
        },
      ],
      usage: { prompt_tokens: 900, completion_tokens: 40, prompt_tokens_details: { cached_tokens: 512 }, completion_tokens_details: { reasoning_tokens: 12 } },
    };
    const out = translateResponse("openai", "openai-responses", chat, ctx());
    expect(out["output"]).toEqual([
      { id: "ctc_req-42_0", type: "custom_tool_call", status: "completed", call_id: "call_9", name: "apply_patch", input: "*** Begin Patch\n*** End Patch\n" },
    ]);
    expect(out["usage"]).toEqual({
      input_tokens: 900,
      input_tokens_details: { cached_tokens: 512 },
      output_tokens: 40,
      output_tokens_details: { reasoning_tokens: 12 },
      total_tokens: 940,
    });
  });

  it("R16.2 an answer cut by the token limit is incomplete with reason max_output_tokens", () => {
    const chat = { choices: [{ index: 0, finish_reason: "length", message: { role: "assistant", content: "partial" } }], usage: { prompt_tokens: 5, completion_tokens: 8 } };
    const out = translateResponse("openai", "openai-responses", chat, ctx({ model: "m", input: "x" }));
    expect(out["status"]).toBe("incomplete");
    expect(out["incomplete_details"]).toEqual({ reason: "max_output_tokens" });
    expect(out["tools"]).toEqual([]);
  });

  it("R16.6 reads a Responses upstream answer for chat and Anthropic clients, with cached and reasoning tokens (golden)", () => {
    const plain = { clientModel: "my-alias", requestId: "req-42" };
    const chat = translateResponse("openai-responses", "openai", responsesJson(), plain);
    expectGolden("responses/responses-reasoning-tools.to-openai.json", chat);
    const anthropic = translateResponse("openai-responses", "anthropic", responsesJson(), plain);
    expectGolden("responses/responses-reasoning-tools.to-anthropic.json", anthropic);
    expect((chat["choices"] as Record<string, any>[])[0]["finish_reason"]).toBe("tool_calls");
    expect((chat["choices"] as Record<string, any>[])[0]["message"]["tool_calls"][1]["function"]).toEqual({
      name: "apply_patch",
      arguments: JSON.stringify({ input: "*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch\n" }),
    });
    expect((anthropic["content"] as Record<string, unknown>[])[0]).toEqual({
      type: "thinking",
      thinking: "**Reading the file**\n\nThen patch it.",
      signature: "switchyard.reasoning.openai-responses",
    });
    expect(extractUsage("openai-responses", responsesJson())).toEqual({ inputTokens: 5120, outputTokens: 210, cacheReadTokens: 4096, reasoningTokens: 128 });
    expect(upstreamHalf("openai-responses").usage(responsesJson())?.reasoningTokens).toBe(128);
  });

  it("R16.6 R16.7 signed Anthropic thinking survives a Codex turn inside encrypted_content and is replayed to Anthropic", () => {
    const out = translateResponse("anthropic", "openai-responses", fixtureJson("responses/anthropic-tool-use.json"), ctx());
    const output = out["output"] as Record<string, unknown>[];
    const reasoning = output.find((item) => item["type"] === "reasoning")!;
    expect(String(reasoning["encrypted_content"])).toMatch(/^switchyard\.anthropic\.signature:/);
    const next = {
      model: "m",
      input: [
        { role: "user", content: "go" },
        ...output,
        ...output.filter((item) => item["type"] === "function_call").map((item) => ({ type: "function_call_output", call_id: item["call_id"], output: "ok" })),
      ],
      reasoning: { effort: "medium" },
    };
    const { body } = translateRequest("openai-responses", "anthropic", next, "claude-sonnet-4-5");
    const assistant = (body["messages"] as Record<string, any>[])[1];
    expect(assistant["content"][0]).toMatchObject({ type: "thinking", signature: String(reasoning["encrypted_content"]).slice("switchyard.anthropic.signature:".length) });
    expect(body["thinking"]).toMatchObject({ type: "enabled" });
  });

  it("R16.6 same-format answers keep everything but the model, whose text can be edited in place", () => {
    const same = sameFormatHalf("openai-responses");
    expect(same.withClientModel(responsesJson(), "mine")).toEqual({ ...responsesJson(), model: "mine" });
    expect(same.editableModelText).toBe(true);
    expect(same.withUpstreamModel({ model: "alias", input: "x" }, "gpt-5")).toEqual({ model: "gpt-5", input: "x" });
  });

  it("R1.5 errors are OpenAI's JSON body; the mid-stream error is a response.failed event", () => {
    expect(client.errorBody(429, "rate_limit_error", "slow down")).toEqual({ error: { message: "slow down", type: "rate_limit_error", code: "rate_limit_error" } });
    const frame = client.errorFrame("all_targets_cooling_down", "all cooling");
    expect(frame.startsWith("event: response.failed\ndata: ")).toBe(true);
    const payload = JSON.parse(frame.split("data: ")[1]) as Record<string, any>;
    expect(payload).toMatchObject({
      type: "response.failed",
      sequence_number: 0,
      response: { status: "failed", error: { code: "all_targets_cooling_down", message: "all cooling", type: "server_error" } },
    });
    expect(client.heartbeatFrame).toBe(": keep-alive\n\n");
    expect(client.continuation).toBeNull();
  });
});
