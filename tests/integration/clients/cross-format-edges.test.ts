// Cross-format edges with the official SDKs (issue 4; R1.4, R1.5): reasoning/thinking in both
// directions, unmappable fields reported in X-Switchyard-Dropped-Fields (never a 500), and
// upstream failures reaching each SDK as its own typed error.
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { beforeAll, describe, expect, it } from "vitest";
import {
  anthropicTurn,
  ANTHROPIC_TOOL,
  FORMATS,
  lastUpstreamRequest,
  OPENAI_TOOL,
  useCrossFormatRig,
  TOOL_NAME,
  UPSTREAMS,
  type Json,
  type UpstreamFormat,
} from "../../fixtures/clients/crossFormat.js";
import { addProvider, parseSse } from "../harness.js";

const rig = useCrossFormatRig();

describe("R1.4 reasoning crosses formats inside the stream grammar", () => {
  for (const format of FORMATS) {
    it(`R1.4 anthropic SDK ← ${format} upstream reasoning: a signed thinking block precedes the text, and replaying it is accepted`, async () => {
      const up = UPSTREAMS[format];
      rig.sim.addFault(up.key, { reasoningOnlyMs: 60, times: 1 });
      const params: Anthropic.Messages.MessageCreateParamsNonStreaming = {
        model: up.alias,
        max_tokens: 2048,
        thinking: { type: "enabled", budget_tokens: 1024 },
        messages: [{ role: "user", content: "Think first, then answer." }],
      };
      const first = await anthropicTurn(rig.anthropic, params, true);
      expect(first.content.map((b) => b.type)).toEqual(["thinking", "text"]);
      const thinking = first.content[0] as Anthropic.Messages.ThinkingBlock;
      expect(thinking.thinking).toContain("Considering the request.");
      // An Anthropic upstream's signature is sealed per account (R20.1); reasoning from elsewhere carries our marker.
      if (format === "anthropic") expect(thinking.signature).toMatch(/^gAAAAA/);
      else expect(thinking.signature).toBe(`switchyard.reasoning.${format}`);

      // Claude Code replays thinking blocks in the next turn; that must never fail.
      const second = await rig.anthropic.messages.create({
        ...params,
        messages: [...params.messages, { role: "assistant", content: first.content }, { role: "user", content: "And now?" }],
      });
      expect(second.stop_reason).toBe("end_turn");
      const replayed = lastUpstreamRequest(rig.sim, up).body as Json;
      if (format === "anthropic") {
        expect(replayed.messages[1].content[0]).toMatchObject({ type: "thinking", signature: thinking.signature });
      } else if (format === "openai") {
        expect(replayed.messages.find((m: Json) => m.role === "assistant").reasoning_content).toBe(thinking.thinking);
      } else {
        expect(JSON.stringify(replayed.contents)).not.toContain("Considering the request.");
      }
    });

    it(`R1.4 openai SDK ← ${format} upstream reasoning streams as reasoning_content before the content`, async () => {
      const up = UPSTREAMS[format];
      rig.sim.addFault(up.key, { reasoningOnlyMs: 60, times: 1 });
      const s = await rig.openai.chat.completions.create({
        model: `${up.provider}/${up.upstreamModel}`,
        stream: true,
        reasoning_effort: "low",
        messages: [{ role: "user", content: "Think first, then answer." }],
      });
      let reasoning = "";
      let content = "";
      for await (const chunk of s) {
        const delta = (chunk.choices[0]?.delta ?? {}) as Json;
        if (typeof delta.reasoning_content === "string") {
          expect(content).toBe("");
          reasoning += delta.reasoning_content;
        }
        content += delta.content ?? "";
      }
      expect(reasoning).toContain("Considering the request.");
      expect(content).toContain("Hello from cross-format");
    });
  }
});

