// R25.1: the context window of a provider model as the gateway knows it now: the operator's
// modelInfo, else the shipped catalogue, lowered by what context refusals taught and never below
// what a success proved (engine/contextWindows.ts). Read on the request path (the fit check, per
// target), so the catalogue's answer is kept per provider object: the store hands out the same
// provider object until a write replaces it, and a replaced one is looked up afresh.
import type { Provider } from "../../../../shared/types.js";
import type { ContextWindows } from "../../../engine/contextWindows.js";
import type { Clock } from "../../../engine/ports.js";
import { catalogueContextWindow } from "../../context/usage/pricing.js";

export class ModelWindows {
  private readonly catalogue = new WeakMap<Provider, Map<string, number | null>>();

  constructor(
    readonly book: ContextWindows,
    private readonly clock: Clock,
  ) {}

  /** The window in force for this provider's model, or null when nothing is known of it. */
  windowOf(provider: Provider, model: string): number | null {
    const declared = provider.modelInfo?.[model]?.contextWindow;
    return this.book.windowOf(provider.id, model, declared ?? this.catalogueWindow(provider, model));
  }

  /** R25.2: a context refusal taught this window; returns the window now learned. */
  learn(provider: Provider, model: string, window: number): number {
    return this.book.learn(provider.id, model, window, this.clock.now());
  }

  /** A success carried this many input tokens. */
  served(provider: Provider, model: string, inputTokens: number): void {
    this.book.served(provider.id, model, inputTokens, this.clock.now());
  }

  private catalogueWindow(provider: Provider, model: string): number | null {
    let models = this.catalogue.get(provider);
    if (!models) {
      models = new Map();
      this.catalogue.set(provider, models);
    }
    let window = models.get(model);
    if (window === undefined) {
      window = catalogueContextWindow(provider, model);
      models.set(model, window);
    }
    return window;
  }
}
