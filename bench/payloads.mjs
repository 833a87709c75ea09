// Request bodies for the scenarios. Deterministic (a fixed-seed generator), so every run
// and both targets send byte-identical requests.

const WORDS = (
  "the gateway routes each request to a provider connection and records what happened so that the breaker " +
  "cooldown lockout and failover rules can decide whom to try next while the client keeps streaming tokens " +
  "function returns value file path line error test build module import export config setting schema"
).split(" ");

function prng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function prose(rand, chars) {
  let text = "";
  while (text.length < chars) text += (text ? " " : "") + WORDS[Math.floor(rand() * WORDS.length)];
  return text;
}

/** Claude Code-like tool definitions: long descriptions, nested JSON schemas. */
function toolSchemas(rand, count) {
  const tools = [];
  for (let i = 0; i < count; i++) {
    tools.push({
      name: `tool_${i}`,
      description: prose(rand, 900),
      schema: {
        type: "object",
        properties: {
          path: { type: "string", description: prose(rand, 120) },
          pattern: { type: "string", description: prose(rand, 80) },
          limit: { type: "number", description: prose(rand, 60) },
          options: { type: "object", properties: { recursive: { type: "boolean" }, glob: { type: "string" } }, additionalProperties: false },
        },
        required: ["path"],
        additionalProperties: false,
      },
    });
  }
  return tools;
}

/** Alternating user/assistant history ending with a user turn, grown until the body reaches `targetBytes`. */
function grow(base, addTurn, targetBytes) {
  let i = 0;
  while (Buffer.byteLength(JSON.stringify(base)) < targetBytes) addTurn(base, i++);
  // The simulator answers plain text only when the last turn is the user's.
  if (base.messages[base.messages.length - 1].role !== "user") addTurn(base, i++);
  return base;
}

export function openaiChat({ model, stream, largeBytes = 0 }) {
  if (!largeBytes) {
    return {
      model,
      stream,
      ...(stream ? { stream_options: { include_usage: true } } : {}),
      messages: [{ role: "user", content: "Say hello in one sentence." }],
    };
  }
  const rand = prng(76);
  const base = {
    model,
    stream,
    max_tokens: 4096,
    messages: [{ role: "system", content: prose(rand, 14_000) }],
    tools: toolSchemas(rand, 18).map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.schema } })),
  };
  return grow(base, (b, i) => b.messages.push({ role: i % 2 === 0 ? "user" : "assistant", content: prose(rand, 1_500) }), largeBytes);
}

export function anthropicMessages({ model, stream, largeBytes }) {
  const rand = prng(76);
  const base = {
    model,
    stream,
    max_tokens: 4096,
    system: [
      { type: "text", text: "You are Claude Code, a coding assistant." },
      { type: "text", text: prose(rand, 14_000), cache_control: { type: "ephemeral" } },
    ],
    tools: toolSchemas(rand, 18).map((t) => ({ name: t.name, description: t.description, input_schema: t.schema })),
    metadata: { user_id: "bench-user" },
    messages: [],
  };
  return grow(base, (b, i) => b.messages.push({ role: i % 2 === 0 ? "user" : "assistant", content: [{ type: "text", text: prose(rand, 1_500) }] }), largeBytes);
}

/**
 * A Codex-like Responses request (the shape Codex CLI sends): `instructions`, `input` as message
 * items with `input_text` parts (the environment context, then the prompt), two function tools,
 * `store: false`. It leaves out `reasoning` and `include`: with them the simulator leads its answer
 * with a reasoning item, and this case should get the same reply as the chat cases so that their
 * ratios compare the request path, not a longer answer. The prompt never says "use tool", so the
 * simulator answers text although tools are offered.
 */
/**
 * A Gemini CLI-like streamGenerateContent body (issue 23): a system instruction, a user turn, two
 * function declarations and a generation config. The model is in the path, never the body.
 */
export function geminiContents() {
  const object = (properties, required) => ({ type: "OBJECT", properties, required });
  return {
    contents: [{ role: "user", parts: [{ text: "Say hello in one sentence." }] }],
    systemInstruction: { parts: [{ text: "You are a coding assistant working in the user's repository. Be brief." }] },
    tools: [
      {
        functionDeclarations: [
          { name: "read_file", description: "Reads a file of the workspace.", parameters: object({ path: { type: "STRING", description: "Path of the file" } }, ["path"]) },
          { name: "run_shell_command", description: "Runs a shell command.", parameters: object({ command: { type: "STRING", description: "The command" } }, ["command"]) },
        ],
      },
    ],
    generationConfig: { temperature: 0, topP: 1 },
  };
}

