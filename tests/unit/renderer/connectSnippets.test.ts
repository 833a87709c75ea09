// The Connect page's lines for the Responses-era clients (issue 22, point 9): each must work as
// pasted with today's clients, so the test reads the text the copy button copies.
import { describe, expect, it } from "vitest";
import { buildSnippets, CLIENT_LABELS, type SnippetKind } from "../../../renderer/src/pages/connect/snippets.js";

const origin = "http://127.0.0.1:9000";
const all = buildSnippets({ url: origin, model: "sim-b/demo-model", smallModel: "fast", key: "sk-sy-minted" });
const textOf = (kind: SnippetKind) => all.find((s) => s.kind === kind)!.text;

interface TomlTable {
  [key: string]: string | TomlTable;
}

/**
 * The TOML the Codex snippet may use, and no more: comments, blank lines, `[a.b]` table headers
 * and `key = "basic string"` pairs (JSON escapes are TOML's). Anything else throws, so the snippet
 * cannot drift into syntax this check would misread.
 */
function parseTomlSubset(text: string): TomlTable {
  const root: TomlTable = {};
  const defined = new Set<string>();
  let table = root;
  for (const [index, raw] of text.split("\n").entries()) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const header = /^\[([A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*)\]$/.exec(line);
    if (header) {
      if (defined.has(header[1])) throw new Error(`line ${index + 1}: table [${header[1]}] defined twice`);
      defined.add(header[1]);
      table = root;
      for (const part of header[1].split(".")) {
        const next = (table[part] ??= {});
        if (typeof next === "string") throw new Error(`line ${index + 1}: ${part} is a value, not a table`);
        table = next;
      }
      continue;
    }
    const pair = /^([A-Za-z0-9_-]+)\s*=\s*("(?:[^"\\]|\\.)*")$/.exec(line);
    if (!pair) throw new Error(`line ${index + 1}: not TOML this check knows: ${raw}`);
    if (pair[1] in table) throw new Error(`line ${index + 1}: key ${pair[1]} defined twice`);
    table[pair[1]] = JSON.parse(pair[2]) as string;
  }
  return root;
}

describe("Connect page snippets for the Responses API clients (issue 22)", () => {
  it('R16.5 the Codex CLI config.toml parses and names the switchyard provider with wire_api = "responses" at <origin>/v1', () => {
    const text = textOf("codex-cli");
    expect(text).toContain('wire_api = "responses"');
    expect(text).not.toContain('wire_api = "chat"');
    expect(text).toContain(`base_url = "${origin}/v1"`);
    expect(parseTomlSubset(text)).toEqual({
      model: "sim-b/demo-model",
      model_provider: "switchyard",
      model_providers: {
        switchyard: { name: "Switchyard", base_url: `${origin}/v1`, env_key: "SWITCHYARD_API_KEY", wire_api: "responses" },
      },
    });
    // Codex reads the key from the variable env_key names; the line to set it carries the minted key.
    expect(text).toContain("export SWITCHYARD_API_KEY=sk-sy-minted");
  });

  it("R16.5 a model or address with a quote stays one valid TOML string", () => {
    const odd = buildSnippets({ url: origin, model: 'we"ird\\name', smallModel: "fast", key: null }).find((s) => s.kind === "codex-cli")!;
    expect(parseTomlSubset(odd.text).model).toBe('we"ird\\name');
  });

  it("R16.6 opencode gets a valid opencode.json: an openai-compatible provider at <origin>/v1 with the key, its model as provider/model", () => {
    const config = JSON.parse(textOf("opencode"));
    expect(config.provider.switchyard).toEqual({
      npm: "@ai-sdk/openai-compatible",
      name: "Switchyard",
      options: { baseURL: `${origin}/v1`, apiKey: "sk-sy-minted" },
      models: { "sim-b/demo-model": {} },
    });
    expect(config.model).toBe("switchyard/sim-b/demo-model");
  });

  it("R16.6 the AI SDK's OpenAI and Anthropic providers both take <origin>/v1; the official Anthropic SDK the bare origin, the OpenAI SDK /v1", () => {
    const ai = textOf("ai-sdk");
    expect(ai).toContain(`createOpenAI({ baseURL: "${origin}/v1", apiKey: "sk-sy-minted" })`);
    expect(ai).toContain(`createAnthropic({ baseURL: "${origin}/v1", apiKey: "sk-sy-minted" })`);
    expect(ai).toContain('model: openai("sim-b/demo-model")');
    expect(textOf("anthropic-sdk")).toContain(`base_url="${origin}",`);
    expect(textOf("openai-sdk")).toContain(`base_url="${origin}/v1"`);
  });

  it("R1.1 Qwen Code gets all three OpenAI variables it needs", () => {
    expect(textOf("qwen-code").split("\n")).toEqual([`export OPENAI_BASE_URL=${origin}/v1`, "export OPENAI_API_KEY=sk-sy-minted", "export OPENAI_MODEL=sim-b/demo-model", "qwen"]);
  });

  it("R16 every kind of client with lines has a label, and no two snippets share a kind", () => {
    const kinds = all.map((s) => s.kind);
    expect(new Set(kinds).size).toBe(kinds.length);
    for (const kind of kinds) if (kind !== "pi") expect(CLIENT_LABELS[kind]).toBeTruthy();
  });
});

describe("Connect page: the switchyard run line of each coding agent (R23.2, issue 35)", () => {
  const loopback = buildSnippets({ url: "http://127.0.0.1:8642", model: "demo", smallModel: "demo", key: null });
  const runOf = (snippets: typeof all, kind: string) => snippets.find((s) => s.kind === kind)?.run;

  it("R23.2 each of the six agents has one, with its own model option after --; the SDKs and curl have none", () => {
    expect(Object.fromEntries(loopback.filter((s) => s.run).map((s) => [s.kind, s.run]))).toEqual({
      "claude-code": "switchyard run claude -- --model demo",
      "codex-cli": "switchyard run codex -- -m demo",
      "gemini-cli": "switchyard run gemini -- -m demo",
      opencode: "switchyard run opencode -- -m switchyard/demo",
      "qwen-code": "switchyard run qwen -- -m demo",
      pi: "switchyard run pi -- --model demo",
    });
  });

  it("R23.2 another address is passed with --url, a required key in front, and odd words are shell-quoted", () => {
    expect(runOf(all, "claude-code")).toBe(`SWITCHYARD_API_KEY=sk-sy-minted switchyard run claude --url ${origin} -- --model sim-b/demo-model`);
    const odd = buildSnippets({ url: origin, model: "it's mine", smallModel: "x", key: null });
    expect(runOf(odd, "gemini-cli")).toBe(`switchyard run gemini --url ${origin} -- -m 'it'\\''s mine'`);
  });

  it("R23.2 pi's lines are a models.json with a switchyard provider at <origin>/v1", () => {
    expect(JSON.parse(textOf("pi"))).toEqual({
      providers: { switchyard: { baseUrl: `${origin}/v1`, api: "openai-completions", apiKey: "sk-sy-minted", models: [{ id: "sim-b/demo-model" }] } },
    });
  });
});
