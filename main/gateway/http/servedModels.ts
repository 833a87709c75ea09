// Every model name a client may use (R1.3), with what modelInfo says of it: what each client
// format's model list is made of (OpenAI's, Codex's catalogue, Gemini's).
import type { WireFormat } from "../../../shared/types.js";
import type { CatalogPort } from "../context/ports.js";
import { upstreamFormatOf } from "../formats/index.js";
import type { ServedModel } from "../formats/models.js";

/**
 * R21.1: what Codex on a ChatGPT plan may pick at `/backend-api/codex/models`: the models of the
 * providers that serve its login (Responses, with a client-login connection); every served model
 * when they list none, so a plain `codex exec` never picks a model its login cannot reach.
 */
export function loginServedModels(catalog: CatalogPort, clientFormat: WireFormat): ServedModel[] {
  const served: ServedModel[] = [];
  for (const p of catalog.providers()) {
    if (p.servesLogins !== true || upstreamFormatOf(p, clientFormat) !== clientFormat) continue;
    for (const m of p.models) served.push({ id: `${p.id}/${m}`, info: p.modelInfo?.[m], owner: p.id });
  }
  return served.length > 0 ? served : servedModels(catalog);
}

export function servedModels(catalog: CatalogPort): ServedModel[] {
  const served: ServedModel[] = [];
  for (const p of catalog.providers()) for (const m of p.models) served.push({ id: `${p.id}/${m}`, info: p.modelInfo?.[m], owner: p.id });
  for (const alias of Object.keys(catalog.aliases())) served.push({ id: alias, owner: "switchyard-alias" });
  for (const c of catalog.combos()) served.push({ id: c.name, owner: "switchyard-combo" });
  return served;
}
