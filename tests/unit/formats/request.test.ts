import { describe, expect, it } from "vitest";
import { translateRequest } from "../../../main/gateway/formats/index.js";
import { expectGolden, fixtureJson } from "./helpers.js";

const claudeCode = () => fixtureJson("requests/anthropic-claude-code.json");
const openaiTools = () => fixtureJson("requests/openai-tools-images.json");
const geminiCalls = () => fixtureJson("requests/gemini-function-calling.json");

describe("request translation (R1.4)", () => {
  it("R1.4 translates a Claude Code request to an OpenAI upstream (golden)", () => {
    const out = translateRequest("anthropic", "openai", claudeCode(), "gpt-5");
    expectGolden("requests/anthropic-claude-code.to-openai.json", out);
  });

  it("R1.4 translates a Claude Code request to a Gemini upstream (golden)", () => {
    const out = translateRequest("anthropic", "gemini", claudeCode(), "gemini-2.5-pro");
    expectGolden("requests/anthropic-claude-code.to-gemini.json", out);
  });

  it("R1.4 translates an OpenAI request with tools and images to an Anthropic upstream (golden)", () => {
    const out = translateRequest("openai", "anthropic", openaiTools(), "claude-sonnet-4-5");
    expectGolden("requests/openai-tools-images.to-anthropic.json", out);
  });

  it("R1.4 translates an OpenAI request with tools and images to a Gemini upstream (golden)", () => {
    const out = translateRequest("openai", "gemini", openaiTools(), "gemini-2.5-flash");
    expectGolden("requests/openai-tools-images.to-gemini.json", out);
  });

  it("R1.4 translates a Gemini function-calling request to OpenAI and Anthropic (golden)", () => {
    expectGolden("requests/gemini-function-calling.to-openai.json", translateRequest("gemini", "openai", geminiCalls(), "gpt-4o"));
    expectGolden("requests/gemini-function-calling.to-anthropic.json", translateRequest("gemini", "anthropic", geminiCalls(), "claude-haiku-4-5"));
  });

  it("R1.4 same-format requests pass through unchanged except the model", () => {
    const body = claudeCode();
    const out = translateRequest("anthropic", "anthropic", body, "claude-opus-4-5");
    expect(out.dropped).toEqual([]);
    expect(out.body).toEqual({ ...body, model: "claude-opus-4-5" });
    expect(Object.keys(out.body)).toEqual(Object.keys(body));
    const openai = openaiTools();
    expect(translateRequest("openai", "openai", openai, "gpt-4.1").body).toEqual({ ...openai, model: "gpt-4.1" });
    const gemini = geminiCalls();
    expect(translateRequest("gemini", "gemini", gemini, "gemini-2.5-pro").body).toEqual(gemini);
  });

  it("R1.4 drops the billing header, cache_control, server tools and context_management when leaving Anthropic", () => {
    const { body, dropped } = translateRequest("anthropic", "openai", claudeCode(), "gpt-5");
    expect(dropped).toEqual(expect.arrayContaining(["context_management", "cache_control", "system.billing_header", "tools.web_search", "messages.thinking"]));
    const text = JSON.stringify(body);
    expect(text).not.toContain("x-anthropic-billing-header");
    expect(text).not.toContain("cache_control");
    expect((body["tools"] as unknown[]).length).toBe(3);
  });

  it("R1.4 keeps a mid-conversation system message in place for OpenAI, and for Anthropic from OpenAI", () => {
    const { body } = translateRequest("anthropic", "openai", claudeCode(), "gpt-5");
    const roles = (body["messages"] as { role: string }[]).map((m) => m.role);
    expect(roles).toEqual(["system", "user", "assistant", "tool", "system", "assistant", "tool", "user"]);
    const fromOpenai = translateRequest(
      "openai",
      "anthropic",
      {
        model: "x",
        messages: [
          { role: "system", content: "A" },
          { role: "user", content: "hi" },
          { role: "assistant", content: "yo" },
          { role: "system", content: "B" },
          { role: "user", content: "again" },
        ],
      },
      "claude",
    ).body;
    expect(fromOpenai["system"]).toBe("A");
    expect(fromOpenai["messages"]).toEqual([
      { role: "user", content: [{ type: "text", text: "hi" }] },
      { role: "assistant", content: [{ type: "text", text: "yo" }] },
      { role: "system", content: "B" },
      { role: "user", content: [{ type: "text", text: "again" }] },
    ]);
  });

  it("R1.4 tags a mid-conversation system message as user text for Gemini", () => {
    const { body } = translateRequest("anthropic", "gemini", claudeCode(), "gemini-2.5-pro");
    const contents = body["contents"] as { role: string; parts: Record<string, unknown>[] }[];
    const tagged = contents.flatMap((c) => c.parts).find((p) => typeof p["text"] === "string" && p["text"].startsWith("<system>"));
    expect(tagged?.["text"]).toBe("<system>\nThe user switched to plan mode: do not edit files.\n</system>");
    expect(body["systemInstruction"]).toEqual({
      parts: [{ text: "You are Claude Code, Anthropic's official CLI for Claude.\n\nYou are an interactive CLI tool that helps users with software engineering tasks." }],
    });
  });

  it("R1.4 Anthropic tool_use round-trips to OpenAI tool_calls with ids preserved", () => {
    const { body } = translateRequest("anthropic", "openai", claudeCode(), "gpt-5");
    const messages = body["messages"] as Record<string, any>[];
    const calls = messages.filter((m) => m["tool_calls"]).flatMap((m) => m["tool_calls"]);
    expect(calls.map((c: any) => c.id)).toEqual(["toolu_01A09q90qw90lq917835lq9", "toolu_01B7sJ2kX9vQ"]);
    expect(JSON.parse(calls[0].function.arguments)).toEqual({ command: "ls src", description: "List files in src" });
    const results = messages.filter((m) => m["role"] === "tool");
    expect(results.map((m) => m["tool_call_id"])).toEqual(["toolu_01A09q90qw90lq917835lq9", "toolu_01B7sJ2kX9vQ"]);
    const back = translateRequest("openai", "anthropic", body, "claude").body;
    const blocks = (back["messages"] as { content: Record<string, unknown>[] }[]).flatMap((m) => (Array.isArray(m.content) ? m.content : []));
    expect(blocks.filter((b) => b["type"] === "tool_use").map((b) => b["id"])).toEqual(["toolu_01A09q90qw90lq917835lq9", "toolu_01B7sJ2kX9vQ"]);
    expect(blocks.filter((b) => b["type"] === "tool_result").map((b) => b["tool_use_id"])).toEqual(["toolu_01A09q90qw90lq917835lq9", "toolu_01B7sJ2kX9vQ"]);
  });

  it("R1.4 OpenAI tool results reach Anthropic as leading tool_result blocks and Gemini as named functionResponse", () => {
    const anthropic = translateRequest("openai", "anthropic", openaiTools(), "claude").body;
    const last = (anthropic["messages"] as { role: string; content: Record<string, unknown>[] }[]).at(-1)!;
    expect(last).toEqual({ role: "user", content: [{ type: "tool_result", tool_use_id: "call_abc123", content: '{"temperature":22,"unit":"celsius"}' }] });
    const gemini = translateRequest("openai", "gemini", openaiTools(), "gemini-2.5-flash").body;
    const lastGemini = (gemini["contents"] as { role: string; parts: unknown[] }[]).at(-1)!;
    expect(lastGemini).toEqual({ role: "user", parts: [{ functionResponse: { name: "get_current_weather", response: { output: '{"temperature":22,"unit":"celsius"}' } } }] });
  });

  it("R1.4 maps images: data URLs to base64 sources and back, http URLs to url sources", () => {
    const anthropic = translateRequest("openai", "anthropic", openaiTools(), "claude").body;
    const first = (anthropic["messages"] as { content: Record<string, unknown>[] }[])[0].content;
    expect(first[1]).toEqual({ type: "image", source: { type: "url", url: "https://upload.wikimedia.org/wikipedia/commons/d/dd/Nature-boardwalk.jpg" } });
    expect(first[2]).toEqual({ type: "image", source: { type: "base64", media_type: "image/jpeg", data: "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcG" } });
    const openai = translateRequest("anthropic", "openai", anthropic, "gpt").body;
    const parts = (openai["messages"] as { role: string; content: Record<string, any>[] }[]).find((m) => m.role === "user")!.content;
    expect(parts[1]).toEqual({ type: "image_url", image_url: { url: "https://upload.wikimedia.org/wikipedia/commons/d/dd/Nature-boardwalk.jpg" } });
    expect(parts[2]).toEqual({ type: "image_url", image_url: { url: "data:image/jpeg;base64,/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcG" } });
  });

  it("R1.4 moves images returned by a tool into a user turn for OpenAI", () => {
    const body = {
      model: "claude",
      max_tokens: 100,
      messages: [
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "Screenshot", input: {} }] },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "toolu_1",
              content: [
                { type: "text", text: "done" },
                { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } },
              ],
            },
          ],
        },
      ],
    };
    const messages = translateRequest("anthropic", "openai", body, "gpt").body["messages"];
    expect(messages).toEqual([
      { role: "assistant", content: null, tool_calls: [{ id: "toolu_1", type: "function", function: { name: "Screenshot", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "toolu_1", content: "done" },
      { role: "user", content: [{ type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }] },
    ]);
  });

  it("R1.4 maps tool_choice auto/any/tool/none to auto/required/function/none and Gemini modes", () => {
    const cases: [unknown, unknown, unknown][] = [
      [{ type: "auto" }, "auto", { mode: "AUTO" }],
      [{ type: "any" }, "required", { mode: "ANY" }],
      [
        { type: "tool", name: "Read" },
        { type: "function", function: { name: "Read" } },
        { mode: "ANY", allowedFunctionNames: ["Read"] },
      ],
      [{ type: "none" }, "none", { mode: "NONE" }],
    ];
    for (const [anthropic, openai, gemini] of cases) {
      const body = { ...claudeCode(), tool_choice: anthropic };
      expect(translateRequest("anthropic", "openai", body, "m").body["tool_choice"]).toEqual(openai);
      expect(translateRequest("anthropic", "gemini", body, "m").body["toolConfig"]).toEqual({ functionCallingConfig: gemini });
      const back = translateRequest(
        "openai",
        "anthropic",
        { model: "m", messages: [], tools: [{ type: "function", function: { name: "Read", parameters: {} } }], tool_choice: openai },
        "c",
      ).body;
      expect(back["tool_choice"]).toEqual(anthropic);
    }
  });

  it("R1.4 maps max_tokens, stop, temperature, top_p and user ⇄ metadata.user_id", () => {
    const anthropic = translateRequest("openai", "anthropic", openaiTools(), "claude").body;
    expect(anthropic).toMatchObject({ max_tokens: 4096, stop_sequences: ["\n\nHuman:"], temperature: 0.2, top_p: 0.9, metadata: { user_id: "user-1234" } });
    const withCompletionTokens = translateRequest("openai", "anthropic", { model: "m", messages: [], max_completion_tokens: 777 }, "c").body;
    expect(withCompletionTokens["max_tokens"]).toBe(777);
    const openai = translateRequest("anthropic", "openai", { ...claudeCode(), stop_sequences: ["END"], top_p: 0.5 }, "gpt").body;
    expect(openai).toMatchObject({ max_tokens: 32000, stop: ["END"], top_p: 0.5, user: "user_2f1c_account_9a7e_session_41b0" });
    expect(openai["stream_options"]).toEqual({ include_usage: true });
  });

  it("R1.4 maps thinking: adaptive+effort → reasoning_effort / dynamic Gemini budget; enabled budget → effort and thinkingBudget", () => {
    expect(translateRequest("anthropic", "openai", claudeCode(), "o").body["reasoning_effort"]).toBe("high");
    const enabled = { ...claudeCode(), thinking: { type: "enabled", budget_tokens: 2000 } };
    delete (enabled as Record<string, unknown>)["output_config"];
    expect(translateRequest("anthropic", "openai", enabled, "o").body["reasoning_effort"]).toBe("low");
    const gemini = translateRequest("anthropic", "gemini", enabled, "g").body;
    expect((gemini["generationConfig"] as Record<string, unknown>)["thinkingConfig"]).toEqual({ includeThoughts: true, thinkingBudget: 2000 });
    const adaptive = translateRequest("anthropic", "gemini", claudeCode(), "g").body;
    expect((adaptive["generationConfig"] as Record<string, unknown>)["thinkingConfig"]).toEqual({ includeThoughts: true, thinkingBudget: -1 });
  });

  it("R1.4 maps reasoning_effort to an Anthropic thinking budget that fits max_tokens, dropping what thinking forbids", () => {
    const open = { model: "m", messages: [{ role: "user", content: "hi" }], reasoning_effort: "medium", temperature: 0.3, top_p: 0.9 };
    const { body, dropped } = translateRequest("openai", "anthropic", open, "claude");
    expect(body["thinking"]).toEqual({ type: "enabled", budget_tokens: 8192 });
    expect(body["max_tokens"]).toBe(4096 + 8192);
    expect(body["temperature"]).toBeUndefined();
    expect(body["top_p"]).toBeUndefined();
    expect(dropped).toEqual(expect.arrayContaining(["temperature", "top_p"]));
    const tight = translateRequest("openai", "anthropic", { ...open, max_tokens: 1000 }, "claude");
    expect(tight.body["thinking"]).toBeUndefined();
    expect(tight.dropped).toContain("thinking");
    const clamped = translateRequest("openai", "anthropic", { ...open, reasoning_effort: "high", max_tokens: 10000 }, "claude");
    expect(clamped.body["thinking"]).toEqual({ type: "enabled", budget_tokens: 9999 });
    expect(translateRequest("openai", "anthropic", { ...open, reasoning_effort: "none" }, "claude").body["thinking"]).toEqual({ type: "disabled" });
  });

  it("R1.4 leaves thinking off when the last assistant tool turn has no thinking block Anthropic could verify", () => {
    const body = {
      model: "m",
      reasoning_effort: "high",
      messages: [
        { role: "user", content: "list" },
        { role: "assistant", content: null, reasoning_content: "think", tool_calls: [{ id: "call_1", type: "function", function: { name: "ls", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "call_1", content: "a b" },
      ],
    };
    const { body: out, dropped } = translateRequest("openai", "anthropic", body, "claude");
    expect(out["thinking"]).toBeUndefined();
    expect(dropped).toEqual(expect.arrayContaining(["thinking", "messages.reasoning_content"]));
  });

  it("R1.4 replays reasoning only where it came from: DeepSeek reasoning back to OpenAI, Claude thinking back to Anthropic", () => {
    const anthropicHistory = {
      model: "m",
      max_tokens: 100,
      messages: [
        { role: "user", content: "q" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "from deepseek", signature: "switchyard.reasoning.openai" },
            { type: "text", text: "a" },
          ],
        },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "from claude", signature: "sig-claude" },
            { type: "redacted_thinking", data: "opaque" },
            { type: "text", text: "b" },
          ],
        },
        { role: "user", content: "next" },
      ],
    };
    const openai = translateRequest("anthropic", "openai", anthropicHistory, "deepseek-reasoner").body;
    const assistants = (openai["messages"] as Record<string, unknown>[]).filter((m) => m["role"] === "assistant");
    expect(assistants[0]).toEqual({ role: "assistant", content: "a", reasoning_content: "from deepseek" });
    expect(assistants[1]).toEqual({ role: "assistant", content: "b" });
    const viaHub = translateRequest("openai", "anthropic", translateRequest("anthropic", "openai", anthropicHistory, "x").body, "claude").body;
    expect(JSON.stringify(viaHub)).not.toContain("thinking");
  });

  it("R1.4 sanitises tool ids Anthropic would reject, consistently for tool_use and tool_result", () => {
    const body = {
      model: "m",
      messages: [
        { role: "assistant", content: "", tool_calls: [{ id: "functions.read:0", type: "function", function: { name: "read", arguments: '{"p":1}' } }] },
        { role: "tool", tool_call_id: "functions.read:0", content: "ok" },
      ],
    };
    const out = translateRequest("openai", "anthropic", body, "claude").body;
    expect(out["messages"]).toEqual([
      { role: "assistant", content: [{ type: "tool_use", id: "functions_read_0", name: "read", input: { p: 1 } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "functions_read_0", content: "ok" }] },
    ]);
  });

  it("R1.4 replays Gemini thought signatures from OpenAI extra_content and stands in for missing ones", () => {
    const body = {
      model: "m",
      messages: [
        { role: "user", content: "go" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "c1", type: "function", function: { name: "a", arguments: "{}" }, extra_content: { google: { thought_signature: "SIG" } } },
            { id: "c2", type: "function", function: { name: "b", arguments: "{}" } },
          ],
        },
        { role: "tool", tool_call_id: "c1", content: "1" },
        { role: "tool", tool_call_id: "c2", content: "2" },
        { role: "assistant", content: null, tool_calls: [{ id: "c3", type: "function", function: { name: "a", arguments: "{}" } }] },
      ],
    };
    const contents = translateRequest("openai", "gemini", body, "gemini-3-pro").body["contents"] as { parts: Record<string, unknown>[] }[];
    expect(contents[1].parts.map((p) => p["thoughtSignature"])).toEqual(["SIG", undefined]);
    expect(contents[2].parts.map((p) => (p["functionResponse"] as Record<string, unknown>)["name"])).toEqual(["a", "b"]);
    expect(contents[3].parts[0]["thoughtSignature"]).toBe("skip_thought_signature_validator");
  });

  it("R1.4 lists unknown and unmappable fields as dropped instead of failing", () => {
    const { body, dropped } = translateRequest(
      "openai",
      "anthropic",
      { model: "m", messages: [{ role: "user", content: "hi" }], frobnicate: true, logprobs: true, n: 3, seed: 7, response_format: { type: "json_object" } },
      "claude",
    );
    expect(dropped).toEqual(expect.arrayContaining(["frobnicate", "logprobs", "n", "seed", "response_format"]));
    expect(body["frobnicate"]).toBeUndefined();
    const fromAnthropic = translateRequest("anthropic", "gemini", { model: "m", max_tokens: 5, messages: [], service_tier: "auto", mcp_servers: [] }, "g");
    expect(fromAnthropic.dropped).toEqual(["service_tier", "mcp_servers"]);
  });

  it("R1.4 maps structured output: output_config.format ⇄ response_format json_schema ⇄ responseJsonSchema", () => {
    const schema = { type: "object", properties: { a: { type: "string" } } };
    const anthropic = { model: "m", max_tokens: 10, messages: [{ role: "user", content: "x" }], output_config: { format: { type: "json_schema", schema } } };
    expect(translateRequest("anthropic", "openai", anthropic, "g").body["response_format"]).toEqual({ type: "json_schema", json_schema: { name: "response", schema } });
    expect(translateRequest("anthropic", "gemini", anthropic, "g").body["generationConfig"]).toMatchObject({ responseMimeType: "application/json", responseJsonSchema: schema });
    const openai = { model: "m", messages: [], response_format: { type: "json_schema", json_schema: { name: "r", schema, strict: true } } };
    expect(translateRequest("openai", "anthropic", openai, "c").body["output_config"]).toEqual({ format: { type: "json_schema", schema } });
  });
});
