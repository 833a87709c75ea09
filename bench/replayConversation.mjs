// The requests of the `replay` case (issue 27): a Claude Code-shaped coding session (system prompt
// of about 8 000 tokens, 12 tools, thinking on, streamed) whose every turn sends the whole history
// back, the assistant messages exactly as they streamed in (thinking with its signature), and the
// small background calls Claude Code makes beside it on its small-fast model. Also the SSE reader
// that rebuilds an assistant message from an Anthropic stream.

import { readFileSync } from "node:fs";

const SESSION_ID = "5b0c2f7e-27a1-4c3e-9d14-6f2a8e90b1c4";
const USER_ID = `user_${"7f3a".repeat(16)}_account__session_${SESSION_ID}`;

/** What Claude Code 2.1 sends on every call (tests/fixtures/clients/clientHeaders.json), the session id included. */
export function claudeCodeHeaders(beta) {
  return {
    accept: "application/json",
    "content-type": "application/json",
    "user-agent": "claude-cli/2.1.332 (external, cli)",
    "x-claude-code-session-id": SESSION_ID,
    "x-stainless-lang": "js",
    "x-stainless-retry-count": "0",
    "x-stainless-timeout": "600",
    "anthropic-beta": beta,
    "anthropic-dangerous-direct-browser-access": "true",
    "anthropic-version": "2023-06-01",
    "x-api-key": "switchyard",
    "x-app": "cli",
  };
}

export const MAIN_HEADERS = claudeCodeHeaders("claude-code-20250219,interleaved-thinking-2025-05-14");
export const BACKGROUND_HEADERS = claudeCodeHeaders("claude-code-20250219");

const SYSTEM_SECTION = `# Tone and style
You should be concise, direct, and to the point. When you run a non-trivial bash command, explain what the command does and why you are running it, so that the user understands what you are doing. Your output will be displayed on a command line interface. Your responses can use GitHub-flavored markdown for formatting, rendered in a monospace font. Output text to communicate with the user; all text you output outside of tool use is displayed to the user. Only use tools to complete tasks. Never use tools like Bash or code comments as means to communicate with the user during the session.

# Proactiveness
You are allowed to be proactive, but only when the user asks you to do something. Strike a balance between doing the right thing when asked, including taking actions and follow-up actions, and not surprising the user with actions you take without asking. Do not add additional code explanation summary unless requested by the user.

# Following conventions
When making changes to files, first understand the file's code conventions. Mimic code style, use existing libraries and utilities, and follow existing patterns. NEVER assume that a given library is available, even if it is well known. Whenever you write code that uses a library or framework, first check that this codebase already uses the given library: look at neighboring files, or check the package.json (or cargo.toml, and so on depending on the language). When you create a new component, first look at existing components to see how they are written; then consider framework choice, naming conventions, typing, and other conventions. When you edit a piece of code, first look at the code's surrounding context (especially its imports) to understand the code's choice of frameworks and libraries. Always follow security best practices. Never introduce code that exposes or logs secrets and keys. Never commit secrets or keys to the repository.

# Task management
You have access to the TodoWrite tool to help you manage and plan tasks. Use it very frequently to make sure that you are tracking your tasks and giving the user visibility into your progress. It is also extremely helpful for planning tasks and for breaking larger complex tasks down into smaller steps. If you do not use it when planning, you may forget to do important tasks, and that is unacceptable. It is critical that you mark todos as completed as soon as you are done with a task. Do not batch up multiple tasks before marking them as completed.

# Doing tasks
The user will primarily request you perform software engineering tasks: solving bugs, adding new functionality, refactoring code, explaining code, and more. For these tasks: use the TodoWrite tool to plan the task if required; use the available search tools to understand the codebase and the user's query, in parallel and sequentially; implement the solution using all tools available to you; verify the solution if possible with the tests, never assuming a specific test framework or test script (check the README or search the codebase to determine the testing approach); when you have completed a task, you MUST run the lint and typecheck commands (eg. npm run lint, npm run typecheck, ruff, etc.) with Bash if they were provided to you to ensure your code is correct.

# Tool usage policy
When doing file search, prefer to use the Task tool in order to reduce context usage. You have the capability to call multiple tools in a single response. When multiple independent pieces of information are requested, batch your tool calls together for optimal performance. When making multiple bash tool calls, you MUST send a single message with multiple tool calls to run the calls in parallel.
`;