export function openaiResponses({ model, stream }) {
  const rand = prng(22);
  const text = (t) => [{ type: "input_text", text: t }];
  const param = (description, extra = {}) => ({ type: "string", description, ...extra });
  return {
    model,
    instructions: `You are a coding agent running in the Codex CLI. ${prose(rand, 1_500)}`,
    input: [
      {
        type: "message",
        role: "user",
        content: text(
          `<environment_context>\n  <cwd>/home/dev/project</cwd>\n  <approval_policy>on-request</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  <shell>bash</shell>\n</environment_context>`,
        ),
      },
      { type: "message", role: "user", content: text("Say hello in one sentence.") },
    ],
    tools: [
      {
        type: "function",
        name: "shell",
        description: `Runs a shell command and returns its output. ${prose(rand, 300)}`,
        strict: false,
        parameters: {
          type: "object",
          properties: {
            command: { type: "array", items: { type: "string" }, description: "The command and its arguments." },
            workdir: param("The working directory to run the command in."),
            timeout_ms: { type: "number", description: "The timeout for the command in milliseconds." },
          },
          required: ["command"],
          additionalProperties: false,
        },
      },
      {
        type: "function",
        name: "apply_patch",
        description: `Edits files with a patch in the apply_patch format. ${prose(rand, 300)}`,
        strict: false,
        parameters: { type: "object", properties: { input: param("The entire contents of the apply_patch command.") }, required: ["input"], additionalProperties: false },
      },
    ],
    tool_choice: "auto",
    parallel_tool_calls: false,
    store: false,
    stream,
    prompt_cache_key: "bench-session",
  };
}

/** The reply the simulator streams back: `words` words (more SSE frames than its short default). */
export function replyText(words) {
  const rand = prng(7);
  const out = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(rand() * WORDS.length)]);
  return out.join(" ");
}

/**
 * Issue 33: one coding-agent conversation in each client format, so the lanes of one Switchyard can
 * be compared side by side: a 16 KB system prompt, 8 tools with long descriptions and nested
 * schemas, and a few turns of history (the task, a tool call, its result, an answer, the next
 * question), as coding agents send on every turn. The last turn is the user's and never asks for a
 * tool, so the simulator answers the same text on every lane. Every lane asks the same model, which
 * the caller names in its own way (`model` in the body, or in the path for Gemini).
 */
export function agentLanes({ model, stream }) {
  const rand = prng(33);
  const system = `You are a coding agent working in the user's repository. ${prose(rand, 16 * 1024 - 60)}`;
  const tools = toolSchemas(rand, 8);
  const task = `Fix the failing test in the gateway module. ${prose(rand, 400)}`;
  const call = { id: "call_bench_1", name: tools[0].name, input: { path: "main/gateway/pipeline.ts", pattern: "handle", limit: 200 } };
  const result = prose(rand, 2_500);
  const answer = `The test fails because the handler returns too early. ${prose(rand, 700)}`;
  const next = "Now make the change and tell me in one sentence what you did.";
  const args = JSON.stringify(call.input);

  const chat = {
    model,
    stream,
    ...(stream ? { stream_options: { include_usage: true } } : {}),
    max_tokens: 4096,
    messages: [
      { role: "system", content: system },
      { role: "user", content: task },
      { role: "assistant", content: null, tool_calls: [{ id: call.id, type: "function", function: { name: call.name, arguments: args } }] },
      { role: "tool", tool_call_id: call.id, content: result },
      { role: "assistant", content: answer },
      { role: "user", content: next },
    ],
    tools: tools.map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.schema } })),
  };
  const messages = {
    model,
    stream,
    max_tokens: 4096,
    system: [{ type: "text", text: system, cache_control: { type: "ephemeral" } }],
    tools: tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.schema })),
    messages: [
      { role: "user", content: [{ type: "text", text: task }] },
      { role: "assistant", content: [{ type: "tool_use", id: call.id, name: call.name, input: call.input }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: result }] },
      { role: "assistant", content: [{ type: "text", text: answer }] },
      { role: "user", content: [{ type: "text", text: next }] },
    ],
  };
  const responses = {
    model,
    instructions: system,
    input: [
      { type: "message", role: "user", content: [{ type: "input_text", text: task }] },
      { type: "function_call", call_id: call.id, name: call.name, arguments: args },
      { type: "function_call_output", call_id: call.id, output: result },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: answer }] },
      { type: "message", role: "user", content: [{ type: "input_text", text: next }] },
    ],
    tools: tools.map((t) => ({ type: "function", name: t.name, description: t.description, strict: false, parameters: t.schema })),
    tool_choice: "auto",
    parallel_tool_calls: false,
    max_output_tokens: 4096,
    store: false,
    stream,
  };
  const gemini = {
    contents: [
      { role: "user", parts: [{ text: task }] },
      { role: "model", parts: [{ functionCall: { name: call.name, args: call.input } }] },
      { role: "user", parts: [{ functionResponse: { name: call.name, response: { content: result } } }] },
      { role: "model", parts: [{ text: answer }] },
      { role: "user", parts: [{ text: next }] },
    ],
    systemInstruction: { parts: [{ text: system }] },
    tools: [{ functionDeclarations: tools.map((t) => ({ name: t.name, description: t.description, parameters: t.schema })) }],
    generationConfig: { maxOutputTokens: 4096 },
  };
  return { chat, messages, responses, gemini };
}
