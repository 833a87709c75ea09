// Field schemas the entity and settings schemas share.
import { z } from "zod";

/** Provider ids appear in `provider/model` addresses, so they never contain a slash. */
export const PROVIDER_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Connection ids, combo names and aliases: URL-path safe, no slash. */
export const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
/** `provider/model`: a provider id, a slash, then any model name without whitespace. */
export const PROVIDER_MODEL_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}\/\S+$/;

export const providerId = z.string().regex(PROVIDER_ID_PATTERN, "must be letters, digits, '.', '_' or '-' (no '/')");
export const entityName = z.string().regex(NAME_PATTERN, "must be letters, digits, '.', '_', ':' or '-' (no '/')");
export const nonEmpty = z.string().trim().min(1, "must not be empty");
