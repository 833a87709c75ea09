// Stage "plan": the client's model becomes ordered targets (R1.3 alias | provider/model | combo).
// The routing issue adds strategies and session affinity here; today the order is the combo's.
import type { CatalogPort } from "../ports.js";
import { resolveModel, type Target } from "../resolve.js";

export interface RequestPlan {
  targets: Target[];
  /** The combo the model named, if any (logged with the request). */
  combo: string | null;
}

export function planRequest(model: string, catalog: CatalogPort): RequestPlan | null {
  return resolveModel(model, { providers: catalog.providers(), getCombo: (name) => catalog.combo(name), aliases: catalog.aliases() });
}
