// Custom (freeform) tools, such as Codex's apply_patch, take raw text that may have to match a
// grammar. Formats without them get a function tool with one string field; the model's call to it
// comes back to the Responses client as a custom_tool_call carrying that field's text.

import type { HubTool } from "../hub.js";
import { asArray, asRecord, asString, parseJson } from "../values.js";

/** The one field of a bridged custom tool. */
export const CUSTOM_INPUT_FIELD = "input";

function inputDescription(format: Record<string, unknown> | undefined): string {
  const base = "The raw freeform input of this tool as plain text, exactly as the tool reads it (not JSON-encoded).";
  if (format?.["type"] !== "grammar") return base;
  const syntax = asString(format["syntax"]) ?? "grammar";
  const definition = asString(format["definition"]) ?? "";
  return `${base} It must match this ${syntax} grammar:\n${definition}`;
}

export function bridgedCustomTool(name: string, description: string | undefined, format: Record<string, unknown> | undefined): HubTool {
  return {
    name,
    ...(description !== undefined ? { description } : {}),
    parameters: {
      type: "object",
      properties: { [CUSTOM_INPUT_FIELD]: { type: "string", description: inputDescription(format) } },
      required: [CUSTOM_INPUT_FIELD],
      additionalProperties: false,
    },
    custom: format !== undefined ? { format } : {},
  };
}

/** A custom tool's raw input as the bridged function's arguments. */
export function bridgedArguments(input: string): string {
  return JSON.stringify({ [CUSTOM_INPUT_FIELD]: input });
}

/**
 * The raw input inside a bridged call's arguments. A model that answered with something other
 * than the one-field object still gets its text through: a lone string field, or the text itself.
 */
export function unwrapCustomInput(args: string): string {
  const parsed = asRecord(parseJson(args));
  if (!parsed) return args;
  const input = asString(parsed[CUSTOM_INPUT_FIELD]);
  if (input !== undefined) return input;
  const values = Object.values(parsed);
  return values.length === 1 && typeof values[0] === "string" ? values[0] : args;
}

/** Names of the custom tools a Responses request declares. */
export function customToolNames(body: Record<string, unknown> | undefined): Set<string> {
  const names = new Set<string>();
  for (const raw of asArray(body?.["tools"])) {
    const tool = asRecord(raw);
    const name = asString(tool?.["name"]);
    if (tool?.["type"] === "custom" && name !== undefined) names.add(name);
  }
  return names;
}
