// Issue 33: a client's wire format must not cost it speed. The shortcuts that make a translated
// lane cheap (frames serialised around their values once, text read off plain chunks without a
// parse, a Responses stream's echoed fields serialised once, schemas copied only when they change)
// must say byte for byte what the generic path says.
import { describe, expect, it } from "vitest";
import { FrameTemplate } from "../../../main/gateway/formats/frameTemplate.js";
import { clientHalf, translateRequest, type WireFormat } from "../../../main/gateway/formats/index.js";
import { isOpenaiToolOrReasoning, openaiTextDeltaBytes, plainOpenaiContent } from "../../../main/gateway/formats/openai/events.js";
import { OpenaiStreamDecoder } from "../../../main/gateway/formats/openai/stream-decode.js";
import { ResponseJson } from "../../../main/gateway/formats/responses/response.js";
import { sseJson } from "../../../main/gateway/formats/sse.js";
import { DroppedFields } from "../../../main/gateway/formats/values.js";
import { responsesAnswerTap } from "../../../main/gateway/features/responses/answerTap.js";
import { parseSse, runStream } from "./helpers.js";

const TEXTS = ["plain", 'quote " and \\ backslash', "line\nbreak\ttab", "é ü 中文 🙂", "\u0000\u001f control", "lone \ud800 surrogate", "</script>"];