/** The big system block, about 32 000 characters (8 000 tokens as the simulator counts), sections numbered so it is not one repeated string. */
function systemPrompt() {
  let text = "You are an interactive CLI tool that helps users with software engineering tasks. Use the instructions below and the tools available to you to assist the user.\n\n";
  for (let part = 1; text.length < 32_000; part++) text += `## Part ${part}\n${SYSTEM_SECTION}\n`;
  return [
    { type: "text", text: "You are Claude Code, Anthropic's official CLI for Claude." },
    // Claude Code marks the end of its system prompt as a cache breakpoint.
    { type: "text", text, cache_control: { type: "ephemeral" } },
  ];
}

const str = (description) => ({ type: "string", description });
const schema = (properties, required) => ({ type: "object", properties, required, additionalProperties: false, $schema: "http://json-schema.org/draft-07/schema#" });

/** Claude Code's tools. Bash comes first: the simulator calls the first tool it is offered. */
function tools() {
  const t = (name, description, properties, required) => ({ name, description, input_schema: schema(properties, required) });
  const todo = {
    type: "object",
    properties: { content: str("The task"), status: { type: "string", enum: ["pending", "in_progress", "completed"] }, activeForm: str("Present tense") },
    required: ["content", "status", "activeForm"],
  };
  return [
    t(
      "Bash",
      "Executes a given bash command in a persistent shell session with optional timeout, ensuring proper handling and security measures.",
      {
        command: str("The command to execute"),
        timeout: { type: "number", description: "Optional timeout in milliseconds (max 600000)" },
        description: str("Clear, concise description of what this command does in 5-10 words"),
      },
      ["command"],
    ),
    t(
      "Task",
      "Launch a new agent to handle complex, multi-step tasks autonomously.",
      {
        description: str("A short (3-5 word) description of the task"),
        prompt: str("The task for the agent to perform"),
        subagent_type: str("The type of specialized agent to use for this task"),
      },
      ["description", "prompt", "subagent_type"],
    ),
    t(
      "Glob",
      "Fast file pattern matching tool that works with any codebase size.",
      { pattern: str("The glob pattern to match files against"), path: str("The directory to search in") },
      ["pattern"],
    ),
    t(
      "Grep",
      "A powerful search tool built on ripgrep.",
      {
        pattern: str("The regular expression pattern to search for in file contents"),
        path: str("File or directory to search in"),
        glob: str("Glob pattern to filter files"),
        output_mode: { type: "string", enum: ["content", "files_with_matches", "count"] },
      },
      ["pattern"],
    ),
    t("Read", "Reads a file from the local filesystem.", { file_path: str("The absolute path to the file to read"), offset: { type: "number" }, limit: { type: "number" } }, [
      "file_path",
    ]),
    t(
      "Edit",
      "Performs exact string replacements in files.",
      {
        file_path: str("The absolute path to the file to modify"),
        old_string: str("The text to replace"),
        new_string: str("The text to replace it with"),
        replace_all: { type: "boolean", default: false },
      },
      ["file_path", "old_string", "new_string"],
    ),
    t(
      "MultiEdit",
      "Makes multiple edits to a single file in one operation.",
      {
        file_path: str("The absolute path to the file to modify"),
        edits: {
          type: "array",
          items: { type: "object", properties: { old_string: str("The text to replace"), new_string: str("The replacement") }, required: ["old_string", "new_string"] },
        },
      },
      ["file_path", "edits"],
    ),
    t("Write", "Writes a file to the local filesystem.", { file_path: str("The absolute path to the file to write"), content: str("The content to write to the file") }, [
      "file_path",
      "content",
    ]),
    t(
      "NotebookEdit",
      "Completely replaces the contents of a specific cell in a Jupyter notebook.",
      { notebook_path: str("The absolute path to the notebook"), cell_id: str("The ID of the cell to edit"), new_source: str("The new source for the cell") },
      ["notebook_path", "new_source"],
    ),
    t(
      "WebFetch",
      "Fetches content from a specified URL and processes it using an AI model.",
      { url: str("The URL to fetch content from"), prompt: str("The prompt to run on the fetched content") },
      ["url", "prompt"],
    ),
    t("WebSearch", "Allows Claude to search the web and use the results to inform responses.", { query: str("The search query to use") }, ["query"]),
    t(
      "TodoWrite",
      "Use this tool to create and manage a structured task list for your current coding session.",
      { todos: { type: "array", items: todo, description: "The updated todo list" } },
      ["todos"],
    ),
  ];
}

const SYSTEM = systemPrompt();
const TOOLS = tools();

