// Every model name a client may use (R1.3), with what modelInfo says of it: what each client
// format's model list is made of (OpenAI's, Codex's catalogue, Gemini's).
import type { ModelInfo } from "../../../shared/types.js";
import type { CatalogPort } from "../context/ports.js";

export interface ServedModel {
  id: string;
  info?: ModelInfo;
  /** Who serves it, for the OpenAI list's owned_by. */
  owner: string;
}

export function servedModels(catalog: CatalogPort): ServedModel[] {
  const served: ServedModel[] = [];
  for (const p of catalog.providers()) for (const m of p.models) served.push({ id: `${p.id}/${m}`, info: p.modelInfo?.[m], owner: p.id });
  for (const alias of Object.keys(catalog.aliases())) served.push({ id: alias, owner: "switchyard-alias" });
  for (const c of catalog.combos()) served.push({ id: c.name, owner: "switchyard-combo" });
  return served;
}