function chatChunk(delta: Record<string, unknown>, finish: string | null = null): string {
  return `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "up", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

function chatStream(texts: string[]): string {
  return [
    chatChunk({ role: "assistant", content: "" }),
    ...texts.map((content) => chatChunk({ content })),
    chatChunk({}, "stop"),
    `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "up", choices: [], usage: { prompt_tokens: 9, completion_tokens: 3 } })}\n\n`,
    "data: [DONE]\n\n",
  ].join("");
}

describe("issue 33: frames serialised around their values", () => {
  it("a template's frame is what sseJson says of the same data, whatever the values", () => {
    const template = new FrameTemplate(2, (index: number, text: string) => ({ type: "delta", index, delta: { text } }), "delta");
    for (const [i, text] of TEXTS.entries()) expect(template.text(i, text)).toBe(sseJson({ type: "delta", index: i, delta: { text } }, "delta"));
  });

  it("a shape that repeats or drops a value is serialised whole, still right", () => {
    const twice = new FrameTemplate(1, (text: string) => ({ a: text, b: text }));
    const dropped = new FrameTemplate(2, (text: string, n: number) => ({ a: n > 0 ? "some" : text }));
    expect(twice.text("x")).toBe(sseJson({ a: "x", b: "x" }));
    expect(dropped.text("y", 1)).toBe(sseJson({ a: "some" }));
  });

  it.each<WireFormat>(["openai", "anthropic", "gemini", "openai-responses"])(
    "every frame of a translated stream to a %s client is the canonical JSON of its data, which it carries (escapes, unicode, a model name with quotes)",
    (client) => {
      const ctx = { clientModel: 'alias "q"', requestId: "req-33", includeUsage: true, clientBody: { model: "m", input: "hi", instructions: "be brief\n", tools: [] } };
      // A chat client's stream is translated from an Anthropic upstream's (itself made from the chat stream).
      const upstream = client === "openai" ? "anthropic" : "openai";
      const sse = client === "openai" ? runStream("openai", "anthropic", ctx, chatStream(TEXTS)).text : chatStream(TEXTS);
      const { frames } = runStream(upstream, client, ctx, sse);
      expect(frames.filter((f) => f.kind === "content")).toHaveLength(TEXTS.length);
      for (const frame of frames) {
        const [evt] = parseSse(frame.text);
        if (evt.data === "[DONE]") continue;
        expect(frame.text).toBe(sseJson(JSON.parse(evt.data), evt.event));
        // What the taps read instead of the text is what the text says.
        expect(frame.data).toEqual(JSON.parse(evt.data));
      }
    },
  );
});

describe("issue 33: what reads the frames reads their data", () => {
  const ctx = { clientModel: "alias", requestId: "req-33", includeUsage: true, clientBody: { model: "m", input: "hi", instructions: "be brief", tools: [] } };

  it("a Responses turn keeps the encoder's own response object, as the text says it; a passed-through stream's is read off its text", () => {
    const { frames, text } = runStream("openai", "openai-responses", ctx, chatStream(["Hello", " there"]));
    const kept: Record<string, unknown>[] = [];
    const tap = responsesAnswerTap((response) => kept.push(response));
    for (const frame of frames) tap.streamText(frame.text, [frame]);
    const completed = frames[frames.length - 1];
    expect(kept).toHaveLength(1);
    expect(kept[0]).toBe(completed.data!["response"]);
    expect(kept[0]).toEqual(JSON.parse(parseSse(completed.text)[0].data)["response"]);

    const passed: Record<string, unknown>[] = [];
    const passthrough = responsesAnswerTap((response) => passed.push(response));
    const relayed = runStream("openai-responses", "openai-responses", ctx, text);
    for (const frame of relayed.frames) passthrough.streamText(frame.text, [frame]);
    expect(relayed.frames.every((frame) => frame.data === undefined)).toBe(true);
    expect(passed).toEqual([{ ...(kept[0] as object), model: "alias" }]);
  });

  it.each<WireFormat>(["openai", "anthropic", "gemini"])("mid-stream continuation reads a %s frame's text delta off its data, as off its text", (client) => {
    const upstream = client === "openai" ? "anthropic" : "openai";
    const sse = client === "openai" ? runStream("openai", "anthropic", ctx, chatStream(TEXTS)).text : chatStream(TEXTS);
    const frames = runStream(upstream, client, ctx, sse).frames.filter((frame) => frame.kind === "content");
    const continuation = clientHalf(client).continuation!;
    expect(frames.map((frame) => continuation.textOf(frame))).toEqual(TEXTS);
    expect(frames.map((frame) => continuation.textOf({ text: frame.text, kind: frame.kind }))).toEqual(TEXTS);
  });
});

describe("issue 33: plain OpenAI chunks read without a parse", () => {
  it("the text of a plain chunk is the parsed delta's content, escapes included", () => {
    for (const content of TEXTS) {
      const data = chatChunk({ content }).slice("data: ".length, -2);
      expect(plainOpenaiContent(data)).toBe(content);
    }
  });

  it("a chunk a parse would refuse (a raw control character, a bad escape) is left to the parse", () => {
    const raw = '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a\tb"},"finish_reason":null}]}';
    const badEscape = raw.replace("a\tb", "a\\qb");
    for (const data of [raw, badEscape]) {
      expect(plainOpenaiContent(data)).toBeNull();
      expect(new OpenaiStreamDecoder("r").decode({ data })).toEqual([]);
    }
  });

  it("R13.5 the throughput watchdog reads a plain chunk's bytes and activity as a parse would", () => {
    for (const content of TEXTS) {
      const data = chatChunk({ content }).slice("data: ".length, -2);
      expect(openaiTextDeltaBytes({ data })).toBe(openaiTextDeltaBytes({ data: `${data} ` }));
      expect(openaiTextDeltaBytes({ data })).toBe(Buffer.byteLength(content));
      expect(isOpenaiToolOrReasoning({ data })).toBe(false);
    }
  });

  it("the decoder says the same of plain chunks as of the same chunks parsed", () => {
    const plain = new OpenaiStreamDecoder("r");
    const parsed = new OpenaiStreamDecoder("r");
    for (const content of TEXTS) {
      const data = chatChunk({ content }).slice("data: ".length, -2);
      // One space makes the chunk no plain one: it goes through the parse.
      expect(plain.decode({ data })).toEqual(parsed.decode({ data: `${data} ` }));
    }
  });
});

describe("issue 33: a Responses stream's echoed fields serialised once", () => {
  it("the response's JSON text is JSON.stringify's, member for member, the second time from the kept echoes", () => {
    const tools = [{ type: "function", name: "f", parameters: { type: "object" } }];
    const response = { id: "resp_1", instructions: "sys\n\u2028", output: [], tools, usage: undefined, metadata: {} };
    const json = new ResponseJson();
    expect(json.text(response)).toBe(JSON.stringify(response));
    const later = { ...response, status: "completed", output: [{ type: "message" }] };
    expect(json.text(later)).toBe(JSON.stringify(later));
    expect(json.text({})).toBe("{}");
  });
});

describe("issue 33: Gemini schemas copied only where they change", () => {
  const body = (parameters: Record<string, unknown>) => ({
    model: "m",
    contents: [{ role: "user", parts: [{ text: "hi" }] }],
    tools: [{ functionDeclarations: [{ name: "f", description: "d", parameters }] }],
  });
  const hubTools = (b: Record<string, unknown>) => clientHalf("gemini").toHub(b, new DroppedFields()).tools;

  it("a lower-case schema is the client's own object", () => {
    const parameters = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
    expect(hubTools(body(parameters))[0].parameters).toBe(parameters);
  });

  it("an upper-case schema is lowered in a copy; the client's body is left as it came", () => {
    const parameters = { type: "OBJECT", properties: { path: { type: "STRING" }, n: { type: "integer" } }, required: ["path"] };
    const before = JSON.stringify(parameters);
    const lowered = hubTools(body(parameters))[0].parameters;
    expect(lowered).toEqual({ type: "object", properties: { path: { type: "string" }, n: { type: "integer" } }, required: ["path"] });
    expect(JSON.stringify(parameters)).toBe(before);
    expect((lowered["properties"] as Record<string, unknown>)["n"]).toBe(parameters.properties.n);
    expect(translateRequest("gemini", "openai", body(parameters), "m").body).toMatchObject({ tools: [{ function: { parameters: lowered } }] });
  });
});