const TEST_OUTPUT = Array.from(
  { length: 40 },
  (_, i) => `  ${i % 7 === 3 ? "✗" : "✓"} tests/unit/gateway/case${i}.test.ts > routes request ${i} to its pinned connection (${12 + i} ms)`,
).join("\n");

/** The user's text of a tool turn: the simulator answers a tool call when it reads "use tool". */
export function userText(turn) {
  return `Turn ${turn}: use tool Bash to run the unit tests of packages/gateway again and tell me which ones fail and why.`;
}

/** Claude Code's cache breakpoint sits on the last block of the last user message only. */
function marked(content) {
  return content.map((block, i) => (i === content.length - 1 ? { ...block, cache_control: { type: "ephemeral" } } : block));
}

/** The next user message: the tool's output after a tool call, else a new prompt. */
export function nextUserMessage(turn, assistant) {
  const call = assistant?.content.find((b) => b.type === "tool_use");
  if (call)
    return {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: call.id, content: `$ ${call.input.command ?? "npm test"}\n${TEST_OUTPUT}\n\n 6 failed, 34 passed (turn ${turn})`, is_error: false },
      ],
    };
  return { role: "user", content: [{ type: "text", text: userText(turn) }] };
}

/** One main turn's body: the whole history, then the pending user message with the breakpoint. */
export function mainBody(model, history, pending) {
  return {
    model,
    messages: [...history, { ...pending, content: marked(pending.content) }],
    system: SYSTEM,
    tools: TOOLS,
    metadata: { user_id: USER_ID },
    max_tokens: 32_000,
    thinking: { type: "enabled", budget_tokens: 4_000 },
    stream: true,
  };
}

/**
 * Claude Code's background calls beside a turn, as Claude Code 2.1.332 really sends them (its session
 * title and its prompt suggestion, from tests/fixtures/clients/trafficCaptures.json, which the
 * traffic classifier learned from): the captured system blocks and messages, on the replay's model.
 */
const CAPTURES = JSON.parse(readFileSync(new URL("../tests/fixtures/clients/trafficCaptures.json", import.meta.url), "utf8")).captures;
const BACKGROUND = CAPTURES.filter((c) => c.client === "claude-code" && c.expected === "background").map((c) => c.body);
if (BACKGROUND.length === 0) throw new Error("trafficCaptures.json holds no Claude Code background call");

/** The `i`th background call beside a turn (non-stream here, max_tokens 512, so its answer is read whole). */
export function backgroundBody(model, _turn, i) {
  const captured = BACKGROUND[i % BACKGROUND.length];
  return { ...captured, model, max_tokens: 512, metadata: { user_id: USER_ID }, stream: false };
}

function frames(text) {
  const out = [];
  for (const raw of text.split(/\r?\n\r?\n/)) {
    const data = raw
      .split(/\r?\n/)
      .filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(5).trimStart())
      .join("\n");
    if (data) out.push(JSON.parse(data));
  }
  return out;
}

function applyDelta(block, delta) {
  if (delta.type === "thinking_delta") block.thinking += delta.thinking;
  else if (delta.type === "signature_delta") block.signature = (block.signature ?? "") + delta.signature;
  else if (delta.type === "text_delta") block.text += delta.text;
  else if (delta.type === "input_json_delta") block.partial = (block.partial ?? "") + delta.partial_json;
}

/**
 * The assistant message an Anthropic SSE stream carried, as Claude Code keeps it for the next
 * turn (thinking blocks with their signatures, tool_use inputs parsed), with the stream's usage;
 * `error` when the stream ended in an error frame or without message_stop.
 */
export function readAnthropicStream(text) {
  const blocks = [];
  let usage = {};
  let error = null;
  let stopped = false;
  for (const f of frames(text)) {
    if (f.type === "message_start") usage = { ...f.message?.usage };
    else if (f.type === "content_block_start") blocks[f.index] = { ...f.content_block };
    else if (f.type === "content_block_delta" && blocks[f.index]) applyDelta(blocks[f.index], f.delta);
    else if (f.type === "message_delta") usage = { ...usage, ...f.usage };
    else if (f.type === "message_stop") stopped = true;
    else if (f.type === "error") error = f.error?.message ?? "error frame";
  }
  const content = blocks
    .filter(Boolean)
    .map(({ partial, ...block }) => (block.type === "tool_use" ? { ...block, input: partial ? JSON.parse(partial) : (block.input ?? {}) } : block));
  if (!error && !stopped) error = "the stream ended without message_stop";
  return { message: { role: "assistant", content }, usage, error };
}
