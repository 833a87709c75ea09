// Every model name a client may use (R1.3), with what modelInfo says of it and its context window
// (R25.3): what each client format's model list is made of (OpenAI's, Anthropic's, Codex's
// catalogue, Google's). A combo's or an alias's window is the largest of its targets' windows.
import type { Provider, WireFormat } from "../../../shared/types.js";
import type { CatalogPort } from "../context/ports.js";
import { upstreamFormatOf } from "../formats/index.js";
import type { ServedModel } from "../formats/models.js";
import { resolveFromCatalog } from "../pipeline/plan.js";

/** R25.1: what is known of a provider model's window (modelInfo, the catalogue, what refusals taught). */
export interface WindowsView {
  windowOf(provider: Provider, model: string): number | null;
}

const NO_WINDOWS: WindowsView = { windowOf: (provider, model) => provider.modelInfo?.[model]?.contextWindow ?? null };

function providerModel(p: Provider, m: string, windows: WindowsView): ServedModel {
  return { id: `${p.id}/${m}`, info: p.modelInfo?.[m], owner: p.id, window: windows.windowOf(p, m) };
}

/** The largest window of what the name resolves to; null when none of its targets' windows is known. */
function largestWindow(name: string, catalog: CatalogPort, windows: WindowsView): number | null {
  let largest: number | null = null;
  for (const t of resolveFromCatalog(name, catalog)?.targets ?? []) {
    const window = windows.windowOf(t.provider, t.model);
    if (window !== null && (largest === null || window > largest)) largest = window;
  }
  return largest;
}

/**
 * R21.1: what Codex on a ChatGPT plan may pick at `/backend-api/codex/models`: the models of the
 * providers that serve its login (Responses, with a client-login connection); every served model
 * when they list none, so a plain `codex exec` never picks a model its login cannot reach.
 */
export function loginServedModels(catalog: CatalogPort, clientFormat: WireFormat, windows: WindowsView = NO_WINDOWS): ServedModel[] {
  const served: ServedModel[] = [];
  for (const p of catalog.providers()) {
    if (p.servesLogins !== true || upstreamFormatOf(p, clientFormat) !== clientFormat) continue;
    for (const m of p.models) served.push(providerModel(p, m, windows));
  }
  return served.length > 0 ? served : servedModels(catalog, windows);
}

export function servedModels(catalog: CatalogPort, windows: WindowsView = NO_WINDOWS): ServedModel[] {
  const served: ServedModel[] = [];
  for (const p of catalog.providers()) for (const m of p.models) served.push(providerModel(p, m, windows));
  for (const alias of Object.keys(catalog.aliases())) served.push({ id: alias, owner: "switchyard-alias", window: largestWindow(alias, catalog, windows) });
  for (const c of catalog.combos()) served.push({ id: c.name, owner: "switchyard-combo", window: largestWindow(c.name, catalog, windows) });
  return served;
}
