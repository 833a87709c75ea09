// R16.5: GET /v1/models in Codex's own shape when Codex asks (it names its version in
// `?client_version=`, and its user-agent or originator says codex), so Codex knows each model's
// context window and stops warning "Model metadata … not found". Measured with Codex 0.171
// (provider key `model_catalog_url`): it decodes `{models: [ModelInfo]}` and refuses an entry
// missing any of slug, display_name, priority, visibility, supported_in_api, shell_type,
// support_verbosity, supported_reasoning_levels, truncation_policy, experimental_supported_tools
// or model_messages.instructions_template — and that template replaces Codex's own base prompt,
// so Switchyard sends one of its own (below), written for Codex's tools. R21.1: Codex on a ChatGPT
// plan lists models at its base URL, the ChatGPT backend's path, and may pick only the models of
// the providers that serve its login.
import type { ClientHeaders } from "../adapter.js";
import type { ModelListRoute, ServedModel } from "../models.js";

/** When no modelInfo says otherwise: a window most coding models of today have. */
const DEFAULT_CONTEXT_WINDOW = 128_000;

/** Codex's base prompt for models served through Switchyard (Codex puts it first, as a developer message). */
export const CODEX_BASE_INSTRUCTIONS = [
  "You are a coding agent working in the user's workspace through a terminal, driven by Codex CLI.",
  "Work on the user's task until it is done or you need their decision. Read the relevant files before you change them, and follow the repository's own instructions (AGENTS.md and the like) where they apply.",
  "Run commands with the shell tool, keeping each one focused; prefer fast search tools such as rg. Edit files with the apply_patch tool, in its patch format; never write files by echoing into them.",
  "Make the smallest change that solves the task, keep unrelated code and the user's uncommitted work as they are, and respect the sandbox and approval rules you are given.",
  "Check your work with the project's own tests or builds when they exist. If a step fails, read the error, fix the cause, and say what you could not verify.",
  "When you finish, say briefly what you changed and where. Keep answers short, plain, and free of filler.",
].join("\n\n");

/** Whether this GET /v1/models comes from Codex. */
function isCodexCatalogueRequest(query: Readonly<Record<string, unknown>>, headers: ClientHeaders): boolean {
  if (typeof query["client_version"] === "string") return true;
  const mark = `${String(headers["user-agent"] ?? "")} ${String(headers["originator"] ?? "")}`.toLowerCase();
  return /\bcodex[_-]/.test(mark);
}

function codexCatalogue(models: ServedModel[]): { models: Array<Record<string, unknown>> } {
  return {
    models: models.map(({ id, info, window }, index) => {
      const contextWindow = window ?? info?.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
      return {
        slug: id,
        display_name: id,
        description: "Served by Switchyard",
        priority: index + 1,
        visibility: "list",
        supported_in_api: true,
        shell_type: "shell_command",
        support_verbosity: false,
        supported_reasoning_levels: [],
        truncation_policy: { mode: "tokens", limit: 10_000 },
        experimental_supported_tools: [],
        model_messages: { instructions_template: CODEX_BASE_INSTRUCTIONS },
        context_window: contextWindow,
        max_context_window: contextWindow,
        // Codex offers its freeform apply_patch tool only to models marked so; Switchyard bridges it to every upstream (R16.6).
        apply_patch_tool_type: "freeform",
        input_modalities: ["text", "image"],
        supports_parallel_tool_calls: true,
        prefer_websockets: false,
      };
    }),
  };
}

export const RESPONSES_MODEL_ROUTES: readonly ModelListRoute[] = [
  {
    path: "/v1/models",
    claims: (req) => isCodexCatalogueRequest(req.query, req.headers),
    models: "served",
    answer: (_req, models) => ({ status: 200, body: codexCatalogue(models) }),
  },
  { path: "/backend-api/codex/models", models: "logins", answer: (_req, models) => ({ status: 200, body: codexCatalogue(models) }) },
];
