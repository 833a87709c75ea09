// Which parser an import file needs, told before it is sent (the server checks it either way).
export type ConfigFormat = "json" | "yaml";

/** By the file's name; a pasted or unnamed text is JSON when it starts as an object, else YAML. */
export function formatOf(name: string, text: string): ConfigFormat {
  if (/\.ya?ml$/i.test(name)) return "yaml";
  if (/\.json$/i.test(name)) return "json";
  return text.trimStart().startsWith("{") ? "json" : "yaml";
}
