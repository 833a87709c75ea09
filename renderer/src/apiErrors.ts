// Maps a failed contract call onto the form that made it: a validation error whose `path` names a
// field lands next to that field; anything else is shown once, where the action was taken.
import { ContractCallError } from "./callError.js";

export interface FormErrors {
  /** Field path (as the API names it) -> message without the path prefix. */
  fields: Record<string, string>;
  general: string | null;
}

export const NO_ERRORS: FormErrors = { fields: {}, general: null };

export function formErrorsFrom(err: unknown): FormErrors {
  if (err instanceof ContractCallError && err.path) {
    return { fields: { [err.path]: stripPath(err.message, err.path) }, general: null };
  }
  return { fields: {}, general: err instanceof Error ? err.message : String(err) };
}

/** The API prefixes messages with their path ("a.b: must be…"); next to the field that is noise. */
export function stripPath(message: string, path: string): string {
  return message.startsWith(`${path}: `) ? message.slice(path.length + 2) : message;
}

/**
 * Re-keys field errors under `prefix` to the names a form uses: with prefix "providerErrorRules.3",
 * "providerErrorRules.3.status" becomes "status". Errors outside the prefix become general.
 */
export function scopeErrors(errors: FormErrors, prefix: string): FormErrors {
  const fields: Record<string, string> = {};
  let general = errors.general;
  for (const [path, message] of Object.entries(errors.fields)) {
    if (path === prefix || path.startsWith(`${prefix}.`)) fields[path.slice(prefix.length + 1) || "_"] = message;
    else general = general ? `${general}; ${path}: ${message}` : `${path}: ${message}`;
  }
  return { fields, general };
}