describe("R1.4 unmappable fields are dropped with a warning header, never a 500", () => {
  it("R1.4 anthropic SDK → openai upstream: service_tier, inference_geo and a server tool are reported in X-Switchyard-Dropped-Fields", async () => {
    const { data, response } = await rig.anthropic.messages
      .create({
        model: UPSTREAMS.openai.alias,
        max_tokens: 64,
        service_tier: "auto",
        inference_geo: "us",
        tools: [ANTHROPIC_TOOL, { type: "web_search_20250305", name: "web_search" }],
        messages: [{ role: "user", content: "hello" }],
      })
      .withResponse();
    expect(data.stop_reason).toBe("end_turn");
    const dropped = (response.headers.get("x-switchyard-dropped-fields") ?? "").split(",");
    expect(dropped).toEqual(expect.arrayContaining(["service_tier", "inference_geo", "tools.web_search"]));
    const upstream = lastUpstreamRequest(rig.sim, UPSTREAMS.openai).body as Json;
    expect(upstream.service_tier).toBeUndefined();
    expect(upstream.inference_geo).toBeUndefined();
    expect(upstream.tools.map((t: Json) => t.function.name)).toEqual([TOOL_NAME]);
  });

  it("R1.4 openai SDK → anthropic upstream: seed, logprobs and n are reported", async () => {
    const { data, response } = await rig.openai.chat.completions
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- the test sends the deprecated `seed` on purpose: the gateway must report it dropped
      .create({ model: "up-anthropic/claude-upstream", seed: 7, logprobs: true, n: 2, messages: [{ role: "user", content: "hello" }] })
      .withResponse();
    expect(data.choices[0].finish_reason).toBe("stop");
    const dropped = (response.headers.get("x-switchyard-dropped-fields") ?? "").split(",");
    expect(dropped).toEqual(expect.arrayContaining(["seed", "logprobs", "n"]));
  });

  it("R1.4 openai SDK → gemini upstream, streaming: dropped fields are in the stream's headers", async () => {
    const { data: s, response } = await rig.openai.chat.completions
      .create({ model: "up-gemini/gemini-upstream", stream: true, logit_bias: { "50256": -100 }, messages: [{ role: "user", content: "hello" }] })
      .withResponse();
    let text = "";
    for await (const chunk of s) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toContain("Hello from cross-format");
    expect(response.headers.get("x-switchyard-dropped-fields")).toContain("logit_bias");
  });

  it("R1.4 same-format traffic reports nothing dropped", async () => {
    const { response } = await rig.anthropic.messages
      .create({ model: UPSTREAMS.anthropic.alias, max_tokens: 64, service_tier: "auto", messages: [{ role: "user", content: "hello" }] })
      .withResponse();
    expect(response.headers.get("x-switchyard-dropped-fields")).toBeNull();
    expect((lastUpstreamRequest(rig.sim, UPSTREAMS.anthropic).body as Json).service_tier).toBe("auto");
  });

  const odd: Array<{ name: string; route: "/v1/messages" | "/v1/chat/completions"; body: Json }> = [
    {
      name: "anthropic unknown content blocks, documents, thinking with a foreign signature, server tools",
      route: "/v1/messages",
      body: {
        max_tokens: 32,
        tools: [{ type: "bash_20250124", name: "bash" }, { name: "no_schema" }, ANTHROPIC_TOOL],
        tool_choice: { type: "mystery" },
        messages: [
          {
            role: "user",
            content: [
              { type: "hologram", data: 1 },
              { type: "document", source: { type: "file", file_id: "f1" } },
              { type: "text", text: "hi" },
            ],
          },
          {
            role: "assistant",
            content: [
              { type: "thinking", thinking: "hm", signature: "not-a-real-signature" },
              { type: "server_tool_use", id: "s1", name: "web_search", input: {} },
              { type: "text", text: "ok" },
            ],
          },
          {
            role: "user",
            content: [{ type: "tool_result", tool_use_id: "never-issued", content: [{ type: "image", source: { type: "url", url: "https://example.com/a.png" } }] }],
          },
          { role: "narrator", content: "??" },
          { role: "user", content: "" },
        ],
      },
    },
    {
      name: "openai audio parts, a developer turn, functions, a dangling tool message, a custom tool",
      route: "/v1/chat/completions",
      body: {
        messages: [
          { role: "developer", content: [{ type: "text", text: "be brief" }] },
          {
            role: "user",
            content: [
              { type: "input_audio", input_audio: { data: "AAAA", format: "wav" } },
              { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
            ],
          },
          { role: "tool", tool_call_id: "orphan", content: "result without a call" },
          { role: "function", name: "legacy", content: "x" },
          { role: "assistant", content: null, tool_calls: [{ id: "functions.read:0", type: "function", function: { name: "read", arguments: "{not json" } }] },
          { role: "user", content: "continue" },
        ],
        tools: [{ type: "custom", custom: { name: "grammar" } }, OPENAI_TOOL],
        functions: [{ name: "legacy", parameters: {} }],
        modalities: ["text", "audio"],
        response_format: { type: "json_object" },
      },
    },
  ];
  for (const client of odd) {
    for (const format of FORMATS) {
      it(`R1.4 ${client.route === "/v1/messages" ? "anthropic" : "openai"} client → ${format} upstream, ${client.name}: answered, not a 500`, async () => {
        const up = UPSTREAMS[format];
        for (const stream of [false, true]) {
          const r = await rig.gw.post(client.route, { ...client.body, model: `${up.provider}/${up.upstreamModel}`, stream });
          expect(r.status, r.text).toBe(200);
          if (format !== (client.route === "/v1/messages" ? "anthropic" : "openai")) {
            expect(r.headers.get("x-switchyard-dropped-fields")).toBeTruthy();
          }
          if (stream) expect(parseSse(r.text).length).toBeGreaterThan(2);
          else expect(r.body).toMatchObject({ model: `${up.provider}/${up.upstreamModel}` });
        }
      });
    }
  }
});

describe("R1.5 cross-format errors reach each SDK in its own format", () => {
  // Dedicated providers: failures here must not cool down the ones the round trips use.
  const errorModel = (format: UpstreamFormat) => `err-${format}/${UPSTREAMS[format].upstreamModel}`;

  beforeAll(async () => {
    for (const format of FORMATS) {
      await addProvider(rig.gw, `err-${format}`, rig.sim, format, [`err-key-${format}`], { models: [UPSTREAMS[format].upstreamModel] });
    }
  });

  for (const format of FORMATS) {
    it(`R1.5 a 400 from a ${format} upstream is a typed BadRequestError in both SDKs`, async () => {
      rig.sim.addFault(`err-key-${format}`, { status: 400, times: 2 });
      const a = await rig.anthropic.messages.create({ model: errorModel(format), max_tokens: 16, messages: [{ role: "user", content: "x" }] }).catch((e: unknown) => e);
      expect(a).toBeInstanceOf(Anthropic.BadRequestError);
      expect((a as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
      const o = await rig.openai.chat.completions.create({ model: errorModel(format), messages: [{ role: "user", content: "x" }] }).catch((e: unknown) => e);
      expect(o).toBeInstanceOf(OpenAI.BadRequestError);
      expect((o as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({ message: expect.any(String) });
    });

    it(`R1.5 a ${format} upstream that dies mid-stream ends each client's stream with an error in its own format`, async () => {
      await rig.gw.api("POST", "/api/resilience/cooldowns", { all: true });
      rig.sim.addFault(`err-key-${format}`, { resetAfterChunks: 1, times: 1 });
      const anthropicRaw = await rig.gw.post("/v1/messages", { model: errorModel(format), max_tokens: 16, stream: true, messages: [{ role: "user", content: "x" }] });
      expect(anthropicRaw.status).toBe(200);
      const aEvents = parseSse(anthropicRaw.text);
      expect(aEvents[0]?.event).toBe("message_start");
      expect(aEvents.some((e) => e.event === "content_block_delta")).toBe(true);
      expect(aEvents.at(-1)?.event).toBe("error");
      expect(JSON.parse(aEvents.at(-1)!.data)).toMatchObject({ type: "error", error: { type: expect.any(String), message: expect.any(String) } });

      await rig.gw.api("POST", "/api/resilience/cooldowns", { all: true });
      rig.sim.addFault(`err-key-${format}`, { resetAfterChunks: 1, times: 1 });
      const s = await rig.openai.chat.completions.create({ model: errorModel(format), stream: true, messages: [{ role: "user", content: "x" }] });
      let text = "";
      const failure = await (async () => {
        for await (const chunk of s) text += chunk.choices[0]?.delta.content ?? "";
      })().catch((e: unknown) => e);
      expect(text.length).toBeGreaterThan(0);
      expect(failure).toBeInstanceOf(OpenAI.APIError);
      await rig.gw.api("POST", "/api/resilience/cooldowns", { all: true });
    });
  }
});
