// Config documents as text: JSON or YAML, chosen by the file extension or the import request.
import { readFileSync } from "node:fs";
import { extname } from "node:path";
import YAML from "yaml";
import { invalidRequest } from "./errors.js";

export type ConfigTextFormat = "json" | "yaml";

/** Parses a config document; a syntax error is a 400 naming `path` (the field or file it came from). */
export function parseConfigText(text: string, format: ConfigTextFormat, path = "text"): unknown {
  try {
    return format === "json" ? JSON.parse(text) : YAML.parse(text);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw invalidRequest(`${path}: invalid ${format.toUpperCase()}: ${reason}`, path);
  }
}

export function configFormatOf(filePath: string): ConfigTextFormat {
  const ext = extname(filePath).toLowerCase();
  if (ext === ".json") return "json";
  if (ext === ".yaml" || ext === ".yml") return "yaml";
  throw invalidRequest(`${filePath}: a config file must end in .json, .yaml or .yml`, filePath);
}

/** Reads `--config file.(json|yaml)`; the document is validated later by applyConfigDocument. */
export function loadConfigFile(filePath: string): unknown {
  const format = configFormatOf(filePath);
  return parseConfigText(readFileSync(filePath, "utf8"), format, filePath);
}
